// A single-pass prefix sum with decoupled look-back and no fallback: the pattern of the
// one-pass scans (Merrill and Garland's decoupled look-back, as CUB ships it and as the
// WebGPU and Vulkan scans after it do), which spins on a predecessor's flag.
//
// Each workgroup takes its tile from an atomic counter, so tiles follow the order in which
// workgroups start. It scans its tile, publishes the tile's sum (its aggregate), then looks
// back over the tiles before it: while a predecessor has published nothing it waits; an
// aggregate it adds and looks further back; an inclusive prefix it adds and stops. It then
// publishes its own inclusive prefix and writes its scanned tile.
//
// Forward progress: the wait is on the workgroup that took the tile before, which has
// started (it took its tile), but may have a higher id than the waiter. So the scan ends
// when every started workgroup keeps running (OBE, and LOBE), and may spin forever where only
// the lowest id is sure to run (HSA) or nothing is (unfair): reported to hang on Apple and ARM
// GPUs, which is why the fallback of lookback_fallback.wgsl exists.
//
// Each tile's state and sum share one atomic word (state in the top two bits), so a reader
// that sees a state sees its sum: weak memory leaves nothing to order, and the only
// question left is forward progress.

const WG: u32 = 64u;
const PER_INVOCATION: u32 = 4u;
const TILE: u32 = WG * PER_INVOCATION;

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 0x40000000u;
const INCLUSIVE: u32 = 0x80000000u;
const STATE: u32 = 0xc0000000u;
const SUM: u32 = 0x3fffffffu;

// false: tile = the last tile minus the workgroup id, so that every workgroup waits on ones
// with higher ids, which a GPU that starts workgroups in id order (or lavapipe) has not
// started; the wait then never ends there.
override tiles_from_counter: bool = true;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;

var<workgroup> shared_tile: u32;
var<workgroup> sums: array<u32, WG>;
var<workgroup> seen: u32;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if lid == 0u {
        if tiles_from_counter {
            shared_tile = atomicAdd(&next_tile, 1u);
        } else {
            shared_tile = groups.x - 1u - group.x;
        }
    }
    let tile = workgroupUniformLoad(&shared_tile);

    // The tile's scan: each invocation's run of PER_INVOCATION, then across invocations.
    let first = tile * TILE + lid * PER_INVOCATION;
    var own: array<u32, PER_INVOCATION>;
    var running = 0u;
    for (var k = 0u; k < PER_INVOCATION; k++) {
        running += input[first + k];
        own[k] = running;
    }
    sums[lid] = running;
    workgroupBarrier();
    for (var offset = 1u; offset < WG; offset *= 2u) {
        var add = 0u;
        if lid >= offset {
            add = sums[lid - offset];
        }
        workgroupBarrier();
        sums[lid] += add;
        workgroupBarrier();
    }
    let aggregate = sums[WG - 1u];
    let before_me = sums[lid] - running;

    // The look-back, by the whole workgroup: invocation 0 reads, all see what it read.
    var exclusive = 0u;
    if tile == 0u {
        if lid == 0u {
            atomicStore(&status[0], INCLUSIVE | aggregate);
        }
    } else {
        if lid == 0u {
            atomicStore(&status[tile], AGGREGATE | aggregate);
        }
        var predecessor = tile - 1u;
        loop {
            if lid == 0u {
                seen = atomicLoad(&status[predecessor]);
            }
            let word = workgroupUniformLoad(&seen);
            if (word & STATE) == NOT_READY {
                continue;
            }
            exclusive += word & SUM;
            if (word & STATE) == INCLUSIVE {
                break;
            }
            predecessor -= 1u;
        }
        if lid == 0u {
            atomicStore(&status[tile], INCLUSIVE | (exclusive + aggregate));
        }
    }

    for (var k = 0u; k < PER_INVOCATION; k++) {
        output[first + k] = exclusive + before_me + own[k];
    }
}
