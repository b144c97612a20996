//! The nofence variant of every bundled application: no fence site left in its source, valid
//! in naga and Tint, instrumentable, and on lavapipe the same outputs as the buggy variant.

mod common;

use common::outputs_without_stress;
use wgstress_apps::{all, Size, Variant};
use wgstress_instrument::{instrument_wgsl, InstrumentOptions};
use wgstress_runtime::app::spec::App;
use wgstress_tint::{assert_valid, NamedWgsl};

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
        let options = InstrumentOptions {
            entry: app.entry.clone(),
            postcondition: app.postcondition.clone(),
            file_name: Some(app.shader_path.clone()),
            ..Default::default()
        };
        let instrumented =
            instrument_wgsl(&app.source, &options).unwrap_or_else(|e| panic!("{}: {e}", app.name));
        shaders.push(NamedWgsl::new(app.name.clone(), app.source.clone()));
        shaders.push(NamedWgsl::new(
            format!("{} (instrumented)", app.name),
            instrumented.wgsl,
        ));
    }
    assert_valid(&shaders);
}

#[test]
fn nofence_gives_the_buggy_variants_outputs_on_lavapipe() {
    common::one_llvmpipe_thread();
    for bundled in all() {
        let buggy = outputs_without_stress(bundled.build(Variant::Buggy, Size::Small));
        let nofence = outputs_without_stress(bundled.build(Variant::NoFence, Size::Small));
        assert!(buggy == nofence, "{}: outputs differ", bundled.name);
    }
}
