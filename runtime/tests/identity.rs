//! With stress "none", an instrumented kernel writes byte-identical outputs to the original,
//! for 1-D and 3-D dispatches. A race-free kernel stays identical under stress and shuffling.

mod common;
use common::*;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::init::Init;

const ONE_D: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> input: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    out[gid.x] = input[gid.x] * 3u + wid.x * 1000u + n.x * 100000u + li;
}";

const THREE_D: &str = "
struct Local { @builtin(local_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) index: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4, 2, 2)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>, local: Local) {
    let size = n * vec3<u32>(4u, 2u, 2u);
    let flat = g.x + size.x * (g.y + size.y * g.z);
    out[flat * 4u] = w.x + 10u * w.y + 100u * w.z;
    out[flat * 4u + 1u] = local.id.x + 10u * local.id.y + 100u * local.id.z;
    out[flat * 4u + 2u] = local.index;
    out[flat * 4u + 3u] = n.x + 10u * n.y + 100u * n.z;
}";

fn check_identical(
    source: &str,
    workgroups: [u32; 3],
    bindings: Vec<wgstress_runtime::app::spec::Binding>,
) {
    let original = run_original(source, workgroups, &bindings);
    use wgstress_model::stress::params::StressPlacement;
    let configs = [
        (Strategy::None, false, StressPlacement::Interleaved),
        (Strategy::None, true, StressPlacement::Interleaved),
        (Strategy::Systematic, true, StressPlacement::Interleaved),
        (Strategy::Systematic, true, StressPlacement::After),
        (Strategy::Systematic, false, StressPlacement::Before),
        (Strategy::Random, true, StressPlacement::Interleaved),
        (Strategy::Cache, false, StressPlacement::Interleaved),
    ];
    for (strategy, shuffle, placement) in configs {
        let mut app = App::bare("identity", source, workgroups, bindings.clone());
        let seen = capture(&mut app);
        let mut engine = engine(app);
        let mut settings = settings(strategy, shuffle);
        settings.placement = placement;
        let runs = params(&engine, &settings, 0..4);
        let results = engine.run(&runs).unwrap();
        assert!(
            results.iter().all(|r| !r.outcome.is_failure()),
            "{strategy} {shuffle}: {results:?}"
        );
        for (params, r) in runs.iter().zip(&results) {
            assert_eq!(
                r.record.stress_groups_ran, params.stress_groups,
                "every stress workgroup ran"
            );
        }
        for outputs in seen.lock().unwrap().iter() {
            assert_eq!(
                outputs, &original,
                "{strategy}, shuffle {shuffle}: outputs differ from the uninstrumented kernel"
            );
        }
    }
}

#[test]
fn one_dimensional_dispatch_is_byte_identical() {
    check_identical(
        ONE_D,
        [24, 1, 1],
        vec![
            Binding::storage(0, 24 * 32, Init::Zeros),
            Binding::storage(1, 24 * 32, Init::Iota { start: 5 }),
        ],
    );
}

#[test]
fn three_dimensional_dispatch_is_byte_identical() {
    check_identical(
        THREE_D,
        [3, 2, 4],
        vec![Binding::storage(
            0,
            3 * 2 * 4 * 16 * 4,
            Init::Constant { value: 7 },
        )],
    );
}

/// Every buffer layout binds the same words: outputs (and arrayLength) match the original
/// kernel's whichever offset a run binds its buffers at, runs of all layouts in one batch.
#[test]
fn every_buffer_layout_is_byte_identical() {
    const LENGTHS: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> input: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = input[gid.x] * 3u + arrayLength(&input) * 1000u + arrayLength(&out);
    input[gid.x] = 7u;
}";
    use wgstress_model::stress::params::LAYOUTS;
    let bindings = vec![
        Binding::storage(0, 256, Init::Zeros),
        Binding::storage(1, 256, Init::Iota { start: 5 }),
    ];
    let original = run_original(LENGTHS, [8, 1, 1], &bindings);
    let mut app = App::bare("layouts", LENGTHS, [8, 1, 1], bindings);
    let seen = capture(&mut app);
    let mut engine = engine(app);
    let settings = settings(Strategy::None, false);
    let runs: Vec<_> = params(&engine, &settings, 0..LAYOUTS as u64)
        .into_iter()
        .enumerate()
        .map(|(layout, p)| wgstress_model::stress::params::RunParams {
            layout: layout as u32,
            ..p
        })
        .collect();
    engine.run(&runs).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), LAYOUTS);
    for (layout, outputs) in seen.iter().enumerate() {
        assert_eq!(outputs, &original, "layout {layout}");
    }
}
