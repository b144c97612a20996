//! What a person (or a script) reads back: colour only where asked or on a terminal, one
//! JSON document an invocation, files only where asked.

mod common;

use common::fixture;
use std::process::{Command, Output};

/// Runs wgstress in `dir` with `args`, its environment as given by `env` (the colour
/// variables removed first, so that the test's own environment does not decide).
fn wgstress(args: &[&str], env: &[(&str, &str)], dir: &std::path::Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wgstress"));
    for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM"] {
        command.env_remove(name);
    }
    command
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("wgstress runs")
}

const ESCAPE: u8 = 0x1b;

fn coloured(out: &Output) -> bool {
    out.stdout.contains(&ESCAPE)
}

#[test]
fn colour_is_off_in_a_pipe_unless_forced_and_no_color_wins_over_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let counter = fixture("counter.toml");
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec![
            "run",
            &counter,
            "--runs",
            "4",
            "--strategy",
            "none",
            "--no-log",
        ];
        args.extend(extra);
        let out = wgstress(&args, env, dir.path());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out
    };
    let piped = run(&[], &[]);
    assert!(!coloured(&piped), "a pipe gets no colour");
    let text = String::from_utf8(piped.stdout).unwrap();
    assert!(
        text.contains("failure rate     0 of 4 = 0% (95% interval 0% .. "),
        "{text}"
    );

    let forced = run(&["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(coloured(&forced), "--color always colours a pipe too");
    // The pass is green: ESC [ 32 m.
    assert!(String::from_utf8_lossy(&forced.stdout).contains("\u{1b}[32mpass 4"));

    assert!(coloured(&run(&[], &[("CLICOLOR_FORCE", "1")])));
    assert!(!coloured(&run(
        &[],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]
    )));
    assert!(!coloured(&run(
        &["--color", "never"],
        &[("CLICOLOR_FORCE", "1")]
    )));
}

#[test]
fn json_is_never_coloured() {
    let dir = tempfile::tempdir().unwrap();
    let counter = fixture("counter.toml");
    let args = [
        "run",
        &counter,
        "--runs",
        "2",
        "--strategy",
        "none",
        "--no-log",
        "--json",
        "--color",
        "always",
    ];
    let out = wgstress(&args, &[], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["runs"], 2);
}

#[test]
fn adapters_json_is_one_array() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["adapters", "--json"], &[], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let adapters: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let listed = adapters.as_array().expect("an array");
    assert!(!listed.is_empty());
    for (i, adapter) in listed.iter().enumerate() {
        assert_eq!(adapter["index"], i, "{adapter}");
        assert!(adapter["name"].is_string() && adapter["device_type"].is_string());
    }
}

#[test]
fn an_error_after_the_results_leaves_stdout_one_json_document() {
    let dir = tempfile::tempdir().unwrap();
    let counter = fixture("counter.toml");
    // /dev/full takes the open that checks --svg, then refuses the chart's bytes.
    let args = [
        "compare",
        &counter,
        "--runs",
        "2",
        "--strategies",
        "none",
        "--shuffle",
        "off",
        "--rounds",
        "1",
        "--svg",
        "/dev/full",
        "--json",
        "--no-log",
    ];
    let out = wgstress(&args, &[], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("wgstress: error: /dev/full"), "{stderr}");
    let comparison: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(comparison["rows"][0]["runs"], 2);
}

#[test]
fn compare_writes_no_chart_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let counter = fixture("counter.toml");
    let args = [
        "compare",
        &counter,
        "--runs",
        "2",
        "--strategies",
        "none",
        "--shuffle",
        "off",
        "--rounds",
        "1",
        "--no-log",
    ];
    let out = wgstress(&args, &[], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("chart:"), "{text}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
