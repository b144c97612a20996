//! Every outcome class on a real device: correct apps pass, a genuine race fails, and
//! assertions, postconditions and the watchdog report the right source lines.

mod common;
use common::*;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::stress::params::RunParams;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::check::{Check, Rule};
use wgstress_runtime::app::init::Init;
use wgstress_runtime::run::batch_tally::describe;

const ATOMIC_COUNTER: &str = "
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@compute @workgroup_size(64)
fn main() { atomicAdd(&counter, 1u); }";

const RACY_COUNTER: &str = "
@group(0) @binding(0) var<storage, read_write> counter: u32;
@compute @workgroup_size(64)
fn main() {
    let seen = counter;
    counter = seen + 1u;
}";

fn counter_app(source: &str) -> wgstress_runtime::app::spec::App {
    let mut app = App::bare(
        "counter",
        source,
        [32, 1, 1],
        vec![Binding::storage(0, 1, Init::Zeros)],
    );
    app.checks = vec![Check {
        name: None,
        group: 0,
        binding: 0,
        words: None,
        start: None,
        count: None,
        stride: None,
        last: false,
        rule: Rule::AllEqual { value: 32 * 64 },
    }];
    app
}

#[test]
fn correct_application_passes_every_run_under_every_strategy() {
    let mut engine = engine(counter_app(ATOMIC_COUNTER));
    for strategy in Strategy::ALL {
        for shuffle in [false, true] {
            let runs = params(&engine, &settings(strategy, shuffle), 0..32);
            let results = engine.run(&runs).unwrap();
            assert!(
                results.iter().all(|r| r.outcome == RunOutcome::Pass),
                "{strategy}: {results:?}"
            );
        }
    }
}

#[test]
fn non_atomic_counter_race_is_reported_failing() {
    let mut engine = engine(counter_app(RACY_COUNTER));
    let runs = params(&engine, &settings(Strategy::None, false), 0..16);
    let results = engine.run(&runs).unwrap();
    let failing: Vec<_> = results
        .iter()
        .filter(|r| r.outcome == RunOutcome::Postcondition)
        .collect();
    assert!(
        !failing.is_empty(),
        "the lost updates of a non-atomic counter show on every device"
    );
    assert!(
        failing[0]
            .host
            .as_ref()
            .unwrap()
            .to_string()
            .starts_with("all-equal 2048: binding 0:0: 1 of 1 element wrong: [0] = "),
        "{:?}",
        failing[0].host
    );
}

#[test]
fn assertion_failure_carries_source_line_and_ids() {
    let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn wgstress_assert(cond: bool) {}
@compute @workgroup_size(8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    out[w.x * 8u + i] = i;
    wgstress_assert(!(w.x == 2u && i == 5u));
}";
    let mut engine = engine(App::bare(
        "assert",
        source,
        [4, 1, 1],
        vec![Binding::storage(0, 32, Init::Zeros)],
    ));
    let runs = params(&engine, &settings(Strategy::Systematic, true), 0..4);
    for r in engine.run(&runs).unwrap() {
        assert_eq!(r.outcome, RunOutcome::Assertion);
        assert_eq!(r.record.assertion.count, 1);
        assert_eq!(
            r.record.assertion.group,
            [2, 0, 0],
            "the application-visible workgroup id, after shuffling"
        );
        assert_eq!(r.record.assertion.local, [5, 0, 0]);
        let text = describe(&r, &engine.manifests());
        assert!(text.contains("assert.wgsl:6:5 (in main)"), "{text}");
    }
}

#[test]
fn spin_loop_that_never_exits_ends_as_a_hang_with_its_line() {
    let source = "@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@compute @workgroup_size(4)
fn main() {
    // Waits for a flag nobody sets.
    while atomicLoad(&flag) == 0u {
    }
}";
    let mut engine = engine(App::bare(
        "spin",
        source,
        [2, 1, 1],
        vec![Binding::storage(0, 1, Init::Zeros)],
    ));
    let runs = params(&engine, &settings(Strategy::Systematic, false), 0..2);
    for r in engine.run(&runs).unwrap() {
        // The wait sees no progress: a hang, found by the scheduler's step; the first threads
        // to find it stop every loop, the others leave without finding it themselves.
        assert_eq!(r.outcome, RunOutcome::Hang);
        assert!(
            (1..=8).contains(&r.record.stall.count),
            "{} threads found the stall",
            r.record.stall.count
        );
        let text = describe(&r, &engine.manifests());
        assert!(text.contains("spin.wgsl:5:5 (in main)"), "{text}");
    }
}

/// The highest loop count of a run: one thread's `for` loop of 37 iterations counts 38 (its
/// last entry leaves by the condition); the others' shorter loops and nested loops do not
/// raise it; an application without loops reports 0.
#[test]
fn max_trips_is_the_highest_loop_count_of_the_run() {
    let looping = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let n = select(g.x % 5u, 37u, g.x == 13u);
    for (var i = 0u; i < n; i++) {
        for (var j = 0u; j < 2u; j++) {
            out[g.x] += 1u;
        }
    }
}";
    let straight = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { out[g.x] = 1u; }";
    for (source, expected) in [(looping, 38), (straight, 0)] {
        let mut engine = engine(App::bare(
            "trips",
            source,
            [4, 1, 1],
            vec![Binding::storage(0, 32, Init::Zeros)],
        ));
        for strategy in [Strategy::None, Strategy::Systematic] {
            let runs = params(&engine, &settings(strategy, true), 0..3);
            for r in engine.run(&runs).unwrap() {
                assert_eq!(r.outcome, RunOutcome::Pass);
                assert_eq!(r.record.max_trips, expected, "{strategy}\n{source}");
            }
        }
    }
}

#[test]
fn gpu_postcondition_failure_is_classified_with_its_line() {
    let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn wgstress_assert(cond: bool) {}
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { out[g.x] = g.x; }
// wgstress: postcondition check
@compute @workgroup_size(1)
fn check() {
    for (var i = 0u; i < 32u; i++) {
        wgstress_assert(out[i] == i + (i / 31u));
    }
}";
    let mut engine = engine(App::bare(
        "post",
        source,
        [2, 1, 1],
        vec![Binding::storage(0, 32, Init::Zeros)],
    ));
    let runs = params(&engine, &settings(Strategy::Random, true), 0..3);
    for r in engine.run(&runs).unwrap() {
        assert_eq!(r.outcome, RunOutcome::Postcondition);
        assert_eq!(r.record.postcondition.count, 1, "only out[31] is off");
        assert_eq!(r.record.assertion.count, 0);
        let text = describe(&r, &engine.manifests());
        assert!(text.contains("post.wgsl:9:9 (in check)"), "{text}");
    }
}

#[test]
fn a_seed_replays_the_same_stress_parameters() {
    let engine = engine(counter_app(ATOMIC_COUNTER));
    let s = settings(Strategy::Systematic, true);
    let groups = engine.app_groups();
    let seed = wgstress_model::stress::params::run_seed(99, 17);
    let a = RunParams::draw(seed, &s, groups);
    let b = RunParams::draw(seed, &s, groups);
    assert_eq!(a, b);
    assert!(a.stress_groups >= 5 && a.stress_groups <= 16);
    assert_eq!(a.patches.len(), 2);
}
