//! `--browser`: the same sessions on the GPU of a headless Chromium that wgstress starts,
//! through WebGPU (SwiftShader here, where Chromium finds no GPU). Every bundled fixed variant
//! passes there as on lavapipe, a racy counter fails, litmus and mutants count their
//! outcomes, compare draws its chart, fences verifies a fix of the counter there, and each
//! summary names the browser's adapter and the browser. Progress: tests/browser_progress.rs.

mod common;

use common::{device, wgstress};
use serde_json::Value;
use std::path::Path;

/// Whether a summary's adapter is a browser's: WebGPU, with the browser's name and version.
fn in_browser(summary: &Value) -> bool {
    summary["adapter"]
        .as_str()
        .is_some_and(|a| a.contains("WebGPU in Chromium"))
}

#[test]
fn every_bundled_fixed_variant_passes_in_the_browser() {
    for (app, summary) in device::fixed_small_variants_pass(&["--browser"]) {
        assert!(in_browser(&summary), "{app}: {summary}");
    }
}

#[test]
fn the_browser_finds_a_racy_counter_racy() {
    let summary = device::racy_counter_fails(&["--browser"]);
    assert!(in_browser(&summary), "{summary}");
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

/// Runs wgstress with `args` and `--browser --json --no-log` in `dir`; returns its exit
/// status and JSON summary, which names the browser's adapter.
fn in_the_browser(args: &[&str], dir: &Path) -> (Option<i32>, Value) {
    let mut all = args.to_vec();
    all.extend(["--browser", "--json", "--no-log"]);
    let out = wgstress(&all, dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stderr}"));
    assert!(in_browser(&summary), "{args:?}: {summary}");
    (out.status.code(), summary)
}

/// The quick start's racy counter, copied into `dir` (fences writes beside it).
fn counter_in(dir: &Path) -> String {
    let quickstart = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart");
    for file in ["counter.toml", "counter.wgsl"] {
        std::fs::copy(quickstart.join(file), dir.join(file)).unwrap();
    }
    dir.join("counter.toml").display().to_string()
}

#[test]
fn mutants_reports_the_conformance_counts_in_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "mutants",
        "--tests",
        "conformance",
        "--testing-groups",
        "8",
        "--workgroup-size",
        "32",
        "--time",
        "0.1",
    ];
    let (code, summary) = in_the_browser(&args, dir.path());
    assert_eq!(code, Some(0), "{summary}");
    let results = summary["results"].as_array().unwrap();
    assert_eq!(results.len() as u64, summary["tests"].as_u64().unwrap());
    assert!(results.len() >= 10, "{summary}");
    for test in results {
        assert_eq!(test["kind"]["kind"], "conformance", "{test}");
        let counted: u64 = ["sequential", "interleaved", "weak"]
            .iter()
            .map(|k| test["counts"][k].as_u64().unwrap())
            .sum();
        assert_eq!(counted, test["instances"].as_u64().unwrap(), "{test}");
        assert!(test["instances"].as_u64().unwrap() > 0, "{test}");
    }
}

#[test]
fn compare_draws_its_chart_from_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let counter = counter_in(dir.path());
    let chart = dir.path().join("chart.svg");
    let chart_arg = chart.display().to_string();
    let args = [
        "compare",
        &counter,
        "--runs",
        "16",
        "--strategies",
        "none,random",
        "--rounds",
        "2",
        "--iterations",
        "8",
        "--svg",
        &chart_arg,
    ];
    let (code, summary) = in_the_browser(&args, dir.path());
    // The counter is racy: some configuration failed.
    assert_eq!(code, Some(1), "{summary}");
    let rows = summary["rows"].as_array().unwrap();
    for strategy in ["none", "random"] {
        assert!(
            rows.iter().any(|r| r["strategy"] == strategy),
            "{strategy}: {summary}"
        );
    }
    for row in rows {
        assert!(in_browser(row), "{row}");
    }
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{svg}");
    assert!(svg.contains("random"), "{svg}");
}

#[test]
fn fences_verifies_a_fix_of_the_racy_counter_in_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let counter = counter_in(dir.path());
    let before = std::fs::read(dir.path().join("counter.wgsl")).unwrap();
    let args = [
        "fences", &counter, "--budget", "5", "--verify", "3", "--cost", "1",
    ];
    let (code, summary) = in_the_browser(&args, dir.path());
    assert_eq!(code, Some(0), "{summary}");
    assert_eq!(summary["verdict"], "fixed", "{summary}");
    // It failed there before the fix, and the verification ran the fix there without one.
    let failed: u64 = summary["before"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["failures"].as_u64().unwrap())
        .sum();
    assert!(failed > 0, "{summary}");
    let verified = summary["verified"].as_array().unwrap();
    assert!(!verified.is_empty(), "{summary}");
    for v in verified {
        assert!(v["runs"].as_u64().unwrap() > 0, "{v}");
        assert_eq!(v["failures"], 0, "{v}");
    }
    assert!(
        !summary["patches"].as_array().unwrap().is_empty(),
        "{summary}"
    );
    // Nothing the user wrote is overwritten without --fix.
    assert_eq!(
        std::fs::read(dir.path().join("counter.wgsl")).unwrap(),
        before
    );
}

/// The processes whose parent is `pid` and whose name says Chromium.
fn chromium_children(pid: u32) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "PID (COMM) STATE PPID ...": COMM may hold spaces, so split after its parenthesis.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let parent = tail.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if parent == Some(pid) && head.contains("chrom") {
            found.extend(
                head.split_whitespace()
                    .next()
                    .and_then(|p| p.parse::<i32>().ok()),
            );
        }
    }
    found
}

#[test]
fn a_closed_page_cuts_the_session_short_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args([
            "run",
            "cbe-dot",
            "--time",
            "60",
            "--browser",
            "--json",
            "--log",
        ])
        .arg(&log)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once a batch has been logged, the browser goes away.
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("\"type\":\"batch\"")) {
        assert!(start.elapsed().as_secs() < 60, "no batch logged");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let browsers = chromium_children(child.id());
    assert!(!browsers.is_empty(), "no Chromium under wgstress");
    for pid in browsers {
        // SAFETY: kill(2) on a process of our own child's.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        start.elapsed().as_secs() < 50,
        "ran on after the page closed: {stderr}"
    );
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let aborted = summary["aborted"].as_str().unwrap_or_default();
    assert!(
        aborted.contains("the browser page closed") && aborted.contains("cut short"),
        "{summary}"
    );
    assert!(summary["runs"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(summary["counts"]["device_lost"], 0, "{summary}");
    // The log keeps every run it reported, and ends with the same summary.
    let lines = std::fs::read_to_string(&log).unwrap();
    let last: Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "summary", "{last}");
    assert_eq!(last["runs"], summary["runs"], "{last}");
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
