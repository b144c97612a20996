//! `--browser`: the same sessions on the GPU of a headless Chromium that wgstress starts,
//! through WebGPU (SwiftShader here, where Chromium finds no GPU). Every bundled fixed variant
//! passes there as on lavapipe, a racy counter fails, litmus counts its outcomes, and the
//! summary names the browser's adapter and the browser.

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

/// Whether a summary's adapter is a browser's: WebGPU, with the browser's name and version.
fn in_browser(summary: &Value) -> bool {
    summary["adapter"]
        .as_str()
        .is_some_and(|a| a.contains("WebGPU in Chromium"))
}

#[test]
fn every_bundled_fixed_variant_passes_in_the_browser() {
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
                "--browser",
                "--json",
                "--no-log",
                "--quiet",
            ],
            dir.path(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{app}: {stderr}");
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(in_browser(&summary), "{app}: {summary}");
        assert_eq!(summary["runs"], 12, "{app}: {summary}");
        assert_eq!(summary["failures"], 0, "{app}: {summary}");
    }
}

#[test]
fn the_browser_finds_a_racy_counter_racy() {
    let dir = tempfile::tempdir().unwrap();
    let spec =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart/counter.toml");
    let out = wgstress(
        &[
            "run",
            &spec.display().to_string(),
            "--runs",
            "50",
            "--browser",
            "--json",
            "--no-log",
            "--quiet",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(in_browser(&summary), "{summary}");
    assert!(summary["failures"].as_u64().unwrap() > 0, "{summary}");
    assert!(
        summary["adapter"].as_str().unwrap().contains("vendor "),
        "the adapter's GPUAdapterInfo: {summary}"
    );
}

#[test]
fn litmus_mp_counts_its_outcomes_in_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "litmus",
            "mp",
            "--iterations",
            "20",
            "--testing-groups",
            "8",
            "--browser",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(in_browser(&summary), "{summary}");
    let counts = &summary["counts"];
    let total: u64 = ["sequential", "interleaved", "weak"]
        .iter()
        .map(|k| {
            counts[k]
                .as_u64()
                .unwrap_or_else(|| panic!("{k}: {summary}"))
        })
        .sum();
    let instances = summary["instances"].as_u64().unwrap();
    assert_eq!(
        total, instances,
        "every instance of every iteration: {summary}"
    );
}

#[test]
fn browser_conflicts_with_a_native_adapter() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "run",
            "cbe-dot",
            "--browser",
            "--backend",
            "gl",
            "--runs",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--browser"), "{stderr}");
}
