//! The nofence variant of every bundled application: no fence site left in its source, valid
//! in naga and Tint, instrumentable, and on lavapipe the same outputs as the buggy variant.

use std::sync::{Arc, Mutex};
use wgstress_apps::{all, Size, Variant};
use wgstress_instrument::{instrument_wgsl, Options};
use wgstress_runtime::engine::Engine;
use wgstress_runtime::spec::{App, Outputs};
use wgstress_runtime::strategy::{RunParams, Settings, Strategy, StressShape};
use wgstress_tint::{assert_valid, Shader};

fn nofence_apps() -> Vec<App> {
    all()
        .iter()
        .map(|bundled| bundled.build(Variant::NoFence, Size::Small))
        .collect()
}

/// The source without its `//` comments (the apps' header comments describe the fix).
fn code(source: &str) -> String {
    source
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_fence_site_is_left() {
    for bundled in all() {
        let buggy = code(&bundled.build(Variant::Buggy, Size::Small).source);
        let app = bundled.build(Variant::NoFence, Size::Small);
        let nofence = code(&app.source);
        let guards = buggy.matches("if FENCES").count();
        assert!(guards > 0, "{}: the buggy source has fence sites", app.name);
        assert!(!nofence.contains("if FENCES"), "{}", app.name);
        // Each guard holds one storageBarrier; those left are ones the buggy variant runs
        // unconditionally (ls-bh's global barrier).
        assert_eq!(
            nofence.matches("storageBarrier").count(),
            buggy.matches("storageBarrier").count() - guards,
            "{}",
            app.name
        );
        assert!(app.name.ends_with("-nofence"), "{}", app.name);
        // Lines keep their numbers, so reported locations point into the app's file.
        assert_eq!(
            nofence.lines().count(),
            buggy.lines().count(),
            "{}",
            app.name
        );
    }
}

#[test]
fn nofence_sources_validate_in_naga_and_tint_and_instrument() {
    let mut shaders = Vec::new();
    for app in nofence_apps() {
        let module = naga::front::wgsl::parse_str(&app.source)
            .unwrap_or_else(|e| panic!("{}: {}", app.name, e.emit_to_string(&app.source)));
        naga::valid::Validator::new(Default::default(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}: {e:?}", app.name));
        let options = Options {
            entry: app.entry.clone(),
            postcondition: app.postcondition.clone(),
            file_name: Some(app.shader_path.clone()),
        };
        let instrumented =
            instrument_wgsl(&app.source, &options).unwrap_or_else(|e| panic!("{}: {e}", app.name));
        shaders.push(Shader::new(app.name.clone(), app.source.clone()));
        shaders.push(Shader::new(
            format!("{} (instrumented)", app.name),
            instrumented.wgsl,
        ));
    }
    assert_valid(&shaders);
}

/// The words of every checked binding after each of a few runs without stress.
fn outputs_without_stress(mut app: App) -> Vec<Vec<Vec<u32>>> {
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
    words
}

#[test]
fn nofence_gives_the_buggy_variants_outputs_on_lavapipe() {
    // One render thread: workgroups run one after another, so both variants' outputs are
    // deterministic (see suite.rs on llvmpipe's loop limiter).
    std::env::set_var("LP_NUM_THREADS", "1");
    for bundled in all() {
        let buggy = outputs_without_stress(bundled.build(Variant::Buggy, Size::Small));
        let nofence = outputs_without_stress(bundled.build(Variant::NoFence, Size::Small));
        assert_eq!(buggy.len(), 3, "{}: one capture per run", bundled.name);
        assert!(buggy == nofence, "{}: outputs differ", bundled.name);
    }
}
