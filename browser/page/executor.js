// The wgstress device page: a WebGPU executor for the process that served it. It connects
// back over the WebSocket named in its address (`?ws=PORT&max=BYTES`, the token being the
// first part of its path) to the host it was served from, and runs each request
// `{id, op, device, release, ...}` as it comes, answering `{id, ok}` or
// `{id, error: {kind, what, message}}` (kind "refused", "lost" or "open"). Every message
// either way carries the token; one without it is ignored here and closes the socket there.
// Messages with an `event` are news of `wgstress serve`'s items, for serve.js where it is
// loaded. The protocol is described in browser/src/lib.rs; every step does what wgpu does
// for the same step in the runtime's native device.
//
// Requests run concurrently (a pipeline is made while a batch waits for its read-backs);
// a device's submissions reach its queue in the order they came, and their read-backs are
// mapped one batch after another, since a buffer being mapped cannot be mapped again.
'use strict';

const token = location.pathname.split('/')[1];
const query = new URLSearchParams(location.search);
// The largest message the process reads: a reply longer than it is refused here instead.
const MAX_MESSAGE = Number(query.get('max'));
const host = location.hostname.includes(':') ? `[${location.hostname}]` : location.hostname;
const socket = new WebSocket(`ws://${host}:${query.get('ws')}/${token}`);

// Open devices by number: { gpu, lost (its reason once lost), uncaptured (the first error no
// scope caught), reading (the last batch's read-backs), buffers, layouts, pipelines, groups }.
const devices = new Map();
let nextDevice = 1;

class Failure extends Error {
  constructor(kind, what, message) {
    super(message);
    this.kind = kind;
    this.what = what;
  }
}

const refused = (what, message) => new Failure('refused', what, message);

// The first line of a message: replies carry each reason on one line, as wgpu's do.
const oneLine = (text) => String(text).split('\n').map((l) => l.trim()).filter((l) => l)[0] || String(text);

function toBase64(bytes) {
  if (bytes.toBase64) return bytes.toBase64();
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(out);
}

function fromBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const chars = atob(text);
  const bytes = new Uint8Array(chars.length);
  for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i);
  return bytes;
}

function device(number) {
  const d = devices.get(number);
  if (!d) throw refused(`device ${number}`, 'the page holds no such device');
  if (d.lost !== undefined) throw new Failure('lost', `device ${number}`, d.lost);
  return d;
}

function object(map, kind, id) {
  const o = map.get(id);
  if (o === undefined) throw refused(`${kind} #${id}`, 'the device holds no such object');
  return o;
}

// Runs `body` inside error scopes of every kind (out of memory, internal, validation),
// popped at once, as the native device's scope; `errors` is the first error any caught.
function scoped(gpu, body) {
  gpu.pushErrorScope('out-of-memory');
  gpu.pushErrorScope('internal');
  gpu.pushErrorScope('validation');
  let result;
  let thrown;
  try {
    result = body();
  } catch (e) {
    thrown = e;
  }
  const pops = [gpu.popErrorScope(), gpu.popErrorScope(), gpu.popErrorScope()];
  const errors = Promise.all(pops).then((caught) => caught.find((e) => e) || null);
  return { result, thrown, errors };
}

// Releases what no handle on the process's side holds any longer; buffers are destroyed.
function release(d, resources) {
  for (const { kind, id } of resources) {
    if (kind === 'buffer') {
      const buffer = d.buffers.get(id);
      if (buffer) buffer.destroy();
      d.buffers.delete(id);
    } else if (kind === 'layout') {
      d.layouts.delete(id);
    } else if (kind === 'pipeline') {
      d.pipelines.delete(id);
    } else if (kind === 'bind-group') {
      d.groups.delete(id);
    }
  }
}

const ops = {
  // The adapter, and a device of it with `features` and every limit the adapter has.
  async open(m) {
    if (!navigator.gpu) {
      throw new Failure('open', 'WebGPU', 'the page has no navigator.gpu (WebGPU is off in this browser)');
    }
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Failure('open', 'WebGPU', 'requestAdapter() gave no adapter');
    const info = adapter.info || {};
    const name = info.description || `${info.vendor} ${info.architecture}`;
    const description = {
      vendor: info.vendor || '',
      architecture: info.architecture || '',
      device: info.device || '',
      description: info.description || '',
      subgroupMinSize: info.subgroupMinSize ?? null,
      subgroupMaxSize: info.subgroupMaxSize ?? null,
    };
    const answer = {
      device: null,
      missing: m.features.filter((f) => !adapter.features.has(f)),
      info: description,
      fallback: adapter.isFallbackAdapter ?? info.isFallbackAdapter ?? null,
      limits: {},
      features: [...adapter.features],
      userAgent: navigator.userAgent,
    };
    if (answer.missing.length > 0) return answer;
    const requiredLimits = {};
    for (const key in adapter.limits) {
      if (typeof adapter.limits[key] === 'number') requiredLimits[key] = adapter.limits[key];
    }
    let gpu;
    try {
      gpu = await adapter.requestDevice({ requiredFeatures: m.features, requiredLimits });
    } catch (e) {
      throw new Failure('open', name, `requestDevice: ${oneLine(e.message)}`);
    }
    const number = nextDevice++;
    const d = {
      gpu,
      lost: undefined,
      uncaptured: undefined,
      reading: Promise.resolve(),
      buffers: new Map(),
      layouts: new Map(),
      pipelines: new Map(),
      groups: new Map(),
    };
    devices.set(number, d);
    gpu.onuncapturederror = (event) => {
      if (d.uncaptured === undefined) d.uncaptured = oneLine(event.error.message);
    };
    gpu.lost.then((lost) => {
      d.lost = oneLine(lost.message || lost.reason || 'the device was lost');
      send({ event: 'lost', device: number, reason: d.lost });
    });
    for (const key in gpu.limits) {
      if (typeof gpu.limits[key] === 'number') answer.limits[key] = gpu.limits[key];
    }
    answer.device = number;
    return answer;
  },

  // A buffer, holding `contents` (mapped at creation) where given.
  async 'create-buffer'(m, d) {
    const { desc } = m;
    const what = `buffer ${desc.label} of ${desc.size} bytes`;
    const contents = m.contents == null ? null : fromBase64(m.contents);
    const made = scoped(d.gpu, () => d.gpu.createBuffer({
      label: desc.label,
      size: desc.size,
      usage: desc.usage,
      mappedAtCreation: contents !== null,
    }));
    const error = await made.errors;
    if (made.thrown) throw refused(what, oneLine(made.thrown.message));
    if (error) {
      made.result.destroy();
      throw refused(what, oneLine(error.message));
    }
    const buffer = made.result;
    if (contents !== null) {
      try {
        new Uint8Array(buffer.getMappedRange()).set(contents);
      } catch (e) {
        buffer.destroy();
        throw refused(what, oneLine(e.message));
      }
      buffer.unmap();
    }
    d.buffers.set(m.object, buffer);
    return null;
  },

  // Bind group layouts (compute, buffer bindings) and the pipeline layout of them.
  async 'create-layout'(m, d) {
    const made = scoped(d.gpu, () => {
      const groups = m.desc.groups.map((entries) => d.gpu.createBindGroupLayout({
        entries: entries.map((e) => ({
          binding: e.binding,
          visibility: GPUShaderStage.COMPUTE,
          buffer: {
            type: e.ty === 'uniform' ? 'uniform' : e.ty.storage.read_only ? 'read-only-storage' : 'storage',
            hasDynamicOffset: e.dynamic,
          },
        })),
      }));
      const layout = d.gpu.createPipelineLayout({ label: 'wgstress', bindGroupLayouts: groups });
      return { layout, groups };
    });
    const error = await made.errors;
    if (made.thrown) throw refused('pipeline layout', oneLine(made.thrown.message));
    if (error) throw refused('pipeline layout', oneLine(error.message));
    d.layouts.set(m.object, made.result);
    return null;
  },

  // A compute pipeline; a shader the browser refuses is answered with its compilation
  // messages, each with its line:column.
  async 'create-pipeline'(m, d) {
    const { desc } = m;
    const what = `${desc.label} (entry point \`${desc.entry}\`)`;
    const { layout } = object(d.layouts, 'layout', desc.layout);
    const constants = {};
    for (const [key, value] of desc.constants) constants[key] = value;
    let module;
    const made = scoped(d.gpu, () => {
      module = d.gpu.createShaderModule({ label: desc.label, code: desc.wgsl });
      return d.gpu.createComputePipeline({
        label: desc.entry,
        layout,
        compute: { module, entryPoint: desc.entry, constants },
      });
    });
    const error = await made.errors;
    if (made.thrown || error) {
      let message = oneLine((made.thrown || error).message);
      if (module) {
        const info = await module.getCompilationInfo();
        const errors = info.messages
          .filter((x) => x.type === 'error')
          .map((x) => `${oneLine(x.message)} (at ${x.lineNum}:${x.linePos})`);
        if (errors.length > 0) message = errors.join('; ');
      }
      throw refused(what, message);
    }
    d.pipelines.set(m.object, made.result);
    return null;
  },

  // A bind group of the layout's group `group`.
  async 'create-bind-group'(m, d) {
    const { desc } = m;
    const what = `bind group ${desc.group}`;
    const { groups } = object(d.layouts, 'layout', desc.layout);
    const layout = groups[desc.group];
    if (!layout) throw refused(`layout #${desc.layout}`, 'the device holds no such object');
    const entries = desc.entries.map((e) => ({
      binding: e.binding,
      resource: {
        buffer: object(d.buffers, 'buffer', e.buffer),
        offset: e.offset,
        size: e.size == null ? undefined : e.size,
      },
    }));
    const made = scoped(d.gpu, () => d.gpu.createBindGroup({ layout, entries }));
    const error = await made.errors;
    if (made.thrown) throw refused(what, oneLine(made.thrown.message));
    if (error) throw refused(what, oneLine(error.message));
    d.groups.set(m.object, made.result);
    return null;
  },

  // Bytes into a buffer before any later batch; what the queue refuses is reported by the
  // next batch, as wgpu's uncaptured errors are.
  async write(m, d) {
    const buffer = object(d.buffers, 'buffer', m.write.buffer);
    d.gpu.queue.writeBuffer(buffer, m.write.offset, fromBase64(m.write.bytes));
    return null;
  },

  // A batch: its writes, its commands in one command buffer, one submission, then each
  // read's first bytes as base64.
  async submit(m, d) {
    const { batch } = m;
    const checked = scoped(d.gpu, () => {
      const buffer = (id) => object(d.buffers, 'buffer', id);
      for (const w of batch.writes) d.gpu.queue.writeBuffer(buffer(w.buffer), w.offset, fromBase64(w.bytes));
      const encoder = d.gpu.createCommandEncoder();
      for (const c of batch.commands) {
        if (c.op === 'clear') {
          encoder.clearBuffer(buffer(c.buffer));
        } else if (c.op === 'copy') {
          encoder.copyBufferToBuffer(buffer(c.from), c.from_offset, buffer(c.to), c.to_offset, c.size);
        } else if (c.op === 'pass') {
          const pass = encoder.beginComputePass();
          for (const s of c.steps) {
            if (s.op === 'pipeline') {
              pass.setPipeline(object(d.pipelines, 'pipeline', s.pipeline));
            } else if (s.op === 'bind-group') {
              pass.setBindGroup(s.index, object(d.groups, 'bind group', s.group), s.offsets);
            } else if (s.op === 'dispatch') {
              pass.dispatchWorkgroups(s.workgroups[0], s.workgroups[1], s.workgroups[2]);
            } else {
              throw refused('work of the batch', `no pass step ${s.op}`);
            }
          }
          pass.end();
        } else {
          throw refused('work of the batch', `no command ${c.op}`);
        }
      }
      const reads = batch.reads.map((r) => [buffer(r.buffer), r.bytes]);
      d.gpu.queue.submit([encoder.finish()]);
      return reads;
    });
    if (checked.thrown) {
      await checked.errors;
      throw checked.thrown instanceof Failure ? checked.thrown : refused('work of the batch', oneLine(checked.thrown.message));
    }
    const reads = checked.result;
    const done = d.gpu.queue.onSubmittedWorkDone();
    const previous = d.reading;
    const reading = (async () => {
      await previous;
      await done;
      const error = await checked.errors;
      if (error) throw refused('work of the batch', oneLine(error.message));
      if (d.uncaptured !== undefined) {
        const message = d.uncaptured;
        d.uncaptured = undefined;
        throw refused('work of the batch', message);
      }
      const words = [];
      for (const [buffer, bytes] of reads) {
        try {
          await buffer.mapAsync(GPUMapMode.READ, 0, bytes);
        } catch (e) {
          if (d.lost !== undefined) throw new Failure('lost', 'reading results back', d.lost);
          throw refused('reading results back', oneLine(e.message));
        }
        words.push(toBase64(new Uint8Array(buffer.getMappedRange(0, bytes))));
        buffer.unmap();
      }
      return words;
    })();
    d.reading = reading.catch(() => {});
    return await reading;
  },

  // Only the releases the request carries.
  async release() {
    return null;
  },

  // Destroys a device the process dropped.
  async 'drop-device'(m, d) {
    devices.delete(m.device);
    d.gpu.destroy();
    return null;
  },
};

function send(message) {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...message, token }));
}

// The page's name for `wgstress serve`'s directories, if its address gives one (`&name=`).
socket.addEventListener('open', () => send({ event: 'hello', name: query.get('name') || '' }));

async function handle(m) {
  let reply;
  try {
    const op = ops[m.op];
    if (!op) throw refused(m.op, 'the page has no such request');
    let d = null;
    if (m.op !== 'open') {
      d = device(m.device);
      if (m.release) release(d, m.release);
    }
    const ok = await op(m, d);
    reply = { id: m.id, token, ok: ok === undefined ? null : ok };
  } catch (e) {
    const failure = e instanceof Failure ? e : refused(m.op, oneLine(e && e.message ? e.message : e));
    reply = { id: m.id, token, error: { kind: failure.kind, what: failure.what, message: failure.message } };
  }
  let text = JSON.stringify(reply);
  if (text.length > MAX_MESSAGE) {
    text = JSON.stringify({
      id: m.id,
      token,
      error: {
        kind: 'refused',
        what: m.op,
        message: `the answer of ${text.length} bytes is over the largest message, ${MAX_MESSAGE} bytes`,
      },
    });
  }
  socket.send(text);
}

socket.onmessage = (event) => {
  let message;
  try {
    message = JSON.parse(event.data);
  } catch (e) {
    return;
  }
  if (!message || message.token !== token) return;
  if (message.event !== undefined) {
    if (typeof onServeEvent === 'function') onServeEvent(message);
    return;
  }
  handle(message);
};
