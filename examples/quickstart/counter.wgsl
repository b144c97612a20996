// Counts the odd values. `count` is a plain u32: an
// invocation loads it, adds one and stores it back,
// and every invocation that loaded the same count
// stores the same sum, so updates are lost.
@group(0) @binding(0)
var<storage, read> values: array<u32>;
@group(0) @binding(1)
var<storage, read_write> count: u32;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    if values[id.x] % 2u == 1u {
        count = count + 1u;
    }
}
