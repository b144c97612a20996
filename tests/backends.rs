//! `--backend`: the GL backend runs every bundled application on Mesa's llvmpipe through EGL,
//! as Vulkan does on lavapipe; a backend this platform does not have is a one-line error.

mod common;

use common::{device, wgstress};

#[test]
fn every_bundled_fixed_variant_passes_on_the_gl_backend() {
    for (app, summary) in device::fixed_small_variants_pass(&["--backend", "gl"]) {
        let adapter = summary["adapter"].as_str().unwrap();
        assert!(adapter.ends_with(", Gl)"), "{app} ran on {adapter}");
    }
}

#[test]
fn the_gl_backend_finds_a_racy_counter_racy() {
    let summary = device::racy_counter_fails(&["--backend", "gl"]);
    assert!(
        summary["adapter"].as_str().unwrap().ends_with(", Gl)"),
        "{summary}"
    );
}

#[test]
fn adapters_lists_each_backends_adapters_and_a_missing_backend_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["adapters"], dir.path());
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains(", Vulkan)"), "{listed}");
    assert!(listed.contains(", Gl)"), "{listed}");
    let metal = wgstress(
        &["run", "cbe-dot", "--backend", "metal", "--runs", "1"],
        dir.path(),
    );
    assert_eq!(metal.status.code(), Some(2));
    let stderr = String::from_utf8(metal.stderr).unwrap();
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("wgstress: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("--backend metal") && errors[0].contains("(Gl)"),
        "{stderr}"
    );
}
