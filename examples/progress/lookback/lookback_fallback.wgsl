// lookback.wgsl with a fallback, in the pattern of the "decoupled fallback" scans (and of
// the WebGPU scans that do the same for GPUs without forward progress between workgroups):
// a workgroup waits a bounded number of tries for a predecessor's tile; when it is still
// not ready, the waiting workgroup reduces that tile from the input itself, publishes the
// sum for others (an aggregate, or tile 0's inclusive prefix), and looks further back.
//
// Forward progress: no wait is unbounded. A workgroup that runs alone, all the others
// parked or never started, reduces every tile before its own and finishes: the scan ends
// under every model, unfair included, at the cost of the extra reductions when a
// predecessor is slow.
//
// Tile status words as in lookback.wgsl (state and sum in one atomic word). A tile's
// status may be written by its owner and by workgroups doing its work; all write the same
// sum, and through atomicMax, so a later inclusive prefix is never replaced by an aggregate.

const WG: u32 = 64u;
const PER_INVOCATION: u32 = 4u;
const TILE: u32 = WG * PER_INVOCATION;

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 0x40000000u;
const INCLUSIVE: u32 = 0x80000000u;
const STATE: u32 = 0xc0000000u;
const SUM: u32 = 0x3fffffffu;

// How many times a workgroup reads a predecessor's status before it does its work.
override tries: u32 = 16u;
// false: tiles by descending workgroup id, as in lookback.wgsl: every tile's predecessor
// belongs to a workgroup with a higher id, so where workgroups start in id order the
// fallback runs for every tile.
override tiles_from_counter: bool = true;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;

var<workgroup> shared_tile: u32;
var<workgroup> sums: array<u32, WG>;
var<workgroup> seen: u32;

/// The sum of `tile`'s input, by the whole workgroup (it uses `sums`).
fn reduce_tile(tile: u32, lid: u32) -> u32 {
    let first = tile * TILE + lid * PER_INVOCATION;
    var total = 0u;
    for (var k = 0u; k < PER_INVOCATION; k++) {
        total += input[first + k];
    }
    sums[lid] = total;
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half /= 2u) {
        if lid < half {
            sums[lid] += sums[lid + half];
        }
        workgroupBarrier();
    }
    return workgroupUniformLoad(&sums[0]);
}

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

    var exclusive = 0u;
    if tile == 0u {
        if lid == 0u {
            atomicMax(&status[0], INCLUSIVE | aggregate);
        }
    } else {
        if lid == 0u {
            atomicMax(&status[tile], AGGREGATE | aggregate);
        }
        var predecessor = tile - 1u;
        var tried = 0u;
        loop {
            if lid == 0u {
                seen = atomicLoad(&status[predecessor]);
            }
            let word = workgroupUniformLoad(&seen);
            if (word & STATE) == NOT_READY {
                tried += 1u;
                if tried < tries {
                    continue;
                }
                // The predecessor's workgroup may never run: do its work.
                let sum = reduce_tile(predecessor, lid);
                exclusive += sum;
                if predecessor == 0u {
                    if lid == 0u {
                        atomicMax(&status[0], INCLUSIVE | sum);
                    }
                    break;
                }
                if lid == 0u {
                    atomicMax(&status[predecessor], AGGREGATE | sum);
                }
            } else {
                exclusive += word & SUM;
                if (word & STATE) == INCLUSIVE {
                    break;
                }
            }
            tried = 0u;
            predecessor -= 1u;
        }
        if lid == 0u {
            atomicMax(&status[tile], INCLUSIVE | (exclusive + aggregate));
        }
    }

    for (var k = 0u; k < PER_INVOCATION; k++) {
        output[first + k] = exclusive + before_me + own[k];
    }
}
