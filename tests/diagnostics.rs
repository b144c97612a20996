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

/// The `wgstress: warning: ` lines of `out`'s stderr.
fn warnings(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("wgstress: warning: "))
        .map(str::to_string)
        .collect()
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

#[test]
fn a_barrier_in_non_uniform_control_flow_is_warned_of_where_tint_rejects_it() {
    let dir = tempfile::tempdir().unwrap();
    let (nonuniform, uniform) = (
        fixture("nonuniform-barrier.wgsl"),
        fixture("uniform-barrier.wgsl"),
    );
    // Tint, the oracle: it rejects the one shader, for uniformity, and accepts the other.
    let read = |path: &str| std::fs::read_to_string(path).unwrap();
    let rejected = wgstress_tint::validate(&[
        wgstress_tint::NamedWgsl::new("nonuniform", read(&nonuniform)),
        wgstress_tint::NamedWgsl::new("uniform", read(&uniform)),
    ]);
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].name, "nonuniform");
    let tint = &rejected[0].messages[0];
    assert!(
        tint.starts_with("11:9: 'storageBarrier' must only be called from uniform control flow"),
        "{tint}"
    );

    let out = instrument(&nonuniform, dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = warnings(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    let expected = format!(
        "wgstress: warning: {nonuniform}:11:9: storageBarrier() is in non-uniform control flow \
         (it turns non-uniform at the `if` at 10:5"
    );
    assert!(found[0].starts_with(&expected), "{}", found[0]);
    assert!(
        found[0].contains("browsers will reject this shader"),
        "{}",
        found[0]
    );

    let out = instrument(&uniform, dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(warnings(&out), Vec::<String>::new());

    // A run warns too, once, and runs the shader, which naga and wgpu accept.
    let spec = fixture("nonuniform-barrier.toml");
    let out = wgstress(&["run", &spec, "--runs", "4", "--no-log"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        warnings(&out).len(),
        1,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(warnings(&out)[0].starts_with(&expected));
    // --quiet silences it with the other notes.
    let out = wgstress(
        &["--quiet", "run", &spec, "--runs", "4", "--no-log"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
