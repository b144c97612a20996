// A Node program on WebGPU: the inclusive prefix sum of WORDS words (2^24 by default; a
// multiple of 1,024) in one pass by decoupled look-back (scan.wgsl), read back and checked on
// the host. Each word is its index mod 3, so that every sum fits the 30 bits a tile's state
// holds.
//   node scan.mjs [--words WORDS]
// Exit status 0: every sum was right; 1: one was not.

import { readFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const at = process.argv.indexOf('--words');
const words = at > 0 ? Number(process.argv[at + 1]) : 1 << 24;
const TILE = 1024;
const tiles = words / TILE;
if (!Number.isInteger(tiles) || tiles < 1 || tiles > 65535 || words * 2 >= 1 << 30) {
    throw new Error(`--words ${words}: give a multiple of ${TILE}, at most ${TILE * 65535}`);
}

const gpu = create([]);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice({
    requiredLimits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize },
});
const code = readFileSync(new URL('./scan.wgsl', import.meta.url), 'utf8');
const module = device.createShaderModule({ label: 'look-back scan', code });
const pipeline = device.createComputePipeline({ label: 'scan', layout: 'auto', compute: { module, entryPoint: 'main' } });

const STORAGE = GPUBufferUsage.STORAGE;
const input = device.createBuffer({ label: 'input', size: words * 4, usage: STORAGE | GPUBufferUsage.COPY_DST });
const output = device.createBuffer({ label: 'output', size: words * 4, usage: STORAGE | GPUBufferUsage.COPY_SRC });
const ticket = device.createBuffer({ label: 'ticket', size: 4, usage: STORAGE });
const states = device.createBuffer({ label: 'states', size: tiles * 4, usage: STORAGE });
const read = device.createBuffer({ label: 'read', size: words * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const values = new Uint32Array(words).map((_, i) => i % 3);
device.queue.writeBuffer(input, 0, values);

const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [input, output, ticket, states].map((buffer, binding) => ({ binding, resource: { buffer } })),
});
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.dispatchWorkgroups(tiles);
pass.end();
encoder.copyBufferToBuffer(output, 0, read, 0, words * 4);
device.queue.submit([encoder.finish()]);
await read.mapAsync(GPUMapMode.READ);
const sums = new Uint32Array(read.getMappedRange());
let wrong = 0;
let sum = 0;
for (let i = 0; i < words; i++) {
    sum += values[i];
    if (sums[i] !== sum) wrong++;
}
read.unmap();
console.log(`${wrong} of ${words} sums wrong`);
process.exitCode = wrong === 0 ? 0 : 1;
