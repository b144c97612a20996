// Counts the odd values. `count` is atomic: each
// atomicAdd is one indivisible read-modify-write, so
// no update is lost (the fix `wgstress fences
// counter.toml` finds for counter.wgsl).
@group(0) @binding(0)
var<storage, read> values: array<u32>;
@group(0) @binding(1)
var<storage, read_write> count: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    if values[id.x] % 2u == 1u {
        atomicAdd(&count, 1u);
    }
}
