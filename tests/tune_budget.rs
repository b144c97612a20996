//! `tune --budget` holds, on a machine that runs other tests beside it, and a tune that saw
//! no weak behaviour writes no profile (issue 24, item 5): the grids once could not shrink
//! below hundreds of cells, and a tune whose only weak behaviours were a few
//! store-buffering outcomes wrote a profile that `run` then used.

mod common;
mod support;

use std::time::Duration;
use support::{assert_refused, command, within};

/// Deadline for one tune: far past any budget here.
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn tune_ends_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    // Long enough for the smallest tune on a loaded CPU, where the tests run side by side.
    let budget = 15.0;
    let args = ["tune", "--budget", "15", "--no-log"];
    let ended = within(command(&args, dir.path()), DEADLINE);
    let support::Ended::Exited { output, took } = ended else {
        panic!("tune --budget 15 ran past {DEADLINE:?}");
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Lavapipe shows no weak behaviour worth a profile: exit 1 (see below), not 2.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    assert!(stderr.contains("fitted to 15 s"), "{stderr}");
    // The budget counts from the device's opening; the process adds its own start.
    let limit = Duration::from_secs_f64(budget * 1.1 + 0.5);
    assert!(took <= limit, "tune --budget 15 took {took:?}: {stderr}");
}

#[test]
fn a_budget_that_holds_no_tune_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["tune", "--budget", "0.5", "--no-log"];
    let out = within(command(&args, dir.path()), DEADLINE).exited("tune --budget 0.5");
    assert_refused(
        &out,
        "--budget 0.5 s holds no tune on this adapter",
        "--budget 0.5",
    );
    assert!(!dir.path().join("wgstress-profile.json").exists());
}

#[test]
fn no_weak_behaviour_no_profile() {
    let dir = tempfile::tempdir().unwrap();
    // Two workgroups of eight threads: quick, and no weak behaviour on lavapipe.
    let args = [
        "tune",
        "--testing-groups",
        "2",
        "--workgroup-size",
        "8",
        "--distances",
        "1",
        "--locations",
        "8",
        "--max-sequence",
        "2",
        "--max-spread",
        "2",
        "--iterations-per-cell",
        "1",
        "--no-log",
    ];
    let out = within(command(&args, dir.path()), DEADLINE).exited("tune");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("none written"), "{stdout}");
    assert!(!dir.path().join("wgstress-profile.json").exists());
    // And `run` keeps the seed's defaults.
    let run = common::wgstress(
        &[
            "run",
            &common::fixture("counter.toml"),
            "--runs",
            "1",
            "--no-log",
        ],
        dir.path(),
    );
    let notes = String::from_utf8_lossy(&run.stderr);
    assert!(
        notes.contains("systematic stress from the PLDI'16 defaults"),
        "{notes}"
    );
}
