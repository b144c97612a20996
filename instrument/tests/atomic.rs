//! Make-atomic on small shaders: what it rewrites (validated by naga inside `make_atomic` and
//! by Tint here), what it refuses and where, and which variables it offers.

use wgstress_instrument::atomic::{
    candidates_wgsl, make_atomic_rmw_wgsl, make_atomic_wgsl, AtomicError,
};
use wgstress_tint::{assert_valid, NamedWgsl as Shader};

const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: i32;
@group(0) @binding(2) var<storage, read_write> fixed: array<u32, 64>;
@group(0) @binding(3) var<storage, read> input: array<u32>;
@group(0) @binding(4) var<storage, read_write> done: atomic<u32>;
@group(0) @binding(5) var<storage, read_write> unused: u32;
struct Pair { a: u32, b: u32 }
@group(0) @binding(6) var<storage, read_write> pair: Pair;
@group(0) @binding(7) var<storage, read_write> real: f32;
struct Mixed { a: u32, x: f32 }
@group(0) @binding(8) var<storage, read_write> mixed: Mixed;
struct Queue { head: i32, slots: array<array<u32, 2>> }
@group(0) @binding(9) var<storage, read_write> queue: Queue;
";

fn shader(body: &str) -> String {
    format!(
        "{HEADER}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
{body}
}}
"
    )
}

/// Rewrites `name` in `body`'s shader; Tint must accept the result too.
fn rewritten(body: &str, name: &str) -> String {
    let wgsl = make_atomic_wgsl(&shader(body), "t.wgsl", name).unwrap_or_else(|e| panic!("{e}"));
    assert_valid(&[Shader::new(format!("make-atomic {name}"), wgsl.clone())]);
    wgsl
}

fn refused(body: &str, name: &str) -> AtomicError {
    match make_atomic_wgsl(&shader(body), "t.wgsl", name) {
        Ok(wgsl) => panic!("rewrote {name}:\n{wgsl}"),
        Err(e) => e,
    }
}

#[test]
fn a_scalar_loads_and_stores_atomically() {
    let wgsl = rewritten("    if flag == 0 { flag = i32(i); }", "flag");
    assert!(
        wgsl.contains("var<storage, read_write> flag: atomic<i32>;"),
        "{wgsl}"
    );
    assert!(wgsl.contains("atomicLoad((&flag))"), "{wgsl}");
    assert!(wgsl.contains("atomicStore((&flag), i32(i))"), "{wgsl}");
}

#[test]
fn a_fixed_array_keeps_its_size() {
    let wgsl = rewritten("    fixed[i % 64u] = fixed[(i + 1u) % 64u];", "fixed");
    assert!(wgsl.contains("fixed: array<atomic<u32>, 64>;"), "{wgsl}");
    assert!(
        wgsl.contains("atomicLoad((&fixed[((i + 1u) % 64u)]))"),
        "{wgsl}"
    );
    assert!(
        wgsl.contains("atomicStore((&fixed[(i % 64u)]), _e12)"),
        "{wgsl}"
    );
}

#[test]
fn a_runtime_array_keeps_its_length() {
    let wgsl = rewritten("    if i < arrayLength(&v) { v[i] = input[i]; }", "v");
    assert!(wgsl.contains("v: array<atomic<u32>>;"), "{wgsl}");
    assert!(wgsl.contains("arrayLength((&v))"), "{wgsl}");
    assert!(wgsl.contains("atomicStore((&v[i]), _e9)"), "{wgsl}");
}

#[test]
fn a_compound_assignment_is_a_load_and_a_store_not_an_rmw() {
    let wgsl = rewritten("    v[i] += 3u;\n    v[i]++;", "v");
    assert!(
        wgsl.contains("let _e4 = atomicLoad((&v[i]));\n    atomicStore((&v[i]), (_e4 + 3u));"),
        "{wgsl}"
    );
    assert!(
        wgsl.contains("let _e10 = atomicLoad((&v[i]));\n    atomicStore((&v[i]), (_e10 + 1u));"),
        "{wgsl}"
    );
    assert!(!wgsl.contains("atomicAdd"), "{wgsl}");
}

#[test]
fn a_pointer_let_in_the_same_function_is_rewritten_through() {
    let wgsl = rewritten("    let p = &v[i];\n    *p = *p + 1u;", "v");
    assert!(wgsl.contains("atomicStore("), "{wgsl}");
    assert!(wgsl.contains("atomicLoad("), "{wgsl}");
}

#[test]
fn other_variables_are_left_alone() {
    let wgsl = rewritten("    v[i] = fixed[0] + input[i];\n    flag = 1;", "v");
    assert!(wgsl.contains("fixed: array<u32, 64>;"), "{wgsl}");
    assert!(wgsl.contains("flag = 1i;"), "{wgsl}");
}

#[test]
fn a_refusal_points_at_the_use() {
    let body = "    v[i] = 1u;\n    let copy = fixed;\n    v[i] = copy[1];";
    let source = shader(body);
    let e = make_atomic_wgsl(&source, "t.wgsl", "fixed").unwrap_err();
    let text = e.to_string();
    let line = source.lines().position(|l| l.contains("let copy")).unwrap() as u32 + 1;
    assert_eq!(e.location().map(|(l, _)| l), Some(line), "{text}");
    assert!(text.starts_with(&format!("t.wgsl:{line}:")), "{text}");
}

#[test]
fn a_whole_array_load_is_refused() {
    let e = refused("    let copy = fixed;\n    v[i] = copy[0];", "fixed");
    assert!(matches!(e, AtomicError::UnsupportedUse { .. }), "{e}");
    assert!(e.to_string().contains("whole array or struct"), "{e}");
}

#[test]
fn a_whole_array_store_is_refused() {
    let e = refused("    fixed = array<u32, 64>();", "fixed");
    assert!(e.to_string().contains("stored at once"), "{e}");
}

#[test]
fn unsupported_types_are_refused_at_the_declaration() {
    let body = "    mixed.a = 1u;\n    real = 1.0;\n    atomicStore(&done, 1u);";
    for (name, why) in [
        ("mixed", "other than u32"),
        ("real", "other than u32"),
        ("done", "atomic already"),
    ] {
        let e = refused(body, name);
        assert!(matches!(e, AtomicError::UnsupportedType { .. }), "{e}");
        assert!(e.to_string().contains(why), "{e}");
        let line = HEADER
            .lines()
            .position(|l| l.contains(&format!(" {name}:")))
            .unwrap();
        assert_eq!(e.location().map(|(l, _)| l), Some(line as u32 + 1), "{e}");
    }
}

#[test]
fn read_only_storage_and_unknown_names_are_refused() {
    let e = refused("    v[i] = input[i];", "input");
    assert!(matches!(e, AtomicError::NotReadWriteStorage { .. }), "{e}");
    let e = refused("    v[i] = input[i];", "nope");
    assert!(matches!(e, AtomicError::UnknownVariable(_)), "{e}");
}

#[test]
fn candidates_are_the_accessed_plain_read_write_integers() {
    let source = shader(
        "    v[i] = input[i] + u32(flag) + fixed[0];\n    pair.a = 1u;\n    real = 1.0;\n    mixed.a = 1u;\n    atomicStore(&done, 1u);",
    );
    let found = candidates_wgsl(&source, "t.wgsl").unwrap();
    let names: Vec<_> = found.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["v", "flag", "fixed", "pair"]);
    let at: Vec<_> = found.iter().map(|c| c.at.to_string()).collect();
    assert_eq!(
        at,
        ["t.wgsl:1:23", "t.wgsl:2:23", "t.wgsl:3:23", "t.wgsl:8:23"]
    );
}

#[test]
fn uses_in_helper_functions_are_rewritten_too() {
    let source = format!(
        "fn bump(i: u32) {{ v[i] = v[i] * 2u; }}\n{}",
        shader("    bump(i);\n    v[i] += 1u;")
    );
    let wgsl = make_atomic_wgsl(&source, "t.wgsl", "v").unwrap();
    assert_valid(&[Shader::new("make-atomic in a helper", wgsl.clone())]);
    let helper = &wgsl[wgsl.find("fn bump").unwrap()..wgsl.find("fn main").unwrap()];
    assert!(helper.contains("atomicStore((&v[i])"), "{wgsl}");
    assert!(helper.contains("atomicLoad((&v[i]))"), "{wgsl}");
}

#[test]
fn a_struct_gets_an_atomic_twin_and_member_accesses_go_through_it() {
    // `other` keeps the plain struct: the rewrite adds a type rather than changing Pair.
    let source = format!(
        "@group(1) @binding(0) var<storage, read_write> other: Pair;\n{}",
        shader("    pair.a = pair.b + 1u;\n    other.a = 2u;")
    );
    let wgsl = make_atomic_wgsl(&source, "t.wgsl", "pair").unwrap();
    assert_valid(&[Shader::new("make-atomic struct", wgsl.clone())]);
    assert!(wgsl.contains("a: atomic<u32>,"), "{wgsl}");
    assert!(wgsl.contains("a: u32,"), "{wgsl}");
    assert!(wgsl.contains("atomicLoad((&pair.b))"), "{wgsl}");
    assert!(wgsl.contains("atomicStore((&pair.a), "), "{wgsl}");
    assert!(wgsl.contains("other.a = 2u;"), "{wgsl}");
}

#[test]
fn a_struct_with_a_runtime_array_of_arrays_is_rewritten_through() {
    let wgsl = rewritten(
        "    if i < arrayLength(&queue.slots) {\n        queue.slots[i][1] += u32(queue.head);\n    }",
        "queue",
    );
    assert!(wgsl.contains("head: atomic<i32>,"), "{wgsl}");
    assert!(
        wgsl.contains("slots: array<array<atomic<u32>, 2>>,"),
        "{wgsl}"
    );
    assert!(
        wgsl.contains("atomicStore((&queue.slots[i][1]), "),
        "{wgsl}"
    );
    assert!(!wgsl.contains("atomicAdd"), "{wgsl}");
}

#[test]
fn a_whole_struct_load_is_refused() {
    let e = refused("    let copy = pair;\n    v[i] = copy.a;", "pair");
    assert!(e.to_string().contains("whole array or struct"), "{e}");
}

/// `make_atomic_rmw_wgsl` of `body`'s shader; Tint must accept the result too.
fn fused(body: &str, name: &str) -> String {
    let wgsl =
        make_atomic_rmw_wgsl(&shader(body), "t.wgsl", name).unwrap_or_else(|e| panic!("{e}"));
    assert_valid(&[Shader::new(
        format!("make-atomic {name}, fused"),
        wgsl.clone(),
    )]);
    wgsl
}

#[test]
fn read_modify_writes_become_one_atomic_operation() {
    let wgsl = fused(
        "    v[i] += 3u;\n    let s = v[0];\n    v[0] = s - 2u;\n    v[1] = 5u | v[1];\n    flag ^= 1;",
        "v",
    );
    assert!(wgsl.contains("atomicAdd((&v[i]), 3u);"), "{wgsl}");
    assert!(wgsl.contains("atomicSub((&v[0]), 2u);"), "{wgsl}");
    assert!(wgsl.contains("atomicOr((&v[1]), 5u);"), "{wgsl}");
    assert!(!wgsl.contains("atomicLoad"), "{wgsl}");
    assert!(!wgsl.contains("atomicStore"), "{wgsl}");
    // Another variable keeps its plain read-modify-write.
    assert!(wgsl.contains("flag = (_e"), "{wgsl}");
}

#[test]
fn a_load_used_twice_or_with_an_access_between_is_not_fused() {
    let twice = fused(
        "    let s = v[i];\n    fixed[i] = s;\n    v[i] = s + 1u;",
        "v",
    );
    assert!(twice.contains("atomicLoad((&v[i]))"), "{twice}");
    assert!(twice.contains("atomicStore((&v[i])"), "{twice}");
    assert!(!twice.contains("atomicAdd"), "{twice}");
    let between = fused(
        "    let s = v[i];\n    fixed[0] = 1u;\n    v[i] = s + 1u;",
        "v",
    );
    assert!(!between.contains("atomicAdd"), "{between}");
    let reversed = fused("    v[i] = 7u - v[i];", "v");
    assert!(!reversed.contains("atomicSub"), "{reversed}");
    let other_place = fused("    v[i] = v[0] + 1u;", "v");
    assert!(!other_place.contains("atomicAdd"), "{other_place}");
}

#[test]
fn a_struct_members_read_modify_write_is_fused_through_its_access_chain() {
    let wgsl = fused("    pair.a += 1u;\n    pair.b = pair.b & 6u;", "pair");
    assert!(wgsl.contains("atomicAdd((&pair.a), 1u);"), "{wgsl}");
    assert!(wgsl.contains("atomicAnd((&pair.b), 6u);"), "{wgsl}");
}
