//! What the apps' lavapipe tests share.
#![allow(dead_code)]

use std::sync::{Arc, Mutex, Once};
use wgstress_model::stress::params::{RunParams, Settings, StressShape};
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::spec::{App, Outputs};
use wgstress_runtime::gpu::engine::{Engine, EngineConfig};

/// Settings of the suite's runs under `strategy`.
pub fn settings(strategy: Strategy) -> Settings {
    Settings {
        strategy,
        shuffle: true,
        shape: StressShape::default(),
        iterations: 128,
        cache_words: 1 << 16,
        watchdog_limit: 1 << 20,
        stress_fraction: (0.15, 0.5),
        placement: Default::default(),
        buffer_shuffle: true,
        scheduling: Default::default(),
    }
}

/// llvmpipe ends an invocation's loops after 65,535 iterations in all, silently (docs/apps.md).
/// With as many render threads as cores, the OS can preempt a workgroup that holds a spin lock
/// while another spins on it past that limit and enters the critical section unlocked: cbe-ht's
/// fixed variant then lost a key in about 1 of 6,000 runs (54 with 8 threads, 0 with one;
/// `--watchdog-limit 30000` turns them into watchdog reports). With one render thread the
/// workgroups run one after another, so no spin can outlast the limiter and outputs are
/// deterministic. Set before any device is created, by every test that creates one.
pub fn one_llvmpipe_thread() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::env::set_var("LP_NUM_THREADS", "1"));
}

/// The words of every checked binding after each of a few runs without stress.
pub fn outputs_without_stress(mut app: App) -> Vec<Vec<Vec<u32>>> {
    let reads = app.checked_bindings();
    let captured: Arc<Mutex<Vec<Vec<Vec<u32>>>>> = Arc::default();
    let sink = captured.clone();
    app.host_check = Some(Arc::new(move |outputs: &Outputs| {
        let words = reads
            .iter()
            .map(|(g, b)| outputs.get(*g, *b).unwrap().to_vec());
        sink.lock().unwrap().push(words.collect());
        Ok(())
    }));
    let settings = settings(Strategy::None);
    // Instrumented, a run on llvmpipe pays for the scheduler's step in every loop iteration
    // (about ten times a tight loop's own cost): a batch may take longer than the default
    // hang timeout.
    let config = EngineConfig {
        timeout: wgstress_runtime::gpu::hang_timeout::HangTimeout::Given(
            std::time::Duration::from_secs(120),
        ),
        ..EngineConfig::new(1, 1 << 16)
    };
    let mut engine = Engine::new(app, &config).unwrap();
    let runs: Vec<_> = (0..3)
        .map(|seed| RunParams::draw(seed, &settings, engine.app_groups()))
        .collect();
    engine.run(&runs).unwrap();
    let words = captured.lock().unwrap().clone();
    assert_eq!(words.len(), runs.len(), "one capture per run");
    words
}
