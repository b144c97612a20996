//! The `wgstress` command line, run as a user runs it, on lavapipe in CI.

mod common;

use common::{fixture, wgstress};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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
    assert_bad_input(&["run", &fixture("bad.toml")], "bad.toml:3:14: ");
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
        "binding 0:0 `counter`: 3 words (12 bytes) are more than its type in the shader holds (4 bytes): give words = 1",
    );
    assert_bad_input(
        &["run", &fixture("counter.toml"), "--runs", "0"],
        "invalid value '0' for '--runs <RUNS>'",
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
    // One line, naga's message on it; not naga's rendering of the source under it.
    assert!(text.contains("expected expression"), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
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
        table.contains(
            "host check failed: all-equal 1024: binding 0:0: 1 of 1 element wrong: [0] = "
        ),
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
    // Batches vary in size (they are paced to the runs' time); each line's total is the sum.
    let sum: u64 = lines[1..].iter().map(|l| l["runs"].as_u64().unwrap()).sum();
    assert_eq!(lines.last().unwrap()["total_runs"].as_u64().unwrap(), sum);
}

#[test]
fn litmus_and_tune_refuse_bad_input() {
    assert_bad_input(
        &["litmus", "xyz"],
        "unknown litmus test `xyz` (known: mp, sb, lb, corr, coww, cowr, corw, 2+2w, and the MC Mutants suite's: wgstress litmus --list)",
    );
    assert_bad_input(
        &["litmus", "mp", "--testing-groups", "0"],
        "invalid value '0' for '--testing-groups <TESTING_GROUPS>'",
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
    let lines = log_lines(&dir.path().join("wgstress-runs.jsonl"));
    assert_eq!(lines.len(), 2, "a start and a summary line");
    assert_eq!(lines[0]["type"], "start");
    assert_eq!(lines[0]["command"], "litmus");
    assert_eq!(lines[0]["seed"], 1);
    assert_eq!(lines[1]["type"], "summary");
    assert_eq!(lines[1]["counts"], report["counts"]);
}

#[test]
fn tune_without_weak_behaviour_writes_no_profile_and_logs_what_it_saw() {
    // Two workgroups of eight threads on lavapipe show no weak behaviour: no choice rests on
    // any, so no profile (which `run` would pick up) and no heat map are written.
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "tune",
            "--testing-groups",
            "2",
            "--workgroup-size",
            "8",
            "--distances",
            "1",
            "--locations",
            "4",
            "--max-sequence",
            "1",
            "--max-spread",
            "1",
            "--iterations-per-cell",
            "1",
            "--quiet",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(own_lines(&out).is_empty(), "--quiet: {}", stderr(&out));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains("profile          none written: no setting showed 10 or more"),
        "{report}"
    );
    assert!(!dir.path().join("wgstress-profile.json").exists());
    assert!(!dir.path().join("wgstress-heatmap.svg").exists());
    let lines = log_lines(&dir.path().join("wgstress-runs.jsonl"));
    assert_eq!(lines[0]["command"], "tune");
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["written"], false);
    assert_eq!(last["patch_grid"]["mp"][0].as_array().unwrap().len(), 4);
    assert!(last["evidence"]["cells"].as_u64().unwrap() > 0, "{last}");
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
        "--svg",
        "chart.svg",
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
    let svg = std::fs::read_to_string(dir.path().join("chart.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("random+shuffle"),
        "the chart names every configuration"
    );
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        written,
        ["chart.svg"],
        "compare writes only what it was asked to"
    );
}

#[test]
fn ctrl_c_prints_and_saves_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("interrupted.jsonl");
    // The start line, then batches of 1, 4 and 4 runs: 9 logged before the signal.
    let child = run_logging("counter.toml", &["--json"], &log, dir.path(), 4);
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "an interrupted run exits 130");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["interrupted"], true);
    assert!(summary["runs"].as_u64().unwrap() >= 8);
    let last = log_lines(&log).pop().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["runs"], summary["runs"]);
}

/// A spec in `dir` for the counter fixture's shader, with `rest` after its name and shader.
fn spec(dir: &Path, name: &str, rest: &str) -> String {
    let path = dir.join(name);
    let text = format!(
        "shader = {:?}\n{rest}",
        fixture("counter.wgsl").replace('\\', "/")
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const COUNTER_BINDING: &str = "[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n";

#[test]
fn specs_are_checked_before_the_device_opens() {
    let dir = tempfile::tempdir().unwrap();
    let check = spec(
        dir.path(),
        "check.toml",
        &format!(
            "workgroups = [16]\n{COUNTER_BINDING}\n[[check]]\nbinding = 9\nkind = \"sorted\"\n"
        ),
    );
    assert_bad_input(
        &["run", &check],
        "check.toml:8:1: [[check]] 1: the check reads binding 0:9, which no [[binding]] declares",
    );
    let huge = spec(
        dir.path(),
        "huge.toml",
        &format!("workgroups = [70000, 70000, 70000]\n{COUNTER_BINDING}"),
    );
    assert_bad_input(
        &["run", &huge],
        "huge.toml:2:14: workgroups: 70000 x 70000 x 70000 = 343000000000000 workgroups; at most 2^31",
    );
    assert_bad_input(
        &["run", &fixture("counter.toml"), "--variant", "buggy"],
        "--variant and --size choose among a bundled application's builds",
    );
}

#[test]
fn options_out_of_range_are_refused() {
    let counter = fixture("counter.toml");
    for (args, expected) in [
        (
            vec!["run", &counter, "--watchdog-limit", "0"],
            "'--watchdog-limit <WATCHDOG_LIMIT>'",
        ),
        (
            vec!["run", &counter, "--cache-mib", "0"],
            "'--cache-mib <CACHE_MIB>'",
        ),
        (
            vec!["run", &counter, "--cache-mib", "16384"],
            "'--cache-mib <CACHE_MIB>'",
        ),
        (
            vec!["run", &counter, "--stress-fraction", "5-10"],
            "give 0 <= LO <= HI <= 1",
        ),
        (
            vec!["run", &counter, "--time", "-1"],
            "is not a number of seconds",
        ),
        (
            vec!["run", &counter, "--buffer-shuffle", "true"],
            "'--buffer-shuffle <BUFFER_SHUFFLE>'",
        ),
        (
            vec!["compare", &counter, "--rounds", "0"],
            "'--rounds <ROUNDS>'",
        ),
        (
            vec!["tune", "--budget", "-3"],
            "`-3` is not a number of seconds",
        ),
        (
            vec!["litmus", "mp", "--distance", "4294967295"],
            "'--distance <DISTANCE>'",
        ),
        (
            vec!["litmus", "mp", "--iterations", "0"],
            "'--iterations <ITERATIONS>'",
        ),
        (
            vec!["litmus", "mp", "--placement", "diagonal"],
            "'--placement <PLACEMENT>'",
        ),
        (
            vec!["litmus", "mp", "--y-gap", "2000000000"],
            "'--y-gap <WORDS>'",
        ),
        (
            vec!["litmus"],
            "required arguments were not provided: <TEST>",
        ),
        (
            vec!["mutants", "--time", "0"],
            "`0` is not a number of seconds",
        ),
        (
            vec!["mutants", "--reproducibility", "1"],
            "`1` is not above 0 and below 1",
        ),
        (vec!["mutants", "--random-share", "1.5"], "is not a share"),
        (
            vec!["mutants", "--search-groups", "256,0"],
            "'--search-groups <SEARCH_GROUPS>'",
        ),
        (vec!["mutants", "--tests", "some"], "'--tests <TESTS>'"),
    ] {
        assert_bad_input(&args, expected);
    }
}

#[test]
fn outputs_are_checked_before_any_work() {
    let counter_wgsl = fixture("counter.wgsl");
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("x.wgsl");
    std::fs::copy(&counter_wgsl, &source).unwrap();
    let before = std::fs::read_to_string(&source).unwrap();
    let x = source.display().to_string();
    assert_bad_input(
        &["instrument", &x, "-o", &x, "--manifest", "m.json"],
        "SHADER and --output name the same file",
    );
    assert_bad_input(
        &[
            "instrument",
            &counter_wgsl,
            "-o",
            "out.wgsl",
            "--manifest",
            "./out.wgsl",
        ],
        "--output and --manifest name the same file",
    );
    assert_eq!(
        std::fs::read_to_string(&source).unwrap(),
        before,
        "the source is untouched"
    );
    let counter = fixture("counter.toml");
    assert_bad_input(
        &["run", &counter, "--log", &counter],
        "APP and --log name the same file",
    );
    assert_bad_input(
        &["compare", &counter, "--svg", &counter_wgsl],
        "the spec's shader and --svg name the same file",
    );
    let start = Instant::now();
    assert_bad_input(
        &[
            "compare",
            &fixture("counter.toml"),
            "--time",
            "60",
            "--svg",
            "missing/dir/x.svg",
        ],
        "missing/dir/x.svg: cannot write --svg: ",
    );
    assert_bad_input(
        &["tune", "--budget", "60", "--profile", "missing/dir/p.json"],
        "missing/dir/p.json: cannot write --profile: ",
    );
    assert_bad_input(
        &[
            "mutants",
            "--search",
            "60",
            "--write-env",
            "missing/dir/e.json",
        ],
        "missing/dir/e.json: cannot write --write-env: ",
    );
    assert_bad_input(
        &[
            "mutants",
            "--search",
            "60",
            "--write-env",
            "x.jsonl",
            "--log",
            "./x.jsonl",
        ],
        "--log and --write-env name the same file",
    );
    assert_bad_input(
        &["litmus", "mp", "--time", "60", "--env", "missing/env.json"],
        "missing/env.json",
    );
    assert_bad_input(
        &["mutants", "--search", "60", "--env", "env.json"],
        "'--search <SECONDS>' cannot be used with '--env <FILE>'",
    );
    assert_bad_input(
        &[
            "run",
            &fixture("counter.toml"),
            "--log",
            "missing/dir/l.jsonl",
        ],
        "missing/dir/l.jsonl: cannot write --log: ",
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "refused before the budget ran"
    );
}

#[test]
fn run_takes_the_entry_point_its_errors_name() {
    assert_bad_input(
        &["run", &fixture("counter.toml"), "--entry", "nope"],
        "no @compute entry point named `nope`",
    );
}

#[test]
fn every_option_says_what_it_does() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["run", "compare", "litmus", "mutants", "tune", "instrument"] {
        let out = wgstress(&[command, "--help"], dir.path());
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        // An option's help follows its value name on its line, or fills the next line.
        let lines: Vec<&str> = help.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            let option = line.starts_with("--") || line.get(2..3) == Some(",");
            if !option {
                continue;
            }
            // "[default: 256]" alone is no help.
            let same_line = line
                .split_once("  ")
                .is_some_and(|(_, text)| !text.trim().is_empty() && !text.trim().starts_with('['));
            let next_line = lines
                .get(i + 1)
                .is_some_and(|next| !next.is_empty() && !next.starts_with(['-', '[']));
            assert!(same_line || next_line, "`{command}`: `{line}` has no help");
        }
    }
    let out = wgstress(&["run", "--help"], dir.path());
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("[possible values: on, off]"), "{help}");
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .arg("apps")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn compare_exits_1_when_a_run_fails_and_logs_start_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "compare",
            &fixture("racy.toml"),
            "--runs",
            "8",
            "--strategies",
            "none",
            "--shuffle",
            "off",
            "--rounds",
            "2",
            "--log",
            "compare.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = log_lines(&dir.path().join("compare.jsonl"));
    assert_eq!(lines[0]["type"], "start");
    assert_eq!(lines[0]["command"], "compare");
    assert!(lines[0]["master_seed"].is_string());
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["rows"][0]["runs"], 8);
}

#[test]
fn a_replay_says_how_often_the_failure_recurred() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "run",
            &fixture("racy.toml"),
            "--runs",
            "4",
            "--seed",
            "0x2a",
            "--strategy",
            "none",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    let line = table
        .lines()
        .find(|l| l.starts_with("replayed"))
        .unwrap_or_else(|| panic!("no replay line in {table}"));
    assert!(
        line.contains("seed 0x000000000000002a: failed in ") && line.contains(" of 4 runs"),
        "{line}"
    );
}

#[test]
fn profiles_are_checked_before_the_device_opens() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"adapter\": 3").unwrap();
    let counter = fixture("counter.toml");
    assert_bad_input(
        &["run", &counter, "--profile", &broken.display().to_string()],
        "broken.json: invalid type: integer `3`, expected a string at line 1 column 13",
    );
    let zero = dir.path().join("zero.json");
    let profile = serde_json::json!({
        "adapter": "any", "driver": "", "backend": "", "patch_words": 32, "sequence": "ld;st",
        "spread": 0, "patch_note": "", "patch_grid": {}, "sequence_scores": [],
        "spread_scores": [], "iterations_per_cell": 1, "seconds": 1.0,
    });
    std::fs::write(&zero, profile.to_string()).unwrap();
    assert_bad_input(
        &["run", &counter, "--profile", &zero.display().to_string()],
        "zero.json: spread = 0; give 1 to 64",
    );
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
    let lines = log_lines(&dir.path().join("wgstress-runs.jsonl"));
    assert_eq!(lines.len(), 2, "a start and a summary line");
    assert_eq!(lines[0]["command"], "mutants");
    assert_eq!(lines[1]["type"], "summary");
    assert_eq!(lines[1]["summary"], report["summary"]);
    assert_bad_input(
        &["litmus", "mp", "--stride", "32", "--distance", "131072"],
        "--y-gap puts y in a region of its own",
    );
}

#[test]
fn the_searched_environment_is_used_where_it_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let search = wgstress(
        &[
            "mutants",
            "--search",
            "0.01",
            "--search-time",
            "0.001",
            "--search-groups",
            "2",
            "--workgroup-size",
            "8",
            "--write-env",
            "env.json",
        ],
        dir.path(),
    );
    assert!(search.status.success(), "{}", stderr(&search));
    let report = String::from_utf8_lossy(&search.stdout);
    assert!(report.contains("written to       env.json"), "{report}");
    let text = std::fs::read_to_string(dir.path().join("env.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["env"]["testing_groups"], 2);
    let litmus = |env: &str| {
        let out = wgstress(
            &[
                "litmus",
                "mp",
                "--iterations",
                "2",
                "--testing-groups",
                "4",
                "--workgroup-size",
                "8",
                "--env",
                env,
                "--json",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (report["env"]["testing_groups"].clone(), stderr(&out))
    };
    let (groups, notes) = litmus("env.json");
    assert_eq!(groups, 2, "the file's environment: {notes}");
    assert!(notes.contains("wgstress: environment env.json"), "{notes}");
    let elsewhere = text.replace(file["adapter"].as_str().unwrap(), "Another GPU");
    std::fs::write(dir.path().join("other.json"), elsewhere).unwrap();
    let (groups, notes) = litmus("other.json");
    assert_eq!(groups, 4, "the options' environment: {notes}");
    assert!(notes.contains("is for Another GPU"), "{notes}");
}

#[test]
fn fences_sites_of_the_nofence_variant_are_the_buggy_variants() {
    // The guards' lines become empty lines, so sites keep their locations in the app's file.
    let dir = tempfile::tempdir().unwrap();
    let sites = |variant: &str| {
        let out = wgstress(
            &["fences", "cub-scan", "--variant", variant, "--sites"],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let nofence = sites("nofence");
    assert!(nofence.contains("wgsl/cub_scan.wgsl:"), "{nofence}");
    assert_eq!(nofence, sites("buggy"));
}
