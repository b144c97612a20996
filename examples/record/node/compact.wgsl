// Stream compaction in two passes. `select` appends the index of every value below the
// threshold to `picked`, taking slots with an atomic counter (so their order depends on
// which invocation got there first); `args` turns the count into an indirect dispatch's
// workgroup counts; `square` squares every picked value into `squares` at the value's own
// index, so that what the host reads back does not depend on that order.

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> picked: array<u32>;
@group(0) @binding(3) var<storage, read_write> dispatch: array<u32, 3>;
@group(0) @binding(4) var<storage, read_write> squares: array<u32>;

const THRESHOLD: u32 = 100u;

@compute @workgroup_size(64)
fn select(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&values) && values[id.x] < THRESHOLD {
        picked[atomicAdd(&count, 1u)] = id.x;
    }
}

@compute @workgroup_size(1)
fn args() {
    dispatch[0] = (atomicLoad(&count) + 63u) / 64u;
    dispatch[1] = 1u;
    dispatch[2] = 1u;
}

@compute @workgroup_size(64)
fn square(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < atomicLoad(&count) {
        let index = picked[id.x];
        let v = values[index];
        squares[index] = v * v;
    }
}
