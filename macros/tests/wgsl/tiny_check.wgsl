@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn wgstress_assert(cond: bool) {}
@compute @workgroup_size(1)
fn check() { wgstress_assert(out[0] == 1u); }
