//! Budgets and hangs (issue 13), on lavapipe: an endless loop is reported at its line under
//! default options, a time budget holds, a hanging kernel ends the process with status 2 and
//! its summary saved, and `--until-failures` stops early.

mod common;

use common::{fixture, wgstress_timed as wgstress};
use serde_json::Value;
use std::process::Output;
use std::time::Duration;

fn summary(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn an_endless_loop_is_a_hang_at_its_line_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = wgstress(
        &["run", &fixture("endless.toml"), "--runs", "4", "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    // A loop that changes nothing, with nothing else getting anywhere: a hang, found by the
    // scheduler's step well before the watchdog's limit.
    assert_eq!(s["counts"]["hang"], 4, "{s}");
    let detail = s["first_failure"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("no progress") && detail.contains("endless.wgsl:6:5"),
        "the hang names the loop: {detail}"
    );
}

#[test]
fn a_time_budget_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (quick, startup) = wgstress(
        &[
            "run",
            &fixture("counter.toml"),
            "--runs",
            "1",
            "--iterations",
            "8",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(quick.status.code(), Some(0));
    let (out, took) = wgstress(
        &[
            "run",
            &fixture("counter.toml"),
            "--time",
            "5",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(&out);
    let calibration = s["calibration"]["seconds"].as_f64().unwrap();
    let runs = s["wall_seconds"].as_f64().unwrap();
    assert!(calibration <= 0.6, "calibration took {calibration} s of 5");
    assert!(
        calibration + runs <= 5.5,
        "calibration {calibration} s + runs {runs} s past 5 s + 10%"
    );
    assert!(runs >= 4.0, "the budget was spent: {runs} s");
    // The whole process: the budget plus what one run's start-up and teardown take.
    let limit = Duration::from_secs_f64(5.5) + startup + Duration::from_secs(1);
    assert!(took <= limit, "took {took:?}, more than {limit:?}");
}

#[test]
fn a_hanging_kernel_ends_the_process_with_status_2_and_the_summary_saved() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hang.jsonl");
    let (out, took) = wgstress(
        &[
            "run",
            &fixture("slow.toml"),
            "--strategy",
            "none",
            "--runs",
            "10",
            "--timeout",
            "2",
            "--json",
            "--log",
            log.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let s = summary(&out);
    assert!(
        s["aborted"]
            .as_str()
            .unwrap()
            .contains("did not finish a batch"),
        "{s}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["aborted"], s["aborted"]);
}

#[test]
fn until_failures_stops_once_enough_runs_failed() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = wgstress(
        &[
            "run",
            &fixture("racy.toml"),
            "--time",
            "60",
            "--until-failures",
            "3",
            "--iterations",
            "8",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    // Exactly: the runs of the batch after the third failure are not counted.
    assert_eq!(s["failures"], 3, "{s}");
    assert!(s["wall_seconds"].as_f64().unwrap() < 30.0, "{s}");
    let first = s["time_to_first_failure"].as_f64().unwrap();
    assert!(
        first > 0.0 && first <= s["seconds"].as_f64().unwrap(),
        "{s}"
    );
}

#[test]
fn once_a_hang_is_found_the_other_spinners_leave_early() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = wgstress(
        &[
            "run",
            &fixture("spinners.toml"),
            "--runs",
            "2",
            "--strategy",
            "none",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    let detail = s["first_failure"]["detail"].as_str().unwrap();
    assert!(detail.starts_with("no progress"), "{detail}");
    // "..., N stalled waits in all ...": how many of the 4,096 spinning invocations found
    // their wait stalled themselves (up to eight are named, and the count only past them); the
    // others saw the stop and left.
    let times: u32 = match detail.split(" stalled wait").next() {
        Some(head) if head.len() < detail.len() => head
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{detail}")),
        _ => detail.matches("workgroup ").count() as u32,
    };
    assert!(
        (1..1024).contains(&times),
        "{times} of 4096 found the stall: {detail}"
    );
}

/// `run --time 3` with the driver's shader cache in `cache` (lavapipe compiles what the cache
/// lacks): its summary.
fn three_seconds_with_cache(cache: &std::path::Path, dir: &std::path::Path) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["run", "cub-scan", "--time", "3", "--json", "--no-log"])
        .env("XDG_CACHE_HOME", cache)
        .env("MESA_SHADER_CACHE_DIR", cache)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    summary(&out)
}

#[test]
fn calibration_on_a_cold_shader_cache_leaves_out_the_compile() {
    let dir = tempfile::tempdir().unwrap();
    let warm = dir.path().join("warm");
    three_seconds_with_cache(&warm, dir.path());
    // A calibration that timed lavapipe's compile of a cold cache as the application's run
    // would measure a run at least as long as the compile (over a second for cub-scan, more on
    // a loaded machine) and pick stress that makes one run in the budget. What is compared is
    // what calibration measured, not the runs' pace: that follows the iterations calibration
    // drew, which vary between sessions by more than the compile's share would.
    for round in 0..2 {
        let cold = three_seconds_with_cache(&dir.path().join(format!("cold{round}")), dir.path());
        let calibration = &cold["calibration"];
        let seconds = calibration["seconds"].as_f64().unwrap();
        assert!(seconds < 0.8, "calibration took {seconds} s: {cold}");
        let app = calibration["app_seconds"].as_f64().unwrap();
        assert!(app < 0.25, "calibration timed a run of {app} s: {cold}");
        assert!(cold["runs"].as_u64().unwrap() > 1, "{cold}");
    }
}

#[test]
fn the_mutants_search_ends_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = wgstress(
        &[
            "mutants",
            "--search",
            "10",
            "--search-time",
            "0.02",
            "--search-groups",
            "64",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let s = summary(&out);
    let candidates = s["candidates"].as_array().unwrap();
    // It started another environment only while the longest so far still fitted (the first,
    // which compiles every test, is always tried); it overran by a third before.
    let seconds = s["seconds"].as_f64().unwrap();
    assert!(
        seconds <= 10.0 * 1.1,
        "{seconds} s for a 10 s search: {candidates:?}"
    );
}
