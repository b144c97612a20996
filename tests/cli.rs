//! The `wgstress` command line, run as a user runs it, on lavapipe in CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn wgstress(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("wgstress runs")
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The lines wgstress itself printed (drivers print their own noise on stderr).
fn own_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("wgstress"))
        .map(str::to_string)
        .collect()
}

fn assert_bad_input(args: &[&str], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(args, dir.path());
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    let errors: Vec<_> = own_lines(&out)
        .into_iter()
        .filter(|l| l.starts_with("wgstress: error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{args:?}: {}", stderr(&out));
    assert!(
        errors[0].contains(expected),
        "{args:?}: `{}` lacks `{expected}`",
        errors[0]
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_bad_input(&["run", "nowhere.toml"], "nowhere.toml: No such file");
    assert_bad_input(&["run", &fixture("bad.toml")], "bad.toml: ");
    assert_bad_input(
        &["run", &fixture("missing-shader.toml")],
        "nowhere.wgsl: No such file",
    );
    assert_bad_input(
        &["run", &fixture("undeclared.toml")],
        "the spec declares binding 0:3, which",
    );
    assert_bad_input(
        &["run", &fixture("size.toml")],
        "binding 0:0 `counter`: 3 words (12 bytes) do not fit its type in the shader (4 bytes)",
    );
    assert_bad_input(
        &["run", &fixture("counter.toml"), "--runs", "0"],
        "--runs must be at least 1",
    );
    assert_bad_input(
        &["run", "no-such-app"],
        "no bundled application or spec file named `no-such-app`",
    );
}

#[test]
fn shader_errors_show_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "instrument",
            &fixture("broken.wgsl"),
            "-o",
            "out.wgsl",
            "--manifest",
            "m.json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(
        text.starts_with(&format!(
            "wgstress: error: {}:3:17: ",
            fixture("broken.wgsl")
        )),
        "{text}"
    );
    assert!(text.contains("let x = 1u +;"), "{text}");
    assert!(!dir.path().join("out.wgsl").exists(), "no partial output");
}

#[test]
fn instrument_writes_shader_manifest_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "instrument",
            &fixture("counter.wgsl"),
            "-o",
            "out.wgsl",
            "--manifest",
            "m.json",
            "--diff",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.contains("+fn wgstress_app_main() {"), "{diff}");
    let wgsl = std::fs::read_to_string(dir.path().join("out.wgsl")).unwrap();
    naga::front::wgsl::parse_str(&wgsl).expect("the written shader parses");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("m.json")).unwrap()).unwrap();
    assert_eq!(manifest["entry_point"]["name"], "main");
    assert_eq!(manifest["bind_group"], 1);
}

#[test]
fn run_reports_pass_and_failure_with_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let pass = wgstress(
        &[
            "run",
            &fixture("counter.toml"),
            "--runs",
            "40",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(pass.status.code(), Some(0), "{}", stderr(&pass));
    let summary: serde_json::Value = serde_json::from_slice(&pass.stdout).unwrap();
    assert_eq!(summary["runs"], 40);
    assert_eq!(summary["counts"]["pass"], 40);
    let fail = wgstress(
        &[
            "run",
            &fixture("racy.toml"),
            "--runs",
            "20",
            "--strategy",
            "none",
        ],
        dir.path(),
    );
    assert_eq!(fail.status.code(), Some(1), "{}", stderr(&fail));
    let table = String::from_utf8(fail.stdout).unwrap();
    assert!(
        table.contains("host check failed: binding 0:0[0] = "),
        "{table}"
    );
    assert!(table.contains("replay           --seed 0x"), "{table}");
    assert!(
        dir.path().join("wgstress-runs.jsonl").exists(),
        "the log is on by default"
    );
}

fn log_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("log line is not JSON ({e}): {l}"))
        })
        .collect()
}

#[test]
fn seed_replays_the_same_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "run",
            &fixture("racy.toml"),
            "--runs",
            "6",
            "--batch",
            "3",
            "--seed",
            "0x2a",
            "--iterations",
            "16",
            "--log",
            "replay.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let params = failure_params(&dir.path().join("replay.jsonl"));
    assert_eq!(params.len(), 6);
    assert!(
        params.iter().all(|p| *p == params[0]),
        "every run replays seed 0x2a"
    );
    assert_eq!(params[0]["seed"], 42);
    assert_eq!(params[0]["iterations"], 16);
}

fn failure_params(log: &Path) -> Vec<serde_json::Value> {
    log_lines(log)
        .iter()
        .filter(|l| l["type"] == "batch")
        .flat_map(|l| l["failures"].as_array().unwrap().clone())
        .map(|f| f["params"].clone())
        .collect()
}

#[test]
fn the_printed_replay_line_replays_the_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    let racy = fixture("racy.toml");
    let shape = [
        "--sequence",
        "st;ld;st",
        "--spread",
        "3",
        "--patch-words",
        "16",
        "--stress-placement",
        "after",
        "--stress-fraction",
        "0.2-0.9",
        "--iterations",
        "12",
    ];
    let mut first = vec!["run", &racy, "--runs", "4", "--log", "first.jsonl"];
    first.extend(shape);
    let out = wgstress(&first, dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    let replay = table
        .lines()
        .find_map(|l| l.strip_prefix("replay"))
        .unwrap_or_else(|| panic!("no replay line in {table}"));
    let options: Vec<String> = replay
        .split_whitespace()
        .map(|w| w.trim_matches('\'').to_string())
        .collect();
    let mut again = vec!["run", &racy, "--runs", "1", "--log", "again.jsonl"];
    again.extend(options.iter().map(String::as_str));
    let out = wgstress(&again, dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let first = failure_params(&dir.path().join("first.jsonl"));
    let again = failure_params(&dir.path().join("again.jsonl"));
    assert_eq!(again.len(), 1);
    assert_eq!(first[0], again[0], "replayed with {replay}");
    assert_eq!(first[0]["sequence_len"], 3);
    assert_eq!(first[0]["patch_words"], 16);
}

/// Starts a long `wgstress run` of `spec` that logs to `log`, and returns once the log has
/// `lines` lines (or a minute has passed). Its stdout is piped.
fn run_logging(
    spec: &str,
    extra: &[&str],
    log: &Path,
    dir: &Path,
    lines: usize,
) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args([
            "run",
            &fixture(spec),
            "--time",
            "120",
            "--batch",
            "4",
            "--iterations",
            "8",
        ])
        .args(extra)
        .arg("--log")
        .arg(log)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while log_lines(log).len() < lines && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

#[test]
fn jsonl_log_survives_a_killed_process() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("killed.jsonl");
    let mut child = run_logging("racy.toml", &[], &log, dir.path(), 4);
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = log_lines(&log);
    assert!(lines.len() >= 4, "batches were logged before the kill");
    assert_eq!(lines[0]["type"], "start");
    assert!(
        lines[1..].iter().all(|l| l["type"] == "batch"),
        "no summary: the process was killed"
    );
    let last = lines.last().unwrap();
    assert_eq!(
        last["total_runs"].as_u64().unwrap(),
        4 * (lines.len() as u64 - 1)
    );
}

#[test]
fn litmus_and_tune_refuse_bad_input() {
    assert_bad_input(
        &["litmus", "xyz"],
        "unknown litmus test `xyz` (known: mp, sb, lb, corr, coww, cowr, corw, 2+2w)",
    );
    assert_bad_input(
        &["litmus", "mp", "--testing-groups", "0"],
        "--testing-groups must be at least 1",
    );
    assert_bad_input(
        &["litmus", "sb", "--workgroup-size", "100000"],
        "max_compute_invocations_per_workgroup",
    );
}

#[test]
fn litmus_counts_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "litmus",
            "mp",
            "--testing-groups",
            "4",
            "--workgroup-size",
            "16",
            "--iterations",
            "9",
            "--json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &report["counts"];
    let total = c["sequential"].as_u64().unwrap()
        + c["interleaved"].as_u64().unwrap()
        + c["weak"].as_u64().unwrap();
    assert_eq!(total, 9 * 4 * 16);
    assert_eq!(report["instances"], 9 * 4 * 16);
}

#[test]
fn compare_runs_the_chosen_configurations_and_draws_a_chart() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "compare",
        &fixture("counter.toml"),
        "--runs",
        "16",
        "--strategies",
        "none,random",
        "--shuffle",
        "on",
        "--rounds",
        "2",
        "--iterations",
        "8",
        "--json",
        "--no-log",
    ];
    let out = wgstress(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = result["rows"].as_array().unwrap();
    let labels: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r["strategy"].as_str().unwrap(),
                r["shuffle"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(labels, [("none", true), ("random", true)]);
    assert!(rows.iter().all(|r| r["runs"] == 16 && r["failures"] == 0));
    let svg = std::fs::read_to_string(dir.path().join("wgstress-compare.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("random+shuffle"),
        "the chart names every configuration"
    );
}

#[test]
fn ctrl_c_prints_and_saves_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("interrupted.jsonl");
    let child = run_logging("counter.toml", &["--json"], &log, dir.path(), 3);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "an interrupted run with no failure exits 0"
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["interrupted"], true);
    assert!(summary["runs"].as_u64().unwrap() >= 8);
    let last = log_lines(&log).pop().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["runs"], summary["runs"]);
}

#[test]
fn litmus_lists_the_suite_and_mutants_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let list = wgstress(&["litmus", "--list"], dir.path());
    assert!(list.status.success(), "{}", stderr(&list));
    let text = String::from_utf8_lossy(&list.stdout);
    let kind = |k: &str| text.lines().filter(|l| l.contains(k)).count();
    assert_eq!(
        (kind(" conformance ("), kind(" mutant (")),
        (20, 32),
        "{text}"
    );
    assert!(
        text.contains("mut-mp") && text.contains("r0=2 r1=0 x=1 y=2"),
        "{text}"
    );
    let out = wgstress(
        &[
            "mutants",
            "--tests",
            "conformance",
            "--time",
            "0.01",
            "--testing-groups",
            "2",
            "--workgroup-size",
            "16",
            "--json",
        ],
        dir.path(),
    );
    // Exit 1 would be a coherence violation on lavapipe: a real finding.
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"].as_array().unwrap().len(), 20);
    assert_eq!(report["summary"]["conformance_tests"], 20);
    assert_bad_input(
        &["mutants", "--time", "0"],
        "--time, --search-time and --budget must be above 0",
    );
    assert_bad_input(
        &["litmus", "mp", "--stride", "32", "--distance", "131072"],
        "--y-gap puts y in a region of its own",
    );
}
