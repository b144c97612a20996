use super::difference;

const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
";

fn module(body: &str) -> naga::Module {
    let source = format!("{HEADER}{body}}}\n");
    naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

fn same(a: &str, b: &str) -> bool {
    difference(&module(a), &module(b)).is_none()
}

#[test]
fn names_and_pure_evaluations_do_not_count() {
    assert!(same(
        "let x = buf[0]; storageBarrier(); buf[lid] = x + 1u;",
        "let y = buf[0]; storageBarrier(); let z = y + 1u; buf[lid] = z;"
    ));
    // A store into a local, and a barrier, on either side.
    assert!(same(
        "var k = lid; storageBarrier(); buf[k] = 1u;",
        "storageBarrier(); var k = lid; buf[k] = 1u;"
    ));
}

#[test]
fn a_barrier_moved_across_a_storage_access_counts() {
    let moved = difference(
        &module("let x = buf[0]; storageBarrier(); buf[1] = x;"),
        &module("storageBarrier(); let x = buf[0]; buf[1] = x;"),
    );
    assert!(moved.is_some_and(|d| d.contains("barrier")));
    assert!(!same(
        "buf[0] = 1u; buf[1] = 2u;",
        "buf[0] = 1u; storageBarrier(); buf[1] = 2u;"
    ));
    assert!(!same("buf[0] = 1u;", "buf[0] = 2u;"));
}

#[test]
fn a_branch_split_in_two_is_the_branch_and_a_carried_value_is_its_value() {
    assert!(same(
        "if lid == 0u { let x = buf[0]; buf[1] = x; buf[2] = x; }",
        "var x: u32; if lid == 0u { x = buf[0]; buf[1] = x; } if lid == 0u { buf[2] = x; }"
    ));
    // With a barrier between the parts, it is not the unsplit branch.
    assert!(!same(
        "if lid == 0u { buf[1] = 1u; buf[2] = 2u; }",
        "if lid == 0u { buf[1] = 1u; } storageBarrier(); if lid == 0u { buf[2] = 2u; }"
    ));
}

#[test]
fn a_barrier_moved_across_a_read_only_load_does_not_count() {
    let header = "@group(0) @binding(1) var<storage, read> input: array<u32>;\n";
    let module = |body: &str| {
        let source = format!("{header}{HEADER}{body}}}\n");
        naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{e}\n{source}"))
    };
    // A read-only buffer is the same for the whole dispatch: no barrier orders its loads.
    let ir = module("let x = input[lid]; storageBarrier(); buf[lid] = x;");
    let text = module("storageBarrier(); buf[lid] = input[lid];");
    assert_eq!(difference(&ir, &text), None);
    let across_storage = module("let x = buf[lid + 1u]; storageBarrier(); buf[lid] = x;");
    let moved = module("storageBarrier(); buf[lid] = buf[lid + 1u];");
    assert!(difference(&across_storage, &moved).is_some());
}
