//! Errors and warnings that teach (issue 57, item 3): a shader naga refuses is reported with
//! naga's whole reason, a wrongly typed spec value at its own line, and a barrier that
//! browsers will reject, which naga accepts, with a warning at its line (Tint the oracle).

mod common;
mod support;

use common::fixture;
use std::path::Path;
use std::time::Duration;
use support::{assert_refused, command, within};

const DEADLINE: Duration = Duration::from_secs(120);

/// `wgstress ARGS` in `dir`, as it exited.
fn wgstress(args: &[&str], dir: &Path) -> std::process::Output {
    within(command(args, dir), DEADLINE).exited(&format!("{args:?}"))
}

/// `wgstress instrument SHADER`, writing into `dir`.
fn instrument(shader: &str, dir: &Path) -> std::process::Output {
    wgstress(
        &[
            "instrument",
            shader,
            "-o",
            dir.join("out.wgsl").to_str().unwrap(),
            "--manifest",
            dir.join("out.json").to_str().unwrap(),
        ],
        dir,
    )
}

#[test]
fn a_type_mismatch_is_refused_with_nagas_reason_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // naga's top error names only the entry point; its reason is the error under it.
    let reason = "Operation Add can't work with";
    for out in [
        wgstress(&["run", &fixture("mismatch.toml"), "--no-log"], dir.path()),
        instrument(&fixture("mismatch.wgsl"), dir.path()),
    ] {
        assert_refused(
            &out,
            "mismatch.wgsl:8:17: Entry point main at Compute is invalid",
            "mismatch",
        );
        assert_refused(&out, reason, "mismatch");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error = stderr.lines().find(|l| l.contains(reason)).unwrap();
        assert!(error.contains("Uint") && error.contains("Sint"), "{error}");
        // One line: naga's rendering of the source, with its `┌─` and `│`, is not printed.
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

#[test]
fn a_string_where_a_number_belongs_is_reported_at_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &["run", &fixture("quoted-value.toml"), "--no-log"],
        dir.path(),
    );
    // Line 15 is `value = "1024"`; its table starts at line 12.
    assert_refused(
        &out,
        "quoted-value.toml:15:9: invalid type: string \"1024\", expected u32",
        "quoted value",
    );
}
