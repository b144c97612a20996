//! A raw run's summary (issue 35): it has no watchdog, so it learns no loop limit; its table
//! once said "30000 iterations (learned from passing runs; the longest loop of a passing
//! run: 0)".

mod common;

use common::{fixture, wgstress};

#[test]
fn a_raw_run_claims_no_loop_limit() {
    let dir = tempfile::tempdir().unwrap();
    let counter = fixture("counter.toml");
    let out = wgstress(
        &["run", &counter, "--raw", "--runs", "8", "--no-log"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8_lossy(&out.stdout);
    let line = table
        .lines()
        .find(|l| l.starts_with("loop limit"))
        .expect("a loop limit row");
    assert!(line.ends_with("none: a raw run has no watchdog"), "{line}");
    let out = wgstress(
        &[
            "run", &counter, "--raw", "--runs", "8", "--no-log", "--json",
        ],
        dir.path(),
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["loop_limit_learned"], false);
    assert!(summary["longest_passing_loop"].is_null());
}
