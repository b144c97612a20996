// Loaded before a Node program (`node --import node-hook.mjs PROGRAM`): installs the recorder
// on the program's own `webgpu` package (resolved from the program's directory, so that both
// share one module and its classes), and writes the recording to $WGSTRESS_RECORDING when the
// program ends (or logs `wgstress:done`, or runs past $WGSTRESS_RECORD_SECONDS).

import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { install, serialize } from './recorder.mjs';

const out = process.env.WGSTRESS_RECORDING;
const program = process.argv[1] ? resolve(process.argv[1]) : resolve('index.js');
let classes;
try {
    const where = createRequire(pathToFileURL(program)).resolve('webgpu');
    classes = (await import(pathToFileURL(where).href)).globals;
} catch (e) {
    process.stderr.write(`wgstress record: the program's webgpu package was not found from ${program}: ${e.message}\n`);
}
if (classes && out) {
    const recording = install(classes);
    let written = false;
    const write = () => {
        if (!written) {
            written = true;
            writeFileSync(out, serialize(recording));
        }
    };
    // Probes of indirect dispatches are read back asynchronously: wait for them when the
    // program would otherwise end on its own. `process.exit` ends at once, and they are left.
    process.on('beforeExit', () => {
        if (recording.pending === 0) write();
    });
    process.on('exit', write);
    // The recording also ends at the program's console line `wgstress:done`, or after
    // $WGSTRESS_RECORD_SECONDS: for a program that serves or loops instead of ending.
    const seconds = Number(process.env.WGSTRESS_RECORD_SECONDS);
    if (seconds > 0) {
        setTimeout(() => process.exit(0), seconds * 1000).unref();
    }
    const log = console.log;
    console.log = function (...args) {
        log.apply(this, args);
        if (args.length === 1 && args[0] === 'wgstress:done') process.exit(0);
    };
}
