//! The same checks on any device a command can be given (`--backend gl`, `--browser`): every
//! bundled application's fixed small variant passes, and the quick start's racy counter fails.

use super::wgstress;
use serde_json::Value;
use std::path::Path;

/// The bundled applications, as `wgstress apps` lists them.
pub fn bundled() -> Vec<String> {
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

/// Runs every bundled application's fixed small variant 12 times with `device` (the options
/// that choose the device) and asserts each passed every run; returns each one's summary.
pub fn fixed_small_variants_pass(device: &[&str]) -> Vec<(String, Value)> {
    let dir = tempfile::tempdir().unwrap();
    let apps = bundled();
    assert!(apps.len() >= 8, "{apps:?}");
    apps.into_iter()
        .map(|app| {
            let mut args = vec![
                "run",
                &app,
                "--variant",
                "fixed",
                "--size",
                "small",
                "--runs",
                "12",
            ];
            args.extend(device);
            args.extend(["--json", "--no-log", "--quiet"]);
            let out = wgstress(&args, dir.path());
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{app} {device:?}: {stderr}");
            let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(summary["runs"], 12, "{app}: {summary}");
            assert_eq!(summary["failures"], 0, "{app}: {summary}");
            (app, summary)
        })
        .collect()
}

/// Runs the quick start's racy counter 50 times with `device` and asserts that runs failed
/// (exit 1); returns the summary.
pub fn racy_counter_fails(device: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart/counter.toml");
    let spec = spec.display().to_string();
    let mut args = vec!["run", &spec, "--runs", "50"];
    args.extend(device);
    args.extend(["--json", "--no-log", "--quiet"]);
    let out = wgstress(&args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{device:?}: {stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(summary["failures"].as_u64().unwrap() > 0, "{summary}");
    summary
}
