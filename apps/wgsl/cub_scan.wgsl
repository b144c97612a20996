// cub-scan: single-pass inclusive prefix sum with decoupled look-back (Merrill and Garland,
// as in CUB's DeviceScan).
// Idiom: each partition publishes its aggregate, then its inclusive prefix, each followed by a
// status flag; later partitions look back over the flags, adding aggregates until they find a
// prefix. Partitions are numbered in the order workgroups start (an atomic ticket), so a
// workgroup only waits for workgroups that already run, whatever the scheduler.
// Bug (FENCES = false): flag and value are separate words, written and read with relaxed
// atomics: a reader can see the flag and still read the old value (message passing).
// Fix (FENCES = true): storageBarrier() between writing a value and its flag, and between
// reading a flag and its value (relies on the platform, as in cbe-dot).
override FENCES: bool = false;

const TILE: u32 = 256u;
const AGGREGATE: u32 = 1u;
const PREFIX: u32 = 2u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> aggregates: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> prefixes: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> tickets: atomic<u32>;

var<workgroup> tile: array<u32, 256>;
var<workgroup> shared_id: u32;
var<workgroup> shared_flag: u32;
var<workgroup> shared_value: u32;

fn fence() {
    if FENCES {
        storageBarrier();
    }
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        shared_id = atomicAdd(&tickets, 1u);
    }
    let part = workgroupUniformLoad(&shared_id);
    let index = part * TILE + lid;
    tile[lid] = input[index];
    workgroupBarrier();
    for (var d = 1u; d < TILE; d <<= 1u) {
        var add = 0u;
        if lid >= d {
            add = tile[lid - d];
        }
        workgroupBarrier();
        tile[lid] += add;
        workgroupBarrier();
    }
    let aggregate = tile[TILE - 1u];

    if lid == 0u {
        atomicStore(&aggregates[part], aggregate);
    }
    fence();
    if lid == 0u && part > 0u {
        atomicStore(&flags[part], AGGREGATE);
    }

    var exclusive = 0u;
    var q = part;
    loop {
        if q == 0u {
            break;
        }
        q -= 1u;
        loop {
            if lid == 0u {
                shared_flag = atomicLoad(&flags[q]);
            }
            if workgroupUniformLoad(&shared_flag) != 0u {
                break;
            }
        }
        fence();
        let flag = workgroupUniformLoad(&shared_flag);
        if lid == 0u {
            if flag == PREFIX {
                shared_value = atomicLoad(&prefixes[q]);
            } else {
                shared_value = atomicLoad(&aggregates[q]);
            }
        }
        exclusive += workgroupUniformLoad(&shared_value);
        if flag == PREFIX {
            break;
        }
    }

    if lid == 0u {
        atomicStore(&prefixes[part], exclusive + aggregate);
    }
    fence();
    if lid == 0u {
        atomicStore(&flags[part], PREFIX);
    }
    output[index] = exclusive + tile[lid];
}
