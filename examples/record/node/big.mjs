// A Node program on WebGPU with large buffers: two inputs, two outputs and two staging
// buffers of WORDS words each (2^25 by default: 128 MiB each, the largest storage binding
// Dawn on lavapipe gives, 768 MiB in all), every word of an output a mix of its input's word
// and its index, read back whole and checked on the host.
//   node big.mjs [--words WORDS]   (WORDS a multiple of 256)
// Exit status 0: every word was right; 1: one was not.

import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const at = process.argv.indexOf('--words');
const words = at > 0 ? Number(process.argv[at + 1]) : 1 << 25;
const size = words * 4;
const GROUP = 256;
// Workgroups in a grid no wider than a dimension allows.
const groups = words / GROUP;
const x = Math.min(groups, 4096);
const y = groups / x;
if (!Number.isInteger(y)) throw new Error(`--words ${words}: give a multiple of ${GROUP * x}`);

const gpu = create([]);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice({
    requiredLimits: {
        maxBufferSize: adapter.limits.maxBufferSize,
        maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    },
});

const module = device.createShaderModule({
    label: 'mix',
    code: `
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> mixed: array<u32>;
@group(0) @binding(3) var<storage, read_write> flipped: array<u32>;

@compute @workgroup_size(${GROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) n: vec3u,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * n.x + wg.x) * ${GROUP}u + lid;
    mixed[i] = a[i] * 2654435761u + i;
    flipped[i] = b[i] ^ (i << 7u);
}`,
});
const pipeline = device.createComputePipeline({ label: 'mix', layout: 'auto', compute: { module, entryPoint: 'main' } });
const buffer = (label, usage) => device.createBuffer({ label, size, usage });
const STORAGE = GPUBufferUsage.STORAGE;
const inputs = ['a', 'b'].map((l) => buffer(l, STORAGE | GPUBufferUsage.COPY_DST));
const outputs = ['mixed', 'flipped'].map((l) => buffer(l, STORAGE | GPUBufferUsage.COPY_SRC));
const staging = ['mixed read', 'flipped read'].map((l) => buffer(l, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST));
const values = [0x5bd1e995, 0x27d4eb2f].map((k) => {
    const v = new Uint32Array(words);
    for (let i = 0; i < words; i++) v[i] = (i ^ k) >>> 0;
    return v;
});
inputs.forEach((b, k) => device.queue.writeBuffer(b, 0, values[k]));

const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [...inputs, ...outputs].map((buffer, binding) => ({ binding, resource: { buffer } })),
});
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.dispatchWorkgroups(x, y);
pass.end();
outputs.forEach((b, k) => encoder.copyBufferToBuffer(b, 0, staging[k], 0, size));
device.queue.submit([encoder.finish()]);
const expected = [
    (i) => (Math.imul(values[0][i], 2654435761) + i) >>> 0,
    (i) => (values[1][i] ^ (i << 7)) >>> 0,
];
let wrong = 0;
for (let k = 0; k < 2; k++) {
    await staging[k].mapAsync(GPUMapMode.READ);
    const out = new Uint32Array(staging[k].getMappedRange());
    for (let i = 0; i < words; i++) {
        if (out[i] !== expected[k](i)) wrong++;
    }
    staging[k].unmap();
}
console.log(`${wrong} of ${2 * words} words wrong`);
process.exitCode = wrong === 0 ? 0 : 1;
