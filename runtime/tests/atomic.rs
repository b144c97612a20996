//! Make-atomic keeps a correct application's outputs byte-identical: each candidate of a
//! race-free kernel, rewritten one at a time, run plainly through wgpu on lavapipe.

mod common;
use common::*;
use wgstress_instrument::atomic::{candidates_wgsl, make_atomic_wgsl};
use wgstress_runtime::app::init::Init;

// A scalar, a fixed and two runtime arrays, a struct of a scalar and an array; compound assignments, an increment, a pointer
// `let`, arrayLength. Every invocation writes its own cells, so the outputs are determined.
const KERNEL: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> last: i32;
@group(0) @binding(3) var<storage, read_write> table: array<u32, 16>;
struct Counts { hits: u32, cells: array<i32, 4> }
@group(0) @binding(4) var<storage, read_write> counts: Counts;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    out[i] = input[i] * 3u + arrayLength(&out);
    out[i] += i;
    out[i]++;
    let p = &input[i];
    *p = *p ^ 0x5au;
    if i == 0u {
        last = last * 2 - 7;
    }
    if i < 16u {
        table[i] = table[i] * 2u + 1u;
    }
    if i < 4u {
        counts.cells[i] -= i32(i) * 3;
    }
    if i == 1u {
        counts.hits += 5u;
    }
}";

#[test]
fn every_candidate_made_atomic_gives_byte_identical_outputs() {
    let bindings = vec![
        Binding::storage(0, 256, Init::Zeros),
        Binding::storage(1, 256, Init::Iota { start: 5 }),
        Binding::storage(2, 1, Init::Constant { value: 11 }),
        Binding::storage(3, 16, Init::Iota { start: 100 }),
        Binding::storage(4, 5, Init::Iota { start: 1 }),
    ];
    let original = run_original(KERNEL, [8, 1, 1], &bindings);
    assert_eq!(original[2], [15], "the kernel ran");
    assert_eq!(original[4], [6, 2, 0, -2i32 as u32, -4i32 as u32]);
    let names: Vec<String> = candidates_wgsl(KERNEL, "kernel.wgsl")
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["out", "input", "last", "table", "counts"]);
    for name in &names {
        let rewritten = make_atomic_wgsl(KERNEL, "kernel.wgsl", name).unwrap();
        assert!(rewritten.contains("atomicStore("), "{name}: {rewritten}");
        let outputs = run_original(&rewritten, [8, 1, 1], &bindings);
        assert!(outputs == original, "{name}: outputs differ");
    }
}
