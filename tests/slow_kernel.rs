//! Slow kernels and hangs (issue 24, item 4): batches respect the measured time of a run, so
//! a slow but correct kernel is not a hang, and a hang, even during calibration, prints and
//! logs the summary with a message that names `--timeout`.

mod common;
mod support;

use common::fixture;
use serde_json::Value;
use std::time::Duration;
use support::{command, within};

/// Held by each test: they time kernels, and one test's runs beside another's would change the
/// time a run takes between a test's measuring it and relying on it.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn summary(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_slow_kernel_is_not_a_hang() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // slowrun: about 1 s an instrumented run on lavapipe (twice that beside a busy loop on
    // each core, as CI runs it), so calibration's rounds of 2, 4 and 8 runs outlasted a
    // hang timeout of a few seconds before they were sized from a run's time.
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        &fixture("slowrun.toml"),
        "--runs",
        "3",
        "--timeout",
        "5",
        "--stress-ratio",
        "0.25",
        "--json",
        "--no-log",
    ];
    let out = within(command(&args, dir.path()), Duration::from_secs(120)).exited("slowrun");
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s["aborted"].is_null(), "{s}");
    assert_eq!(s["runs"], 3, "{s}");
}

#[test]
fn a_hang_during_calibration_prints_the_summary_and_names_the_timeout() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // slow: minutes a run on lavapipe. Systematic stress calibrates first, on runs of the
    // application: the hang comes there.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hang.jsonl");
    let args = [
        "run",
        &fixture("slow.toml"),
        "--runs",
        "10",
        "--timeout",
        "2",
        "--json",
        "--log",
        log.to_str().unwrap(),
    ];
    let out = within(command(&args, dir.path()), Duration::from_secs(60)).exited("slow");
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(2), "{s}");
    let aborted = s["aborted"].as_str().unwrap_or_else(|| panic!("{s}"));
    assert!(
        aborted.contains("did not finish a batch") && aborted.contains("--timeout"),
        "{aborted}"
    );
    assert_eq!(s["runs"], 0, "{s}");
    // The note says how long calibration waited for the run that hung: the timeout at least
    // (the warm-up is calibration's too).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let waited: f64 = stderr
        .split("calibration stopped after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(waited >= 2.0, "{stderr}");
    let text = std::fs::read_to_string(&log).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["aborted"], s["aborted"]);
}

#[test]
fn warm_up_runs_are_judged_one_by_one_against_the_timeout() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // wide: 4,000 workgroups, each of which every run launches, with the application or
    // without it. The warm-up once put its three runs (the application, an empty dispatch,
    // stress alone) in one batch, which outlasted a timeout that each run is well within.
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("wide.toml");
    let run = |timeout: &str, runs: &str| {
        let args = [
            "run",
            &spec,
            "--runs",
            runs,
            "--timeout",
            timeout,
            "--stress-ratio",
            "0.25",
            "--json",
            "--no-log",
        ];
        let out = within(command(&args, dir.path()), Duration::from_secs(300)).exited("wide");
        summary(&out)
    };
    // A run's time on this machine, as loaded as it is: the timeout is set from it. A run
    // under stress takes longer than the application alone, which calibration times: the
    // longer of the two is what each batch of one run must fit in. llvmpipe's run times
    // differ between processes by up to about twice (each compiles the shaders anew and
    // shares the cores with whatever else runs), so the timeout is two and a half runs, less
    // than the three runs the old warm-up put in one batch, and the pair is tried three times.
    let mut tries = Vec::new();
    for _ in 0..3 {
        let first = run("60", "1");
        let alone = first["calibration"]["app_seconds"]
            .as_f64()
            .unwrap_or_else(|| panic!("{first}"));
        let stressed = first["seconds"]
            .as_f64()
            .unwrap_or_else(|| panic!("{first}"));
        let app = alone.max(stressed);
        let timeout = format!("{:.2}", (app * 2.5).max(0.5));
        let s = run(&timeout, "2");
        if s["aborted"].is_null() {
            assert_eq!(s["runs"], 2, "{s}");
            return;
        }
        tries.push(format!("--timeout {timeout} (a run: {app} s): {s}"));
    }
    panic!("every try aborted:\n{}", tries.join("\n"));
}
