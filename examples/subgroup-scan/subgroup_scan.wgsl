// An inclusive prefix sum over tiles of 256 words, in one pass: each workgroup scans its tile
// with subgroup operations and workgroup memory, then adds the total of every tile before
// it, which it learns from its predecessor (a chained scan). Workgroups take tile numbers
// from a counter in the order they start, so a tile only ever waits for a tile whose
// workgroup is already running.
//
// The leader waits for its predecessor's flag, then reads its inclusive prefix; it writes
// its own prefix, then raises its flag. Prefixes are plain storage words and flags atomics,
// and nothing orders the one after the other: on a GPU with a weak memory model a tile can
// see its predecessor's flag before its prefix, and add a stale one.
// subgroup_scan_fixed.wgsl is the fix.

enable subgroups;

const TILE: u32 = 256u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> prefix: array<u32>;
@group(0) @binding(4) var<storage, read_write> ready: array<atomic<u32>>;

var<workgroup> tile_of_group: u32;
// Each subgroup's total, then the exclusive scan of the totals; room for subgroups of 4 and up.
var<workgroup> totals: array<u32, 64>;
var<workgroup> carry: u32;

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
) {
    if lid == 0u {
        tile_of_group = atomicAdd(&next_tile, 1u);
    }
    let tile = workgroupUniformLoad(&tile_of_group);
    let x = input[tile * TILE + lid];
    let within = subgroupInclusiveAdd(x);
    let subgroup = lid / width;
    if lane == width - 1u {
        totals[subgroup] = within;
    }
    workgroupBarrier();
    if lid == 0u {
        var sum = 0u;
        for (var s = 0u; s < TILE / width; s++) {
            let total = totals[s];
            totals[s] = sum;
            sum += total;
        }
        var before = 0u;
        if tile > 0u {
            while atomicLoad(&ready[tile - 1u]) == 0u {
            }
            before = prefix[tile - 1u];
        }
        prefix[tile] = before + sum;
        atomicStore(&ready[tile], 1u);
        carry = before;
    }
    workgroupBarrier();
    output[tile * TILE + lid] = carry + totals[subgroup] + within;
}
