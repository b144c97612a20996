//! Tint, the WGSL compiler of Dawn and Chrome, accepts every shader wgstress emits at run
//! time: each bundled application and the lock-distance bench instrumented as the engine
//! instruments them, and the litmus shaders. One Node process validates the whole batch.

use std::path::Path;
use wgstress_apps::{all, Size, Variant};
use wgstress_instrument::{instrument_wgsl, InstrumentOptions};
use wgstress_litmus::{catalog, shader};
use wgstress_runtime::app::spec::App;
use wgstress_tint::{assert_valid, NamedWgsl};

/// The app instrumented with the options `Engine::new` gives it.
fn instrumented(app: &App) -> NamedWgsl {
    let options = InstrumentOptions {
        entry: app.entry.clone(),
        postcondition: app.postcondition.clone(),
        file_name: Some(app.shader_path.clone()),
        ..Default::default()
    };
    let inst = instrument_wgsl(&app.source, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", app.shader_path));
    NamedWgsl::new(format!("{} (instrumented)", app.name), inst.wgsl)
}

#[test]
fn tint_accepts_every_instrumented_app_and_bench() {
    // The variants share one source (FENCES is a pipeline override), so one variant per app.
    let mut shaders: Vec<NamedWgsl> = all()
        .iter()
        .map(|bundled| instrumented(&bundled.build(Variant::Buggy, Size::Small)))
        .collect();
    let bench =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/lock-distance/lock_distance.toml");
    let app = wgstress_runtime::app::spec::load(&bench).expect("the bench spec loads");
    shaders.push(NamedWgsl::new("lock_distance.wgsl", app.source.clone()));
    shaders.push(instrumented(&app));
    assert!(shaders.len() >= 10, "{} shaders", shaders.len());
    assert_valid(&shaders);
}

#[test]
fn tint_accepts_every_litmus_shader() {
    // The fence is the pipeline override FENCE, the same text fenced and not; Tint validates
    // both branches of `if FENCE` at module creation.
    let tests = catalog::all();
    assert!(!tests.is_empty());
    let shaders: Vec<NamedWgsl> = tests
        .iter()
        .flat_map(|t| {
            [64, 256].map(|size| {
                NamedWgsl::new(format!("{} at {size}", t.name), shader::generate(t, size))
            })
        })
        .collect();
    assert_valid(&shaders);
}
