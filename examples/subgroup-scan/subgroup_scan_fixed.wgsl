// subgroup_scan.wgsl, fixed: the leader waits for its predecessor's flag, then the workgroup
// meets at a storageBarrier() before the leader reads the predecessor's prefix; the leader
// writes its own prefix, and the workgroup meets at a storageBarrier() again before the
// leader raises its flag. The barriers stand where the whole workgroup reaches them, as WGSL
// wants; the leader's atomics order the prefixes between workgroups.

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
    if lid == 0u && tile > 0u {
        while atomicLoad(&ready[tile - 1u]) == 0u {
        }
    }
    storageBarrier();
    if lid == 0u {
        var sum = 0u;
        for (var s = 0u; s < TILE / width; s++) {
            let total = totals[s];
            totals[s] = sum;
            sum += total;
        }
        var before = 0u;
        if tile > 0u {
            before = prefix[tile - 1u];
        }
        prefix[tile] = before + sum;
        carry = before;
    }
    storageBarrier();
    if lid == 0u {
        atomicStore(&ready[tile], 1u);
    }
    workgroupBarrier();
    output[tile * TILE + lid] = carry + totals[subgroup] + within;
}
