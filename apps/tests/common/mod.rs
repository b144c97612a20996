//! What the apps' lavapipe tests share.

use std::sync::{Arc, Mutex};
use wgstress_runtime::engine::Engine;
use wgstress_runtime::spec::{App, Outputs};
use wgstress_runtime::strategy::{RunParams, Settings, Strategy, StressShape};

/// One llvmpipe render thread: workgroups run one after another, so outputs are
/// deterministic (see suite.rs on llvmpipe's loop limiter). Set before any device exists.
pub fn one_llvmpipe_thread() {
    std::env::set_var("LP_NUM_THREADS", "1");
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
    let settings = Settings {
        strategy: Strategy::None,
        shuffle: true,
        shape: StressShape::default(),
        iterations: 128,
        cache_words: 1 << 16,
        watchdog_limit: 1 << 20,
        stress_fraction: (0.15, 0.5),
        placement: Default::default(),
        buffer_shuffle: true,
    };
    let mut engine = Engine::new(app, None, 1, 1 << 16).unwrap();
    let runs: Vec<_> = (0..3)
        .map(|seed| RunParams::draw(seed, &settings, engine.session.app_groups()))
        .collect();
    engine.run(&runs).unwrap();
    let words = captured.lock().unwrap().clone();
    assert_eq!(words.len(), runs.len(), "one capture per run");
    words
}
