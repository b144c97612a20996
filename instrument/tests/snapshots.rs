//! Snapshot tests of each transformation: the rewritten WGSL, library definitions left out.

mod common;
use common::{instrument, instrument_with, user_part};
use wgstress_instrument::InstrumentOptions;

const ONE_DIMENSIONAL: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = id.x * 2u; }";

const THREE_DIMENSIONAL: &str = "struct Ids { @builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32 }
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(4, 2, 2)
         fn grid(ids: Ids, @builtin(num_workgroups) n: vec3<u32>, @builtin(global_invocation_id) g: vec3<u32>) {
             let flat = ids.group.x + n.x * (ids.group.y + n.y * ids.group.z);
             out[flat * 16u + ids.index] = g.x + g.y * 100u + g.z * 10000u;
         }";

const ASSERTIONS: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         fn wgstress_assert(cond: bool) {}
         fn check(i: u32) { wgstress_assert(out[i] == i); }
         @compute @workgroup_size(8)
         fn main(@builtin(local_invocation_index) i: u32) {
             out[i] = i;
             check(i);
             if i == 3u { wgstress_assert(out[0] == 0u); }
         }";

const LOOPS: &str = "@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
         @compute @workgroup_size(1)
         fn main() {
             for (var i = 0u; i < 4u; i++) {
                 while atomicLoad(&flag) == 1u {}
             }
             loop { if atomicLoad(&flag) == 0u { break; } }
         }";

const POSTCONDITION: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         fn wgstress_assert(cond: bool) {}
         @compute @workgroup_size(64)
         fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = 1u; }
         // wgstress: postcondition check
         @compute @workgroup_size(1)
         fn check() { wgstress_assert(out[0] == 1u); }";

#[test]
fn one_dimensional_entry_is_wrapped() {
    let out = instrument(ONE_DIMENSIONAL);
    insta::assert_snapshot!(user_part(&out.wgsl));
}

#[test]
fn three_dimensional_entry_with_builtin_struct() {
    let out = instrument(THREE_DIMENSIONAL);
    insta::assert_snapshot!(user_part(&out.wgsl));
}

#[test]
fn assertion_calls_become_recorded_hooks() {
    let out = instrument(ASSERTIONS);
    insta::assert_snapshot!(user_part(&out.wgsl));
    let lines: Vec<_> = out
        .manifest
        .hooks
        .iter()
        .map(|h| (h.function.as_str(), h.line))
        .collect();
    assert_eq!(lines, [("check", Some(3)), ("main", Some(8))]);
}

#[test]
fn every_loop_gets_a_watchdog() {
    let out = instrument(LOOPS);
    insta::assert_snapshot!(user_part(&out.wgsl));
    let lines: Vec<_> = out
        .manifest
        .loops
        .iter()
        .map(|l| (l.line, l.column))
        .collect();
    assert_eq!(
        lines,
        [
            (Some(5), Some(18)),
            (Some(4), Some(14)),
            (Some(7), Some(14))
        ]
    );
}

#[test]
fn postcondition_entry_is_marked_from_a_directive() {
    let out = instrument(POSTCONDITION);
    insta::assert_snapshot!(user_part(&out.wgsl));
    assert_eq!(
        out.manifest.postcondition.as_ref().map(|p| p.name.as_str()),
        Some("check")
    );
}

#[test]
fn flag_overrides_directive_and_picks_entry() {
    let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1) fn a() { out[0] = 1u; }
         @compute @workgroup_size(1) fn b() { out[1] = 1u; }
         @compute @workgroup_size(1) fn c() { out[2] = 1u; }
         // wgstress: postcondition c";
    let out = instrument_with(
        source,
        InstrumentOptions {
            entry: Some("a".into()),
            postcondition: Some("b".into()),
            ..Default::default()
        },
    );
    assert_eq!(out.manifest.entry_point.name, "a");
    assert_eq!(out.manifest.postcondition.unwrap().name, "b");
}

#[test]
fn bind_group_is_the_first_free_one() {
    let out = instrument(
        "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
         @group(2) @binding(0) var<storage, read_write> b: array<u32>;
         @compute @workgroup_size(1) fn main() { a[0] = b[0]; }",
    );
    assert_eq!(out.manifest.bind_group, 1);
}

#[test]
fn manifest_layout_matches_library() {
    let out = instrument("@compute @workgroup_size(1) fn main() {}");
    let m = &out.manifest;
    assert_eq!(m.params.offset("app_groups"), Some(0));
    assert_eq!(m.params.offset("app_total"), Some(12));
    assert_eq!(m.params.offset("patches"), Some(144));
    assert_eq!(m.params.size, 656);
    assert_eq!(m.event.size, 32);
    assert_eq!(m.results.offset("stress_groups_ran"), Some(160));
    assert_eq!(m.results.offset("sink"), Some(164));
    assert_eq!(m.results.offset("max_trips"), Some(168));
    // The scheduler's block (docs/progress.md) follows, its wait sites 8-aligned at the end.
    assert_eq!(m.results.offset("stop"), Some(216));
    assert_eq!(m.results.offset("waits"), Some(240));
    // Then where the victim was held and what it passed (the hold points' coverage).
    assert_eq!(m.results.offset("victim_holds"), Some(320));
    assert_eq!(m.results.offset("reached"), Some(324));
    assert_eq!(m.results.size, 360);
    let json = serde_json::to_string(m).unwrap();
    assert_eq!(
        &serde_json::from_str::<wgstress_instrument::Manifest>(&json).unwrap(),
        m
    );
}

#[test]
fn diff_shows_the_rewrite() {
    let out = instrument("@group(0) @binding(0) var<storage, read_write> o: array<u32>;
        @compute @workgroup_size(2) fn main(@builtin(global_invocation_id) id: vec3<u32>) { o[id.x] = 1u; }");
    let diff = out.diff();
    assert!(
        diff.starts_with("--- original\n+++ instrumented\n"),
        "{diff}"
    );
    assert!(
        diff.contains("-fn main(@builtin(global_invocation_id) id: vec3<u32>) {"),
        "{diff}"
    );
    assert!(
        diff.contains("+fn wgstress_app_main(id: vec3<u32>) {"),
        "{diff}"
    );
}

/// A barrier in a uniform loop, an assertion in it and a postcondition: the watchdog's
/// `break` and the hooks must leave the loop uniform for Tint as well as for naga.
const UNIFORM_LOOP_WITH_BARRIER: &str =
    "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         var<workgroup> tile: array<u32, 64>;
         fn wgstress_assert(cond: bool) {}
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3<u32>) {
             for (var k = 0u; k < 4u; k++) {
                 tile[i] = k;
                 workgroupBarrier();
                 wgstress_assert(tile[63u - i] == k);
                 storageBarrier();
             }
             loop {
                 let v = workgroupUniformLoad(&tile[0]);
                 if v == 3u { break; }
             }
             out[g.x * 64u + i] = tile[i];
         }
         // wgstress: postcondition check
         @compute @workgroup_size(1)
         fn check() { wgstress_assert(out[0] == 3u); }";

#[test]
fn tint_accepts_every_instrumented_snapshot_input() {
    let shaders: Vec<wgstress_tint::NamedWgsl> = [
        ("one_dimensional", ONE_DIMENSIONAL),
        ("three_dimensional", THREE_DIMENSIONAL),
        ("assertions", ASSERTIONS),
        ("loops", LOOPS),
        ("postcondition", POSTCONDITION),
        ("uniform_loop_with_barrier", UNIFORM_LOOP_WITH_BARRIER),
    ]
    .into_iter()
    .map(|(name, source)| wgstress_tint::NamedWgsl::new(name, instrument(source).wgsl))
    .collect();
    wgstress_tint::assert_valid(&shaders);
}
