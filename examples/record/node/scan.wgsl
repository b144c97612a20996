// An inclusive prefix sum in one pass, by decoupled look-back: each workgroup scans a tile of
// 1,024 words (256 invocations, 4 words each), takes its place in line from an atomic ticket
// (so that it waits only on tiles that started before it), publishes its tile's total, looks
// back over its predecessors until one has published an inclusive prefix, and publishes its
// own. A tile's state is one atomic word: the flag in its top two bits (1: the tile's total,
// 2: the inclusive prefix), the sum in the other 30.

const TILE: u32 = 1024u;
const AGGREGATE: u32 = 1u;
const PREFIX: u32 = 2u;
const SUM: u32 = 0x3fffffffu;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> ticket: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> states: array<atomic<u32>>;

var<workgroup> tile: u32;
var<workgroup> partial: array<u32, 256>;
var<workgroup> before_tile: u32;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        tile = atomicAdd(&ticket, 1u);
    }
    let t = workgroupUniformLoad(&tile);
    let base = t * TILE + lid * 4u;
    var own: array<u32, 4>;
    var sum = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        sum = sum + input[base + k];
        own[k] = sum;
    }
    partial[lid] = sum;
    for (var step = 1u; step < 256u; step = step * 2u) {
        workgroupBarrier();
        var other = 0u;
        if lid >= step {
            other = partial[lid - step];
        }
        workgroupBarrier();
        partial[lid] = partial[lid] + other;
    }
    workgroupBarrier();
    if lid == 0u {
        let total = partial[255];
        var prefix = 0u;
        if t == 0u {
            atomicStore(&states[0], (PREFIX << 30u) | total);
        } else {
            atomicStore(&states[t], (AGGREGATE << 30u) | total);
            var j = t - 1u;
            loop {
                var state = atomicLoad(&states[j]);
                while (state >> 30u) == 0u {
                    state = atomicLoad(&states[j]);
                }
                prefix = prefix + (state & SUM);
                if (state >> 30u) == PREFIX {
                    break;
                }
                j = j - 1u;
            }
            atomicStore(&states[t], (PREFIX << 30u) | (prefix + total));
        }
        before_tile = prefix;
    }
    var before = workgroupUniformLoad(&before_tile);
    if lid > 0u {
        before = before + partial[lid - 1u];
    }
    for (var k = 0u; k < 4u; k = k + 1u) {
        output[base + k] = before + own[k];
    }
}
