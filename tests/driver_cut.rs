//! A loop the driver ended (issue 35): llvmpipe ends an invocation's loops after 65,535
//! iterations in all, and the application then goes on with what the loop had not done. The
//! instrumented loop knows whether it left by an exit of its own; one that did not is named,
//! and no run of its batch counts, instead of a failure blamed on the application. On
//! lavapipe, where the cut happens.

mod common;

use common::{fixture, wgstress};

fn run(spec: &str, extra: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run", spec, "--runs", "3", "--no-log"];
    args.extend_from_slice(extra);
    let out = wgstress(&args, dir.path());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_loop_the_driver_ends_is_named_and_no_failure_of_the_application() {
    let (code, stderr) = run(&fixture("cut/long_loop.toml"), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    let error = stderr
        .lines()
        .find(|l| l.starts_with("wgstress: error:"))
        .unwrap_or_else(|| panic!("no error line: {stderr}"));
    assert!(
        error.contains("long_loop.wgsl:9:5") && error.contains("65,535"),
        "{error}"
    );
    assert!(!stderr.contains("postcondition 3"), "{stderr}");
}

#[test]
fn loops_that_leave_by_their_own_exits_are_not_cut() {
    // A while condition, breaks in a switch beside the loop's own break, a break-if; under
    // a schedule that parks too, whose shaders carry the parking code.
    for schedule in ["fair", "unfair"] {
        let (code, stderr) = run(&fixture("cut/exits.toml"), &["--schedule", schedule]);
        assert_eq!(code, Some(0), "--schedule {schedule}: {stderr}");
    }
}

#[test]
fn progress_stops_at_a_loop_the_driver_ends_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "progress",
            &fixture("cut/long_loop.toml"),
            "--runs",
            "2",
            "--models",
            "fair,unfair",
            "--no-occupancy",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let aborted = report["aborted"].as_str().unwrap_or_default();
    assert!(aborted.contains("long_loop.wgsl:9:5"), "{report:#}");
    assert_eq!(report["models"].as_array().unwrap().len(), 1, "{report:#}");
}
