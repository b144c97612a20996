// A Node program on WebGPU (the npm package webgpu): 256 workgroups take a spin lock 4 times
// each to count to 1,024, then the program reads the count back and checks it.
//   node spin_lock.mjs [--fixed]
// Exit status 0: the count was right; 1: it was not.

import { readFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const fixed = process.argv.includes('--fixed');
const workgroups = 256;
const rounds = 4;

const gpu = create([]);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice();

const code = readFileSync(new URL(fixed ? './spin_lock_fixed.wgsl' : './spin_lock.wgsl', import.meta.url), 'utf8');
const module = device.createShaderModule({ label: 'spin lock', code });
const pipeline = device.createComputePipeline({ label: 'count', layout: 'auto', compute: { module, entryPoint: 'main' } });

const lock = device.createBuffer({ label: 'lock', size: 4, usage: GPUBufferUsage.STORAGE });
const total = device.createBuffer({ label: 'total', size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
const config = device.createBuffer({ label: 'config', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
const readback = device.createBuffer({ label: 'readback', size: 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(config, 0, new Uint32Array([rounds, 0, 0, 0]));

const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
        { binding: 0, resource: { buffer: lock } },
        { binding: 1, resource: { buffer: total } },
        { binding: 2, resource: { buffer: config } },
    ],
});
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.dispatchWorkgroups(workgroups);
pass.end();
encoder.copyBufferToBuffer(total, 0, readback, 0, 4);
device.queue.submit([encoder.finish()]);

await readback.mapAsync(GPUMapMode.READ);
const count = new Uint32Array(readback.getMappedRange())[0];
readback.unmap();
const expected = workgroups * rounds;
console.log(`count ${count} (expected ${expected})`);
process.exitCode = count === expected ? 0 : 1;
