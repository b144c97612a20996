//! The watchdog warns when passing runs come within 2x of a limit that cannot follow them
//! (issue 24, item 6): on a busy CPU, legitimate spin-waits on llvmpipe passed at 27,590
//! polls against its fixed 30,000, with no word, until a slower run was cut and counted as a
//! failure.

mod common;

use common::{fixture, wgstress};
use serde_json::Value;

/// `run longwait` (waits of 1 to 8 STEPs, the longest in a different workgroup each run)
/// for 64 runs without stress; its summary.
fn longwait(dir: &std::path::Path, spec: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec![
        "run",
        spec,
        "--strategy",
        "none",
        "--runs",
        "64",
        "--json",
        "--no-log",
    ];
    args.extend(extra);
    let out = wgstress(&args, dir);
    let summary = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code(), summary)
}

#[test]
fn passing_runs_near_a_given_limit_draw_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = longwait(
        dir.path(),
        &fixture("longwait.toml"),
        &["--watchdog-limit", "1000"],
    );
    let warning = s["loop_limit_warning"]
        .as_str()
        .unwrap_or_else(|| panic!("{s}"));
    assert!(warning.contains("of 1000 (as given)"), "{warning}");
    assert!(warning.contains("--watchdog-limit"), "{warning}");
    // Far from the limit: no warning.
    let (status, s) = longwait(
        dir.path(),
        &fixture("longwait.toml"),
        &["--watchdog-limit", "100000"],
    );
    assert_eq!(status, Some(0), "{s}");
    assert!(s["loop_limit_warning"].is_null(), "{s}");
}

#[test]
fn passing_runs_near_llvmpipes_ceiling_draw_a_warning() {
    // Waits of 2,500 to 20,000 trips: every run passes under llvmpipe's ceiling of 30,000,
    // and the longest come within 2x of it.
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("longer.toml");
    let text = std::fs::read_to_string(fixture("longwait.toml"))
        .unwrap()
        .replace(
            "shader = \"longwait.wgsl\"",
            &format!("shader = {:?}", fixture("longwait.wgsl")),
        )
        + "\n[constants]\nSTEP = 2500\n";
    std::fs::write(&spec, text).unwrap();
    let (status, s) = longwait(dir.path(), spec.to_str().unwrap(), &[]);
    assert_eq!(status, Some(0), "{s}");
    let warning = s["loop_limit_warning"]
        .as_str()
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        warning.contains("of 30000 (the ceiling on this adapter)") && warning.contains("llvmpipe"),
        "{warning}"
    );
}
