//! The application suite on lavapipe: every fixed variant passes under stress none,
//! systematic and random, and every postcondition fires on corrupted output.

mod common;

use common::{one_llvmpipe_thread, settings};
use std::sync::{Arc, Mutex};
use wgstress_apps::{all, Size, Variant};
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::stress::params::RunParams;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::spec::Outputs;
use wgstress_runtime::gpu::engine::{Engine, EngineConfig};

/// Batches of `batch` runs under a two-minute hang timeout: instrumented, a run on llvmpipe
/// pays for the scheduler's step in every loop iteration, and a batch of eight may pass the
/// default ten seconds.
fn patient(batch: usize) -> EngineConfig {
    EngineConfig {
        timeout: wgstress_runtime::gpu::hang_timeout::HangTimeout::Given(
            std::time::Duration::from_secs(120),
        ),
        ..EngineConfig::new(batch, 1 << 16)
    }
}

#[test]
fn fixed_variants_pass_under_none_systematic_and_random() {
    one_llvmpipe_thread();
    for bundled in all() {
        let app = bundled.build(Variant::Fixed, Size::Small);
        let mut engine =
            Engine::new(app, &patient(8)).unwrap_or_else(|e| panic!("{}: {e}", bundled.name));
        for strategy in [Strategy::None, Strategy::Systematic, Strategy::Random] {
            let s = settings(strategy);
            let runs: Vec<_> = (0..8)
                .map(|seed| RunParams::draw(seed, &s, engine.app_groups()))
                .collect();
            for r in engine.run(&runs).unwrap() {
                assert_eq!(
                    r.outcome,
                    RunOutcome::Pass,
                    "{} under {strategy}: {:?} {:?}",
                    bundled.name,
                    r.host,
                    r.record
                );
            }
        }
    }
}

fn outputs<'a>(reads: &[(u32, u32)], words: &'a [Vec<u32>]) -> Outputs<'a> {
    Outputs::new(
        reads
            .iter()
            .copied()
            .zip(words.iter().map(|w| w.as_slice()))
            .collect(),
    )
}

#[test]
fn every_postcondition_fires_on_corrupted_output() {
    one_llvmpipe_thread();
    for bundled in all() {
        let mut app = bundled.build(Variant::Fixed, Size::Small);
        let reads = app.checked_bindings();
        assert!(!reads.is_empty(), "{} reads something back", bundled.name);
        let check = app
            .host_check
            .clone()
            .expect("bundled apps have postconditions");
        let captured: Arc<Mutex<Vec<Vec<u32>>>> = Arc::default();
        let sink = captured.clone();
        let keys = reads.clone();
        app.host_check = Some(Arc::new(move |outputs: &Outputs| {
            *sink.lock().unwrap() = keys
                .iter()
                .map(|(g, b)| outputs.get(*g, *b).unwrap().to_vec())
                .collect();
            Ok(())
        }));
        let mut engine = Engine::new(app, &patient(1)).unwrap();
        engine
            .run(&[RunParams::draw(
                0,
                &settings(Strategy::None),
                engine.app_groups(),
            )])
            .unwrap();
        let good = captured.lock().unwrap().clone();
        assert_eq!(
            check(&outputs(&reads, &good)),
            Ok(()),
            "{}: the real output passes",
            bundled.name
        );
        let bad: Vec<Vec<u32>> = good
            .iter()
            .map(|w| w.iter().map(|x| x ^ 1).collect())
            .collect();
        let verdict = check(&outputs(&reads, &bad));
        assert!(
            verdict.is_err(),
            "{}: the postcondition must fire on corrupted output",
            bundled.name
        );
    }
}

#[test]
fn names_are_unique_and_found() {
    let names: Vec<_> = all().iter().map(|a| a.name).collect();
    for name in &names {
        assert_eq!(wgstress_apps::find(name).unwrap().name, *name);
        assert_eq!(names.iter().filter(|n| *n == name).count(), 1);
    }
    assert!(wgstress_apps::find("nope").is_none());
}
