// Validates WGSL with Tint, Dawn's WGSL compiler, through Dawn's Node bindings (no GPU: the
// null backend compiles shaders but runs nothing). One Node process checks a whole batch.
//
//   node validate.mjs FILE...        each file is one shader
//   node validate.mjs                one shader read from stdin, named <stdin>
//   node validate.mjs --batch        stdin is a JSON array of {"name": ..., "code": ...}
//
// Prints `NAME:LINE:COL: MESSAGE` for every error (and `NAME:LINE:COL: note: ...` for the
// notes Tint attaches to it), exits 1 if any shader has an error, 2 if Tint is unavailable.
import { readFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

function shaders(args) {
    if (args.length === 1 && args[0] === '--batch') {
        return JSON.parse(readFileSync(0, 'utf8'));
    }
    if (args.length === 0 || (args.length === 1 && args[0] === '-')) {
        return [{ name: '<stdin>', code: readFileSync(0, 'utf8') }];
    }
    return args.map((path) => ({ name: path, code: readFileSync(path, 'utf8') }));
}

// gpu and adapter stay referenced for the whole run: Dawn crashes if they are collected
// while the device lives.
const gpu = create(['backend=null']);
const adapter = await gpu.requestAdapter();
if (!adapter) {
    console.error('tint: Dawn offers no adapter on the null backend');
    process.exit(2);
}
// Shaders that enable these extensions validate only on a device that has them.
const wanted = (f) => f === 'shader-f16' || f.startsWith('subgroups');
const gpuDevice = await adapter.requestDevice({
    requiredFeatures: [...adapter.features].filter(wanted),
});

const oneLine = (text) => text.replace(/\s*\n\s*/g, ' ').trim();

let failed = 0;
for (const { name, code } of shaders(process.argv.slice(2))) {
    // getCompilationInfo reports the errors; the scope keeps Dawn from printing them again.
    gpuDevice.pushErrorScope('validation');
    const module = gpuDevice.createShaderModule({ code });
    const { messages } = await module.getCompilationInfo();
    await gpuDevice.popErrorScope();
    const errors = messages.filter((m) => m.type === 'error');
    if (errors.length === 0) continue;
    failed++;
    for (const m of messages) {
        const kind = m.type === 'error' ? '' : 'note: ';
        console.log(`${name}:${m.lineNum}:${m.linePos}: ${kind}${oneLine(m.message)}`);
    }
}
process.exit(failed ? 1 : 0);
