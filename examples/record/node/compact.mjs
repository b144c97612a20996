// A Node program on WebGPU whose second pass depends on the first one's output: it picks the
// values below 100 out of 1,024, then squares the picked ones in place.
//   node compact.mjs             reads the count back and dispatches that many workgroups
//   node compact.mjs --indirect  lets the GPU write the counts of an indirect dispatch
// Exit status 0: the squares are right; 1: they are not.

import { readFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const indirect = process.argv.includes('--indirect');
const n = 1024;

const gpu = create([]);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice();
const module = device.createShaderModule({
    label: 'compact',
    code: readFileSync(new URL('./compact.wgsl', import.meta.url), 'utf8'),
});
const pipeline = (entryPoint) =>
    device.createComputePipeline({ label: entryPoint, layout: 'auto', compute: { module, entryPoint } });
const select = pipeline('select');
const args = pipeline('args');
const square = pipeline('square');

const S = GPUBufferUsage;
// Values 0..n scrambled by a fixed multiplier: 100 of them are below 100.
const data = Uint32Array.from({ length: n }, (_, i) => (i * 389) % n);
const values = device.createBuffer({ label: 'values', size: n * 4, usage: S.STORAGE | S.COPY_DST });
const count = device.createBuffer({ label: 'count', size: 4, usage: S.STORAGE | S.COPY_SRC | S.COPY_DST });
const picked = device.createBuffer({ label: 'picked', size: n * 4, usage: S.STORAGE | S.COPY_SRC });
const counts = device.createBuffer({ label: 'dispatch', size: 12, usage: S.STORAGE | S.INDIRECT });
const squares = device.createBuffer({ label: 'squares', size: n * 4, usage: S.STORAGE | S.COPY_SRC });
const read = device.createBuffer({ label: 'read', size: n * 4, usage: S.MAP_READ | S.COPY_DST });
device.queue.writeBuffer(values, 0, data);

const bind = (p, entries) =>
    device.createBindGroup({
        layout: p.getBindGroupLayout(0),
        entries: entries.map(([binding, buffer]) => ({ binding, resource: { buffer } })),
    });
const run = (p, group, x) => {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(p);
    pass.setBindGroup(0, group);
    if (typeof x === 'number') pass.dispatchWorkgroups(x);
    else pass.dispatchWorkgroupsIndirect(x, 0);
    pass.end();
    return encoder;
};

device.queue.submit([run(select, bind(select, [[0, values], [1, count], [2, picked]]), n / 64).finish()]);
let found;
if (indirect) {
    device.queue.submit([run(args, bind(args, [[1, count], [3, counts]]), 1).finish()]);
    device.queue.submit([run(square, bind(square, [[0, values], [1, count], [2, picked], [4, squares]]), counts).finish()]);
    const e = device.createCommandEncoder();
    e.copyBufferToBuffer(count, 0, read, 0, 4);
    device.queue.submit([e.finish()]);
    await read.mapAsync(GPUMapMode.READ, 0, 4);
    found = new Uint32Array(read.getMappedRange(0, 4))[0];
    read.unmap();
} else {
    const e = device.createCommandEncoder();
    e.copyBufferToBuffer(count, 0, read, 0, 4);
    device.queue.submit([e.finish()]);
    await read.mapAsync(GPUMapMode.READ, 0, 4);
    found = new Uint32Array(read.getMappedRange(0, 4))[0];
    read.unmap();
    device.queue.submit([run(square, bind(square, [[0, values], [1, count], [2, picked], [4, squares]]), Math.ceil(found / 64)).finish()]);
}
const e = device.createCommandEncoder();
e.copyBufferToBuffer(squares, 0, read, 0, n * 4);
device.queue.submit([e.finish()]);
await read.mapAsync(GPUMapMode.READ);
const got = new Uint32Array(read.getMappedRange()).slice();
read.unmap();
const ok = found === 100 && got.every((s, i) => s === (data[i] < 100 ? data[i] * data[i] : 0));
console.log(`picked ${found}, squares ${ok ? 'right' : 'wrong'}`);
process.exitCode = ok ? 0 : 1;
