//! Every stderr line is wgstress's own, and `--quiet` leaves only errors (issue 24, item
//! 11). Without XDG_RUNTIME_DIR, the Vulkan drivers' window-system code printed `error:
//! XDG_RUNTIME_DIR is invalid or not set in the environment.` twice per device command,
//! which read as wgstress's own error and which `--quiet` did not hide.

mod common;
mod support;

use common::fixture;
use std::time::Duration;
use support::{command, within};

const DEADLINE: Duration = Duration::from_secs(120);

/// stderr of `args` run with XDG_RUNTIME_DIR missing or set to `xdg`.
fn stderr(args: &[&str], xdg: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut run = command(args, dir.path());
    match xdg {
        Some(value) => run.env("XDG_RUNTIME_DIR", value),
        None => run.env_remove("XDG_RUNTIME_DIR"),
    };
    let out = within(run, DEADLINE).exited(&format!("{args:?}"));
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn every_stderr_line_is_wgstresss_own_without_xdg_runtime_dir() {
    let counter = fixture("counter.toml");
    let run = ["run", counter.as_str(), "--runs", "2", "--no-log"];
    for xdg in [None, Some("relative/dir")] {
        for args in [&["adapters"][..], &run] {
            let text = stderr(args, xdg);
            let foreign: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with("wgstress"))
                .collect();
            assert!(foreign.is_empty(), "{args:?} with {xdg:?}: {foreign:?}");
        }
    }
}

#[test]
fn quiet_leaves_nothing_on_stderr_when_nothing_failed() {
    let counter = fixture("counter.toml");
    for xdg in [None, Some("/nonexistent-runtime-dir")] {
        let text = stderr(
            &["run", &counter, "--runs", "2", "--no-log", "--quiet"],
            xdg,
        );
        assert_eq!(text, "", "with XDG_RUNTIME_DIR {xdg:?}");
    }
}
