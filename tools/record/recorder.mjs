// The recorder: wraps the WebGPU classes' prototypes in place so that a program's compute work
// is written down as it runs (buffers, shaders, pipelines, bind groups, the queue's timeline of
// writes, dispatches, copies and clears, and what the program read back), changing nothing the
// program sees. Runs the same in Node (on the `webgpu` package) and in a page.
//
// The recording is JSON (docs/record.md) without the bytes: what the program wrote and read
// goes to a sink as it happens (a file beside it in Node, chunks in memory in a page, which
// wgstress pulls in pieces), and each event names its bytes by where they start in the sink
// and how many there are. No part of it is one string that grows with the program's data.
// `wgstress record` turns it into a spec.

const VERSION = 2;

// The recorder's own files by name: in a page it is injected under this `sourceURL`, so that
// its frames can be told from the page's.
const OWN = ['recorder.mjs', 'node-hook.mjs', 'wgstress-recorder.js'];

// Where in the program a call was made: the first stack frame outside the recorder. The
// stack is taken deeper than V8's default of 10 frames, so that the program's frame is in
// it under the recorder's own.
function callSite() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 64;
    const stack = new Error().stack?.split('\n').slice(1) ?? [];
    Error.stackTraceLimit = limit;
    const outside = stack.find((line) => /^\s*at /.test(line) && !OWN.some((name) => line.includes(name)));
    if (!outside) return '';
    // "at f (file:///dir/prog.mjs:3:7)" or "at file:///dir/prog.mjs:3:7": the place only.
    const place = outside.trim().replace(/^at /, '').replace(/^.*\((.*)\)$/, '$1');
    return place.replace(/^file:\/\//, '');
}

export function base64(bytes) {
    if (typeof Buffer !== 'undefined') {
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    }
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
        s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(s);
}

// A sink that keeps the bytes in memory, for a page: `read(start, length)` gives a piece of
// them back as base64, for wgstress to pull over DevTools a piece at a time.
export function memorySink() {
    const chunks = [];
    const starts = [];
    let total = 0;
    return {
        put(bytes) {
            const start = total;
            chunks.push(bytes);
            starts.push(start);
            total += bytes.length;
            return { start, length: bytes.length };
        },
        get length() {
            return total;
        },
        read(start, length) {
            const out = new Uint8Array(Math.max(0, Math.min(length, total - start)));
            // The first chunk that holds `start`, then on until `out` is full.
            let lo = 0;
            let hi = starts.length - 1;
            while (lo < hi) {
                const mid = (lo + hi + 1) >> 1;
                if (starts[mid] <= start) lo = mid;
                else hi = mid - 1;
            }
            let filled = 0;
            for (let i = lo; i < chunks.length && filled < out.length; i++) {
                const from = start + filled - starts[i];
                const piece = chunks[i].subarray(from, from + out.length - filled);
                out.set(piece, filled);
                filled += piece.length;
            }
            return base64(out);
        },
    };
}

// A copy of `data` (an ArrayBuffer, a view, or a typed array with element offsets as
// writeBuffer takes them) as bytes.
function bytesOf(data, dataOffset, size) {
    if (data instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer)) {
        const start = dataOffset ?? 0;
        const end = size === undefined ? data.byteLength : start + size;
        return new Uint8Array(data.slice(start, end));
    }
    const element = data.BYTES_PER_ELEMENT ?? 1;
    const start = data.byteOffset + (dataOffset ?? 0) * element;
    const length = size === undefined ? data.byteLength - (dataOffset ?? 0) * element : size * element;
    return new Uint8Array(data.buffer.slice(start, start + length));
}

const now = () => globalThis.performance?.now() ?? Date.now();

// Replaces `proto[name]` by `make(original)`; `touch` runs at every call, before it.
function wrapWith(touch, proto, name, make) {
    const original = proto?.[name];
    if (typeof original !== 'function') return;
    const made = make(original);
    Object.defineProperty(proto, name, {
        value: function (...args) {
            touch();
            return made.apply(this, args);
        },
        writable: true,
        configurable: true,
        enumerable: false,
    });
}

// `files` maps a text the program read from a file to that file's path (the Node hook fills
// it by watching `fs`), so that a shader module made from a file's text names the file.
// `sink.put(bytes)` takes the bytes the program wrote and read and returns where they are.
// Returns the recording and `activity`: when the last WebGPU call came (`last`, in
// milliseconds of `now()`) and whether the program has read anything back (`readBack`), by
// which a recording of a program that never says it is done ends once it is idle.
export function install(classes, files = new Map(), sink = memorySink()) {
    const activity = { last: now(), readBack: false };
    const wrap = (proto, name, make) => wrapWith(() => {
        activity.last = now();
    }, proto, name, make);
    const recording = {
        version: VERSION,
        adapter: null,
        buffers: [],
        shaders: [],
        pipelines: [],
        bindGroups: [],
        timeline: [],
        unsupported: [],
        pending: 0,
    };
    const ids = new WeakMap();
    const encoders = new WeakMap(); // encoder or command buffer -> its commands
    const passes = new WeakMap(); // pass -> { encoder commands, pipeline, groups }
    const layouts = new WeakMap(); // bind group layout -> { pipeline, group }
    const mapped = new WeakMap(); // buffer -> { mode, ranges: [{ offset, array }] }
    let submits = 0;

    const id = (object) => ids.get(object);
    const unsupported = (call) => {
        recording.unsupported.push({ call, at: callSite() });
    };

    const P = (name) => classes[name]?.prototype;

    wrap(P('GPUAdapter'), 'requestDevice', (original) => function (...args) {
        const info = this.info;
        if (info && !recording.adapter) {
            recording.adapter = {
                vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description,
            };
        }
        return original.apply(this, args);
    });

    // The originals the recorder itself calls: its own buffers and copies are not the program's.
    const createBuffer = P('GPUDevice')?.createBuffer;
    const copyBufferToBuffer = P('GPUCommandEncoder')?.copyBufferToBuffer;
    const devices = new WeakMap(); // indirect buffer -> its device, for the probe
    const INDIRECT = 0x0100;
    const COPY_SRC = 0x0004;

    wrap(P('GPUDevice'), 'createBuffer', (original) => function (descriptor) {
        // An indirect buffer also gets COPY_SRC, for the probe that reads the counts a dispatch
        // used; the program still sees the usage it asked for.
        const indirect = (descriptor.usage & INDIRECT) !== 0;
        const widened = indirect && (descriptor.usage & COPY_SRC) === 0;
        const buffer = original.call(this, widened ? { ...descriptor, usage: descriptor.usage | COPY_SRC } : descriptor);
        if (widened) {
            Object.defineProperty(buffer, 'usage', { value: descriptor.usage, configurable: true });
        }
        if (indirect) devices.set(buffer, this);
        ids.set(buffer, recording.buffers.length);
        recording.buffers.push({
            label: descriptor.label ?? '',
            size: Number(descriptor.size),
            usage: descriptor.usage,
            at: callSite(),
        });
        if (descriptor.mappedAtCreation) {
            mapped.set(buffer, { mode: 'write', ranges: [] });
        }
        return buffer;
    });

    wrap(P('GPUDevice'), 'createShaderModule', (original) => function (descriptor) {
        const module = original.call(this, descriptor);
        ids.set(module, recording.shaders.length);
        recording.shaders.push({
            label: descriptor.label ?? '',
            code: descriptor.code,
            file: files.get(descriptor.code) ?? null,
            at: callSite(),
        });
        return module;
    });

    const pipeline = (descriptor, made) => {
        ids.set(made, recording.pipelines.length);
        const compute = descriptor.compute ?? {};
        recording.pipelines.push({
            label: descriptor.label ?? '',
            shader: id(compute.module),
            entryPoint: compute.entryPoint ?? null,
            constants: compute.constants ?? {},
            layout: descriptor.layout === 'auto' ? 'auto' : 'explicit',
            at: callSite(),
        });
        return made;
    };
    wrap(P('GPUDevice'), 'createComputePipeline', (original) => function (descriptor) {
        return pipeline(descriptor, original.call(this, descriptor));
    });
    wrap(P('GPUDevice'), 'createComputePipelineAsync', (original) => function (descriptor) {
        const at = callSite();
        return original.call(this, descriptor).then((made) => {
            pipeline(descriptor, made);
            recording.pipelines[recording.pipelines.length - 1].at = at;
            return made;
        });
    });
    wrap(P('GPUComputePipeline'), 'getBindGroupLayout', (original) => function (index) {
        const layout = original.call(this, index);
        layouts.set(layout, { pipeline: id(this), group: index });
        return layout;
    });

    wrap(P('GPUDevice'), 'createBindGroup', (original) => function (descriptor) {
        const group = original.call(this, descriptor);
        ids.set(group, recording.bindGroups.length);
        const entries = [];
        for (const entry of descriptor.entries ?? []) {
            const resource = entry.resource;
            const buffer = resource && id(resource.buffer ?? resource);
            if (buffer === undefined) {
                unsupported(`createBindGroup: binding ${entry.binding} is not a buffer`);
                continue;
            }
            const whole = resource.buffer === undefined;
            const offset = whole ? 0 : Number(resource.offset ?? 0);
            const size = whole || resource.size === undefined ? null : Number(resource.size);
            entries.push({ binding: entry.binding, buffer, offset, size });
        }
        recording.bindGroups.push({
            label: descriptor.label ?? '',
            layout: layouts.get(descriptor.layout) ?? null,
            entries,
            at: callSite(),
        });
        return group;
    });

    for (const name of ['createTexture', 'createSampler', 'createRenderPipeline', 'createRenderPipelineAsync',
        'createRenderBundleEncoder', 'importExternalTexture', 'createQuerySet']) {
        wrap(P('GPUDevice'), name, (original) => function (...args) {
            unsupported(`GPUDevice.${name}`);
            return original.apply(this, args);
        });
    }

    wrap(P('GPUDevice'), 'createCommandEncoder', (original) => function (...args) {
        const encoder = original.apply(this, args);
        encoders.set(encoder, []);
        return encoder;
    });
    wrap(P('GPUCommandEncoder'), 'beginComputePass', (original) => function (...args) {
        const pass = original.apply(this, args);
        passes.set(pass, { encoder: this, pipeline: null, groups: new Map() });
        return pass;
    });
    wrap(P('GPUCommandEncoder'), 'copyBufferToBuffer', (original) => function (...args) {
        // (src, srcOffset, dst, dstOffset, size) or (src, dst, size?)
        const [src, a, b, c, d] = args;
        const long = typeof a === 'number' || typeof a === 'bigint';
        const command = long
            ? { kind: 'copy', src: id(src), srcOffset: Number(a), dst: id(b), dstOffset: Number(c), size: Number(d) }
            : { kind: 'copy', src: id(src), srcOffset: 0, dst: id(a), dstOffset: 0, size: b === undefined ? null : Number(b) };
        command.at = callSite();
        encoders.get(this)?.push(command);
        return original.apply(this, args);
    });
    wrap(P('GPUCommandEncoder'), 'clearBuffer', (original) => function (buffer, offset, size) {
        encoders.get(this)?.push({
            kind: 'clear', buffer: id(buffer), offset: Number(offset ?? 0),
            size: size === undefined ? null : Number(size), at: callSite(),
        });
        return original.call(this, buffer, offset, size);
    });
    for (const name of ['beginRenderPass', 'copyBufferToTexture', 'copyTextureToBuffer', 'copyTextureToTexture',
        'resolveQuerySet', 'writeTimestamp']) {
        wrap(P('GPUCommandEncoder'), name, (original) => function (...args) {
            unsupported(`GPUCommandEncoder.${name}`);
            return original.apply(this, args);
        });
    }
    wrap(P('GPUCommandEncoder'), 'finish', (original) => function (...args) {
        const buffer = original.apply(this, args);
        encoders.set(buffer, encoders.get(this) ?? []);
        return buffer;
    });

    wrap(P('GPUComputePassEncoder'), 'setPipeline', (original) => function (p) {
        const pass = passes.get(this);
        if (pass) pass.pipeline = id(p);
        return original.call(this, p);
    });
    wrap(P('GPUComputePassEncoder'), 'setBindGroup', (original) => function (index, group, ...rest) {
        const pass = passes.get(this);
        if (pass) {
            let offsets = [];
            if (rest.length === 1 && rest[0]) offsets = Array.from(rest[0]);
            if (rest.length === 3) offsets = Array.from(rest[0].subarray(rest[1], rest[1] + rest[2]));
            if (group === null) pass.groups.delete(index);
            else pass.groups.set(index, { group: id(group), offsets });
        }
        return original.call(this, index, group, ...rest);
    });
    const dispatch = (pass, counts, indirect) => {
        const groups = [...pass.groups.entries()]
            .sort(([a], [b]) => a - b)
            .map(([index, g]) => ({ index, group: g.group, offsets: g.offsets }));
        encoders.get(pass.encoder)?.push({
            kind: 'dispatch', pipeline: pass.pipeline, groups, counts, indirect, at: callSite(),
        });
    };
    wrap(P('GPUComputePassEncoder'), 'dispatchWorkgroups', (original) => function (x, y, z) {
        const pass = passes.get(this);
        if (pass) dispatch(pass, [x, y ?? 1, z ?? 1], null);
        return original.call(this, x, y, z);
    });
    wrap(P('GPUComputePassEncoder'), 'dispatchWorkgroupsIndirect', (original) => function (buffer, offset) {
        const pass = passes.get(this);
        if (pass) {
            // Resolved below, from the buffer's contents when the command buffer is submitted.
            pass.indirect = pass.indirect ?? [];
            pass.indirect.push({ buffer, offset: Number(offset) });
            dispatch(pass, null, { buffer: id(buffer), offset: Number(offset) });
        }
        return original.call(this, buffer, offset);
    });
    wrap(P('GPUComputePassEncoder'), 'end', (original) => function (...args) {
        const result = original.apply(this, args);
        const pass = passes.get(this);
        // The counts an indirect dispatch used: copied out of its buffer after the pass, where
        // a copy may go. (A dispatch of the same pass that rewrote them is not seen.)
        for (const { buffer, offset } of pass?.indirect ?? []) {
            const commands = encoders.get(pass.encoder);
            const command = commands?.findLast((c) => c.kind === 'dispatch' && c.indirect?.offset === offset
                && c.indirect?.buffer === id(buffer) && !c.probe);
            if (!command) continue;
            const device = devices.get(buffer);
            if (!device) continue;
            const probe = createBuffer.call(device, { size: 12, usage: 0x0001 | 0x0008 }); // MAP_READ | COPY_DST
            copyBufferToBuffer.call(pass.encoder, buffer, offset, probe, 0, 12);
            command.probe = probe;
        }
        return result;
    });

    wrap(P('GPUQueue'), 'writeBuffer', (original) => function (buffer, offset, data, dataOffset, size) {
        recording.timeline.push({
            kind: 'write', buffer: id(buffer), offset: Number(offset),
            data: sink.put(bytesOf(data, dataOffset, size)), at: callSite(),
        });
        return original.call(this, buffer, offset, data, dataOffset, size);
    });
    for (const name of ['writeTexture', 'copyExternalImageToTexture']) {
        wrap(P('GPUQueue'), name, (original) => function (...args) {
            unsupported(`GPUQueue.${name}`);
            return original.apply(this, args);
        });
    }
    wrap(P('GPUQueue'), 'submit', (original) => function (buffers) {
        const submit = submits++;
        const probes = [];
        for (const b of buffers) {
            for (const command of encoders.get(b) ?? []) {
                const { probe, ...entry } = command;
                entry.submit = submit;
                recording.timeline.push(entry);
                if (probe) probes.push([probe, entry]);
            }
        }
        recording.timeline.push({ kind: 'submit', submit, at: callSite() });
        const result = original.call(this, buffers);
        for (const [probe, entry] of probes) {
            recording.pending++;
            probe.mapAsync(0x0001)
                .then(() => {
                    entry.counts = Array.from(new Uint32Array(probe.getMappedRange().slice(0)));
                    probe.unmap();
                    probe.destroy();
                })
                .catch(() => {})
                .finally(() => {
                    recording.pending--;
                });
        }
        return result;
    });

    wrap(P('GPUBuffer'), 'mapAsync', (original) => function (mode, ...rest) {
        const state = { mode: (mode & 0x0002) !== 0 ? 'write' : 'read', ranges: [], after: submits };
        return original.call(this, mode, ...rest).then((value) => {
            mapped.set(this, state);
            return value;
        });
    });
    wrap(P('GPUBuffer'), 'getMappedRange', (original) => function (offset, size) {
        const range = original.call(this, offset, size);
        const state = mapped.get(this);
        const start = Number(offset ?? 0);
        if (state?.mode === 'read' && id(this) !== undefined) {
            activity.readBack = true;
            recording.timeline.push({
                kind: 'read', buffer: id(this), offset: start,
                data: sink.put(new Uint8Array(range.slice(0))), after: state.after, at: callSite(),
            });
        } else if (state?.mode === 'write') {
            state.ranges.push({ offset: start, range });
        }
        return range;
    });
    wrap(P('GPUBuffer'), 'unmap', (original) => function (...args) {
        const state = mapped.get(this);
        if (state?.mode === 'write' && id(this) !== undefined) {
            for (const { offset, range } of state.ranges) {
                if (range.byteLength === 0) continue; // detached by an earlier unmap
                recording.timeline.push({
                    kind: 'write', buffer: id(this), offset,
                    data: sink.put(new Uint8Array(range.slice(0))), mapped: true, at: callSite(),
                });
            }
        }
        mapped.delete(this);
        return original.apply(this, args);
    });

    return { recording, activity };
}

// The recording as JSON (its bytes are the sink's), with what is still being read back left
// out.
export function serialize(recording) {
    const { pending, ...rest } = recording;
    return JSON.stringify({ ...rest, unresolved: pending });
}
