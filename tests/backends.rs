//! `--backend`: the GL backend runs every bundled application on Mesa's llvmpipe through EGL,
//! as Vulkan does on lavapipe; a backend this platform does not have is a one-line error.

mod common;

use common::wgstress;
use serde_json::Value;

/// The bundled applications, as `wgstress apps` lists them.
fn bundled() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["apps"], dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn every_bundled_fixed_variant_passes_on_the_gl_backend() {
    let dir = tempfile::tempdir().unwrap();
    let apps = bundled();
    assert!(apps.len() >= 8, "{apps:?}");
    for app in &apps {
        let out = wgstress(
            &[
                "run",
                app,
                "--variant",
                "fixed",
                "--size",
                "small",
                "--runs",
                "12",
                "--backend",
                "gl",
                "--json",
                "--no-log",
                "--quiet",
            ],
            dir.path(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{app}: {stderr}");
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        let adapter = summary["adapter"].as_str().unwrap();
        assert!(adapter.ends_with(", Gl)"), "{app} ran on {adapter}");
        assert_eq!(summary["runs"], 12, "{app}: {summary}");
        assert_eq!(summary["failures"], 0, "{app}: {summary}");
    }
}

#[test]
fn the_gl_backend_finds_a_racy_counter_racy() {
    let dir = tempfile::tempdir().unwrap();
    let spec =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart/counter.toml");
    let out = wgstress(
        &[
            "run",
            &spec.display().to_string(),
            "--runs",
            "50",
            "--backend",
            "gl",
            "--json",
            "--no-log",
            "--quiet",
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        summary["adapter"].as_str().unwrap().ends_with(", Gl)"),
        "{summary}"
    );
    assert!(summary["failures"].as_u64().unwrap() > 0, "{summary}");
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
