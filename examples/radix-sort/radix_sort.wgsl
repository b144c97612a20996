// An LSD radix sort of 4096 32-bit keys, 8 bits a pass, in the pattern of one-sweep sorts:
// one dispatch counts the digits of all four passes at once, one turns the counts into where
// each digit's keys start, then one dispatch per pass moves every key from one buffer to the
// other by its digit (ping-pong). All passes are the same entry point of this one file: the
// spec gives each its pass number and, on every other pass, binds the two key buffers at each
// other's slots.
//
// Within a pass the tiles carry their digit counts along, each from the one before (a
// chained scan per digit): invocation d waits for the previous tile's flag for digit d, reads
// its running count, and publishes its own count, then its flag. Counts are plain storage and
// flags atomics, and nothing orders one after the other: on a GPU with a weak memory model a
// tile can see a flag before its count, add a stale count, and put keys where others go.
// radix_sort_fixed.wgsl is the fix.

const RADIX: u32 = 256u;
const TILE: u32 = 256u;
const PASSES: u32 = 4u;

// Pass p moves the keys of `keys_in` to `keys_out` by their digit p. The spec binds the two
// key buffers at each other's slots on every other pass, so the sorted keys end where they
// started.
@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> keys_out: array<u32>;
// How many keys have each digit, per pass; then where each digit's keys start, per pass.
@group(0) @binding(2) var<storage, read_write> histogram: array<atomic<u32>, 1024>;
@group(0) @binding(3) var<storage, read_write> starts: array<u32, 1024>;
// Per pass, the next tile a starting workgroup takes.
@group(0) @binding(4) var<storage, read_write> next_tile: array<atomic<u32>, 4>;
// Per pass, tile and digit: how many keys with the digit the tiles up to this one hold, and
// whether that count is there yet.
@group(0) @binding(5) var<storage, read_write> running: array<u32>;
@group(0) @binding(6) var<storage, read_write> published: array<atomic<u32>>;
// The pass a scatter dispatch makes (its own uniform contents, from the spec).
@group(0) @binding(7) var<uniform> pass_index: vec4<u32>;

var<workgroup> tile_of_group: u32;
var<workgroup> digits: array<u32, 256>;
var<workgroup> counts: array<atomic<u32>, 256>;
var<workgroup> earlier: array<u32, 256>;

fn digit(key: u32, pass_: u32) -> u32 {
    return (key >> (8u * pass_)) & (RADIX - 1u);
}

// Counts every pass's digits of every key at once.
@compute @workgroup_size(256)
fn count(@builtin(global_invocation_id) id: vec3<u32>) {
    let key = keys_in[id.x];
    for (var p = 0u; p < PASSES; p++) {
        atomicAdd(&histogram[p * RADIX + digit(key, p)], 1u);
    }
}

// Where each digit's keys start, per pass: the exclusive scan of the digit counts.
@compute @workgroup_size(4)
fn place(@builtin(local_invocation_index) p: u32) {
    var sum = 0u;
    for (var d = 0u; d < RADIX; d++) {
        starts[p * RADIX + d] = sum;
        sum += atomicLoad(&histogram[p * RADIX + d]);
    }
}

// One pass: the workgroup takes the next tile of 256 keys, ranks each key among the tile's
// keys of the same digit (stably: by position), learns from the tiles before it how many
// keys of each digit come first, and moves its keys there.
@compute @workgroup_size(256)
fn scatter(@builtin(local_invocation_index) lid: u32) {
    let p = pass_index.x;
    if lid == 0u {
        tile_of_group = atomicAdd(&next_tile[p], 1u);
    }
    atomicStore(&counts[lid], 0u);
    let tile = workgroupUniformLoad(&tile_of_group);
    let tiles = arrayLength(&keys_in) / TILE;
    let key = keys_in[tile * TILE + lid];
    let d = digit(key, p);
    digits[lid] = d;
    atomicAdd(&counts[d], 1u);
    workgroupBarrier();
    var rank = 0u;
    for (var j = 0u; j < lid; j++) {
        if digits[j] == d {
            rank++;
        }
    }
    // Invocation `lid` carries digit `lid` from the tile before to this one.
    let slot = (p * tiles + tile) * RADIX + lid;
    var before = 0u;
    if tile > 0u {
        while atomicLoad(&published[slot - RADIX]) == 0u {
        }
        before = running[slot - RADIX];
    }
    running[slot] = before + atomicLoad(&counts[lid]);
    atomicStore(&published[slot], 1u);
    earlier[lid] = before;
    workgroupBarrier();
    keys_out[starts[p * RADIX + d] + earlier[d] + rank] = key;
}
