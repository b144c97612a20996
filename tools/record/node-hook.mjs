// Loaded before a Node program (`node --import node-hook.mjs PROGRAM`): installs the recorder
// on the program's own `webgpu` package (resolved from the program's directory, so that both
// share one module and its classes), and writes the recording to $WGSTRESS_RECORDING when the
// program ends (or logs `wgstress:done`, or runs past $WGSTRESS_RECORD_SECONDS, or has made no
// WebGPU call for $WGSTRESS_RECORD_IDLE seconds after it read something back). The bytes the
// program wrote and read go to $WGSTRESS_RECORDING.bin as they come, not into memory.

import { createRequire, syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
/// The texts the program read from files, by text: a shader module made from one names it.
const files = new Map();
const remember = (path, data, options) => {
    try {
        const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
        const where = path instanceof URL ? fileURLToPath(path) : typeof path === 'string' ? resolve(path) : null;
        if (where && text.length < 64 << 20) files.set(text, where);
    } catch {
        // A read the recorder cannot follow is only not remembered.
    }
    void options;
};
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, options) {
    const data = readFileSync.call(this, path, options);
    remember(path, data, options);
    return data;
};
const readFile = fs.promises.readFile;
fs.promises.readFile = async function (path, options) {
    const data = await readFile.call(this, path, options);
    remember(path, data, options);
    return data;
};
syncBuiltinESMExports();
// The bytes, appended to a file as the program writes and reads them.
function fileSink(path) {
    const fd = openSync(path, 'w');
    let total = 0;
    return {
        put(bytes) {
            const start = total;
            for (let done = 0; done < bytes.length;) {
                done += writeSync(fd, bytes, done, bytes.length - done);
            }
            total += bytes.length;
            return { start, length: bytes.length };
        },
        close() {
            closeSync(fd);
        },
    };
}
if (classes && out) {
    const sink = fileSink(`${out}.bin`);
    const { recording, activity } = install(classes, files, sink);
    let written = false;
    const write = () => {
        if (!written) {
            written = true;
            sink.close();
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
    const idle = Number(process.env.WGSTRESS_RECORD_IDLE);
    if (idle > 0) {
        setInterval(() => {
            if (activity.readBack && recording.pending === 0 && performance.now() - activity.last >= idle * 1000) {
                process.exit(0);
            }
        }, 100).unref();
    }
    const log = console.log;
    console.log = function (...args) {
        log.apply(this, args);
        if (args.length === 1 && args[0] === 'wgstress:done') process.exit(0);
    };
}
