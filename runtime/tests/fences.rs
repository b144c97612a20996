//! A correct application with a storage barrier at every candidate fence site (its
//! non-uniform branches split around them) computes what the original computes, on a real
//! device.

mod common;
use common::*;
use wgstress_instrument::placement::fences;
use wgstress_runtime::app::init::Init;

/// Non-uniform branches with values crossing the splits, a uniform loop, a non-uniform loop,
/// a callee called in uniform control flow.
const SOURCE: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> input: array<u32>;
fn bump(i: u32) {
    let before = out[4u * i + 3u];
    out[4u * i + 3u] = before * 3u + input[i];
}
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = gid.x;
    if lid % 3u == 0u {
        let x = input[i] * 7u;
        out[4u * i] = x;
        let y = x + input[(i + 1u) % 256u];
        out[4u * i + 1u] = y;
        out[4u * i + 2u] = x ^ y;
    }
    for (var k = 0u; k < 3u + wid.x % 2u; k++) {
        out[4u * i + 3u] += input[(i + k) % 256u];
    }
    bump(i);
    var n = 0u;
    while n < lid % 4u {
        out[4u * i + 3u] += 1u;
        n++;
    }
}";

#[test]
fn every_site_fenced_computes_what_the_original_computes() {
    let found = fences(SOURCE, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        found.all_fenced_wgsl.matches("if _e").count() >= 3,
        "the first branch is split:\n{}",
        found.all_fenced_wgsl
    );
    assert!(found.sites.len() >= 8, "{:?}", found.sites);
    assert!(
        found.sites.iter().any(|s| s.function == "bump"),
        "{:?}",
        found.sites
    );
    let bindings = vec![
        Binding::storage(0, 1024, Init::Zeros),
        Binding::storage(
            1,
            256,
            Init::Random {
                seed: 5,
                below: Some(1000),
            },
        ),
    ];
    let original = run_original(SOURCE, [8, 1, 1], &bindings);
    let fenced = run_original(&found.all_fenced_wgsl, [8, 1, 1], &bindings);
    assert_eq!(fenced, original);
    assert!(original[0].iter().any(|w| *w != 0), "the kernel wrote");
}
