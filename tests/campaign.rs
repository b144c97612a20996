//! `wgstress campaign` and `wgstress merge`, run as a user runs them, on lavapipe: shards
//! that add up to the unsharded campaign, simulated hosts, a killed shard, baselines and
//! re-runs, every adapter lavapipe offers.

mod common;

use common::{fixture, json_lines, wgstress};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes a plan into `dir`; `{racy}` and `{counter}` stand for the fixtures' paths.
fn plan(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("plan.toml");
    let text = text
        .replace("{racy}", &fixture("racy.toml"))
        .replace("{counter}", &fixture("counter.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Three items: one that fails every run on lavapipe (a counter without atomics), one that
/// passes, and a comparison of two strategies. Iterations are given: no calibration.
const THREE: &str = r#"
name = "three"
master_seed = 42

[defaults.run]
runs = 24
iterations = 64

[[item]]
command = "run"
app = ["{racy}", "{counter}"]

[[item]]
command = "compare"
app = "{counter}"
runs = 8
strategies = ["none", "cache"]
shuffle = "on"
iterations = 64
cache_mib = 1
"#;

fn campaign(plan: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "campaign".to_string(),
        plan.display().to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    wgstress(&args, plan.parent().unwrap())
}

/// `wgstress merge --json` of `dirs`: the report and the exit status.
fn merge(dirs: &[&Path], extra: &[&str]) -> (Value, Option<i32>) {
    let mut args = vec!["merge".to_string(), "--json".to_string()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = wgstress(&args, dirs[0]);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (report, out.status.code())
}

/// Per row (item and configuration): runs, failures, and the first failure's seed.
fn counts(report: &Value) -> Vec<(String, String, u64, u64, Option<String>)> {
    let mut rows: Vec<_> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["item"].as_str().unwrap().to_string(),
                r["config"].as_str().unwrap_or_default().to_string(),
                r["runs"].as_u64().unwrap(),
                r["failures"].as_u64().unwrap(),
                r["first_failures"][0]["seed"].as_str().map(str::to_string),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn four_shards_add_up_to_the_unsharded_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path(), THREE);
    let whole = dir.path().join("whole");
    let out = campaign(&plan, &whole, &["--host", "h"]);
    // The racy counter fails, and nothing expected it to.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let sharded = dir.path().join("sharded");
    let mut ran = 0;
    for i in 0..4 {
        let out = campaign(
            &plan,
            &sharded,
            &["--host", "h", "--shard", &format!("{i}/4")],
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        ran += stdout(&out).lines().filter(|l| l.starts_with('#')).count();
    }
    assert_eq!(ran, 3, "every item ran in exactly one shard");
    let (one, _) = merge(&[&whole], &[]);
    let (four, code) = merge(&[&sharded], &[]);
    assert_eq!(code, Some(1));
    let rows = counts(&one);
    assert_eq!(
        rows.len(),
        4,
        "two runs and compare's two configurations: {rows:?}"
    );
    assert_eq!(
        rows,
        counts(&four),
        "the same runs, failures and first failing seeds"
    );
    let racy = rows.iter().find(|r| r.0.contains("racy")).unwrap();
    assert_eq!((racy.2, racy.3), (24, 24));
    assert!(racy.4.is_some());
    assert_eq!(four["shards"].as_array().unwrap().len(), 4);
    assert_eq!(four["missing"], serde_json::json!([]));
    assert_eq!(one["total"]["runs"], four["total"]["runs"]);
}

#[test]
fn shards_on_two_hosts_merge_with_a_row_per_host_and_name_the_missing() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("[defaults.run]\niterations = 64\n");
    for runs in [5, 6, 7, 8] {
        text.push_str(&format!(
            "\n[[item]]\ncommand = \"run\"\napp = \"{{counter}}\"\nruns = {runs}\n"
        ));
    }
    let plan = plan(dir.path(), &text);
    let out_dir = dir.path().join("out");
    let alpha = campaign(&plan, &out_dir, &["--host", "alpha", "--shard", "0/2"]);
    assert_eq!(alpha.status.code(), Some(0), "{}", stderr(&alpha));
    let (partial, _) = merge(&[&out_dir], &[]);
    assert_eq!(partial["missing"][0]["missing"], serde_json::json!([1]));
    // The second shard's index comes from Slurm's array variables.
    let beta = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["campaign", plan.to_str().unwrap(), "--out"])
        .arg(&out_dir)
        .args(["--host", "beta"])
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .output()
        .unwrap();
    assert_eq!(beta.status.code(), Some(0), "{}", stderr(&beta));
    assert!(stderr(&beta).contains("shard 1/2"), "{}", stderr(&beta));
    let (report, code) = merge(&[&out_dir], &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report["missing"], serde_json::json!([]));
    let hosts: Vec<&str> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts.len(), 4);
    assert!(
        hosts.contains(&"alpha") && hosts.contains(&"beta"),
        "{hosts:?}"
    );
    assert_eq!(report["total"]["hosts"], 2);
    assert_eq!(report["total"]["runs"], 5 + 6 + 7 + 8);
    let text = stdout(&wgstress(&["merge", out_dir.to_str().unwrap()], dir.path()));
    assert!(text.contains("from 2 hosts"), "{text}");
}

/// The item logs (not the shard's own) under `dir`, recursively.
fn item_logs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(item_logs(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl")
            && path.file_name().is_some_and(|n| n != "shard.jsonl")
        {
            out.push(path);
        }
    }
    out
}

/// A shard of a long run and a short one, in a process group of its own (killed whole, as
/// Slurm kills a job at its time limit, or signalled as a terminal's Ctrl-C signals), once
/// its first item's log holds `batches` batches: the shard and its output directory.
fn shard_in_its_first_item(dir: &Path, stdout: Stdio, batches: usize) -> (Child, PathBuf) {
    use std::os::unix::process::CommandExt;
    let plan = plan(
        dir,
        "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\ntime = 120\niterations = 64\nbatch = 4\n\n\
         [[item]]\ncommand = \"run\"\napp = \"{racy}\"\nruns = 10\niterations = 64\n",
    );
    let out = dir.join("out");
    let shard = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["campaign", plan.to_str().unwrap(), "--out"])
        .arg(&out)
        .args(["--host", "h"])
        .process_group(0)
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let logged = || {
        item_logs(&out)
            .iter()
            .flat_map(|l| json_lines(l))
            .filter(|l| l["type"] == "batch")
            .count()
    };
    while logged() < batches && start.elapsed() < Duration::from_secs(90) {
        std::thread::sleep(Duration::from_millis(50));
    }
    (shard, out)
}

#[test]
fn a_killed_shard_leaves_logs_that_merge_counts_and_reports_as_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let (mut shard, out) = shard_in_its_first_item(dir.path(), Stdio::null(), 3);
    // SAFETY: kill(2) on our own child's process group.
    assert_eq!(
        unsafe { libc::kill(-(shard.id() as i32), libc::SIGKILL) },
        0
    );
    shard.wait().unwrap();
    // The item, in a process group of its own, got SIGTERM from the kernel as the campaign
    // died, and stopped with its summary instead of running on.
    let start = Instant::now();
    let summary = || {
        item_logs(&out)
            .iter()
            .flat_map(|l| json_lines(l))
            .find(|l| l["type"] == "summary")
    };
    while summary().is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let summary = summary().expect("the item stopped with its summary");
    assert_eq!(summary["interrupted"], true, "{summary}");
    let (report, code) = merge(&[&out], &[]);
    assert_eq!(code, Some(0), "cut short is no verdict: {report}");
    let shard = &report["shards"][0];
    assert_eq!(shard["finished"], false);
    assert_eq!(shard["cut_short"].as_array().unwrap().len(), 1, "{shard}");
    assert_eq!(shard["not_run"].as_array().unwrap().len(), 1, "{shard}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0]["runs"].as_u64().unwrap() >= 3, "its batches count");
    assert_eq!(rows[0]["runs"], summary["runs"]);
    assert_eq!(rows[0]["outcome"], "incomplete");
    let text = stdout(&wgstress(&["merge", out.to_str().unwrap()], dir.path()));
    assert!(text.contains("cut short: shard 0/1 on h #0"), "{text}");
}

#[test]
fn ctrl_c_stops_the_shard_after_the_items_running_and_merge_says_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let (shard, out) = shard_in_its_first_item(dir.path(), Stdio::piped(), 2);
    // As a terminal's Ctrl-C: to the campaign and the command it runs.
    // SAFETY: kill(2) on our own child's process group.
    assert_eq!(unsafe { libc::kill(-(shard.id() as i32), libc::SIGINT) }, 0);
    let ended = shard.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(130));
    assert!(
        stdout(&ended).contains(": incomplete (incomplete; interrupted)"),
        "{}",
        stdout(&ended)
    );
    let (report, code) = merge(&[&out], &[]);
    assert_eq!(code, Some(0));
    let shard = &report["shards"][0];
    assert_eq!(
        (&shard["finished"], &shard["interrupted"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    assert_eq!(
        shard["not_run"].as_array().unwrap().len(),
        1,
        "the next item did not start"
    );
    let row = &report["rows"][0];
    assert_eq!(
        row["complete"], true,
        "the command wrote its summary: {row}"
    );
    // Every run the command counted, at least one per batch seen before the signal.
    let logged = item_logs(&out)
        .iter()
        .flat_map(|l| json_lines(l))
        .find(|l| l["type"] == "summary")
        .unwrap();
    assert_eq!(row["runs"], logged["runs"]);
    assert!(row["runs"].as_u64().unwrap() >= 2, "{row}");
    let text = stdout(&wgstress(&["merge", out.to_str().unwrap()], dir.path()));
    assert!(text.contains("interrupted: shard 0/1 on h #0"), "{text}");
}

#[test]
fn sigterm_to_the_campaign_alone_stops_its_item_with_a_summary_and_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let (shard, out) = shard_in_its_first_item(dir.path(), Stdio::piped(), 2);
    // As `kill PID` or a scheduler sends it: to the campaign's process, not its item's.
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(shard.id() as i32, libc::SIGTERM) }, 0);
    let ended = shard.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(143), "{}", stdout(&ended));
    // The item got the signal too, and ended with its summary rather than run on.
    let logs = item_logs(&out);
    let logged: Vec<Value> = logs.iter().flat_map(|l| json_lines(l)).collect();
    assert_eq!(logged.last().unwrap()["type"], "summary", "{logged:?}");
    assert_eq!(logged.last().unwrap()["interrupted"], true);
    let shard_log = json_lines(&logs[0].parent().unwrap().join("shard.jsonl"));
    let done: Vec<&Value> = shard_log.iter().filter(|l| l["type"] == "done").collect();
    assert_eq!(done.len(), 1, "{shard_log:?}");
    assert_eq!(
        done[0]["exit"],
        serde_json::json!({"status": 143}),
        "{shard_log:?}"
    );
    let (report, code) = merge(&[&out], &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report["shards"][0]["interrupted"], true);
    assert_eq!(report["rows"][0]["complete"], true, "{report}");
}

/// A baseline file of `[[expect]]` entries: (item pattern, outcome).
fn baseline(dir: &Path, name: &str, entries: &[(&str, &str)]) -> PathBuf {
    let path = dir.join(name);
    let text: String = entries
        .iter()
        .map(|(item, outcome)| {
            format!("[[expect]]\nitem = \"{item}\"\nadapter = \"*llvmpipe*\"\noutcome = \"{outcome}\"\n\n")
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn baselines_decide_the_exit_status_and_unexpected_failures_are_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        "[defaults.run]\nruns = 6\niterations = 64\n\n[[item]]\ncommand = \"run\"\nname = \"racy\"\napp = \"{racy}\"\n\n\
         [[item]]\ncommand = \"run\"\nname = \"counter\"\napp = \"{counter}\"\n",
    );
    let out = dir.path().join("out");
    let ran = campaign(&plan, &out, &["--host", "h", "--rerun-unexpected", "2"]);
    assert_eq!(ran.status.code(), Some(1), "{}", stderr(&ran));
    assert!(
        stdout(&ran).contains("#0 racy: fail (unexpected fail; failed, then failed, then failed)"),
        "a regression fails its re-runs too: {}",
        stdout(&ran)
    );
    let reruns = item_logs(&out)
        .iter()
        .filter(|l| l.to_string_lossy().contains(".rerun-"))
        .count();
    assert_eq!(reruns, 2);
    let cases = [
        ("expected.toml", vec![("racy", "fail")], Some(0), "expected"),
        (
            "flaky.toml",
            vec![("racy", "flaky"), ("count*", "flaky")],
            Some(0),
            "expected",
        ),
        (
            "pass.toml",
            vec![("racy", "fail"), ("counter", "fail")],
            Some(1),
            "unexpected_pass",
        ),
        (
            "fail.toml",
            vec![("counter", "pass")],
            Some(1),
            "unexpected_fail",
        ),
    ];
    for (name, entries, code, judgement) in cases {
        let file = baseline(dir.path(), name, &entries);
        let (report, status) = merge(&[&out], &["--baseline", file.to_str().unwrap()]);
        assert_eq!(status, code, "{name}");
        let judged: Vec<&str> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["judgement"].as_str().unwrap())
            .collect();
        assert!(judged.contains(&judgement), "{name}: {judged:?}");
    }
    let (report, _) = merge(&[&out], &[]);
    let racy = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["item"] == "racy")
        .unwrap();
    assert_eq!(racy["runs"], 18, "the re-runs' runs are pooled");
    assert_eq!(racy["sessions"], 1);
    // With the failure expected, the shard passes and re-runs nothing.
    let expected = baseline(dir.path(), "known.toml", &[("racy", "fail")]);
    let again = campaign(
        &plan,
        &dir.path().join("again"),
        &[
            "--baseline",
            expected.to_str().unwrap(),
            "--rerun-unexpected",
            "2",
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", stdout(&again));
    assert!(
        stdout(&again).contains("#0 racy: fail (expected; failed)"),
        "{}",
        stdout(&again)
    );
}

/// The Vulkan driver manifest of lavapipe, listed twice: two identical adapters, as on a host
/// with several GPUs of one model.
fn two_lavapipes(dir: &Path) -> String {
    let icd = std::fs::read_dir("/usr/share/vulkan/icd.d")
        .expect("Mesa's Vulkan drivers are installed (mesa-vulkan-drivers)")
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("lvp_icd")
        })
        .expect("lavapipe's driver manifest");
    let copy = dir.join("lvp-again.json");
    std::fs::copy(&icd, &copy).unwrap();
    format!("{}:{}", icd.display(), copy.display())
}

#[test]
fn adapter_all_runs_a_worker_per_adapter_lavapipe_offers() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        dir.path(),
        "[[item]]\ncommand = \"run\"\napp = [\"{counter}\", \"{racy}\"]\nruns = 6\niterations = 64\n",
    );
    let one = dir.path().join("one");
    let out = campaign(&plan, &one, &["--adapter", "all", "--host", "h"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let (report, _) = merge(&[&one], &[]);
    assert_eq!(report["total"]["gpus"], 1, "lavapipe alone is one adapter");
    let two = dir.path().join("two");
    let out = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args([
            "campaign",
            plan.to_str().unwrap(),
            "--adapter",
            "all:LLVMpipe",
            "--host",
            "h",
            "--out",
        ])
        .arg(&two)
        .env("VK_DRIVER_FILES", two_lavapipes(dir.path()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let gpus: Vec<String> = std::fs::read_dir(two.join("h"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(gpus.len(), 2, "{gpus:?}");
    assert!(
        gpus.iter().any(|g| g.starts_with("gpu1-llvmpipe")),
        "{gpus:?}"
    );
    // Each worker's children were given their own adapter, by its place.
    for gpu in &gpus {
        let place = format!("#{}", &gpu[3..4]);
        let log = json_lines(&two.join("h").join(gpu).join("shard-0/shard.jsonl"));
        let items: Vec<&Value> = log.iter().filter(|l| l["type"] == "item").collect();
        assert_eq!(items.len(), 2);
        for item in items {
            let args: Vec<&str> = item["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert!(
                args.windows(2).any(|w| w == ["--adapter", place.as_str()]),
                "{gpu}: {args:?}"
            );
        }
    }
    let (report, code) = merge(&[&two], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(report["total"]["gpus"], 2);
    assert_eq!(
        report["rows"].as_array().unwrap().len(),
        4,
        "two items on two GPUs"
    );
    let pooled = report["models"].as_array().unwrap();
    assert_eq!(pooled.len(), 2, "one adapter model: the GPUs pooled");
    assert_eq!(pooled[0]["gpus"].as_array().unwrap().len(), 2);
    for gpu in report["gpus"].as_array().unwrap() {
        assert_eq!(gpu["runs"], 12, "{gpu}");
    }
}

#[test]
fn bad_campaigns_and_merges_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\nruns = 0\n",
            "plan.toml:1:1: `run ",
        ),
        (
            "[[item]]\ncommand = \"run\"\napp = \"no-such-app\"\n",
            "no bundled application or spec file named `no-such-app`",
        ),
        (
            "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\nbogus = true\n",
            "unexpected argument '--bogus'",
        ),
        (
            "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\njson = true\n",
            "plan.toml:4:8: `json` is set by the campaign",
        ),
        ("items = 3\n", "plan.toml:1:1: unknown field `items`"),
        (
            "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\nruns = [5, 6]\n",
            "invalid value '5,6' for '--runs",
        ),
    ];
    for (text, expected) in cases {
        let plan = plan(dir.path(), text);
        let out = campaign(&plan, &dir.path().join("out"), &[]);
        assert_eq!(out.status.code(), Some(2), "{text}");
        let text_err = stderr(&out);
        let errors: Vec<&str> = text_err
            .lines()
            .filter(|l| l.starts_with("wgstress: error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{}", stderr(&out));
        assert!(
            errors[0].contains(expected),
            "{text}: `{}` lacks `{expected}`",
            errors[0]
        );
    }
    let plan = plan(
        dir.path(),
        "[[item]]\ncommand = \"run\"\napp = \"{counter}\"\nruns = 2\niterations = 64\n",
    );
    let out_dir = dir.path().join("out");
    for (args, expected) in [
        (vec!["--shard", "2/2"], "`2/2` is not a shard"),
        (
            vec!["--adapter", "no-such-gpu"],
            "no adapter matches `no-such-gpu`",
        ),
        (vec!["--adapter", "#9"], "no adapter matches `#9`"),
        (
            vec!["--adapter", "all:no-such-gpu"],
            "no adapter matches `all:no-such-gpu`",
        ),
    ] {
        let out = campaign(&plan, &out_dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        campaign(&plan, &out_dir, &["--host", "h"]).status.code(),
        Some(0)
    );
    let again = campaign(&plan, &out_dir, &["--host", "h"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("shard 0 already ran here"),
        "{}",
        stderr(&again)
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = wgstress(&["merge", empty.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no shard.jsonl under"),
        "{}",
        stderr(&out)
    );
    let out = wgstress(&["merge", "nowhere"], dir.path());
    assert!(
        stderr(&out).contains("nowhere: no such directory"),
        "{}",
        stderr(&out)
    );
    // The run's own log with one field of its summary renamed (as a wgstress of another
    // schema might write it): merge refuses the line, naming it, rather than counting it.
    let logs = item_logs(&out_dir);
    assert_eq!(logs.len(), 1, "{logs:?}");
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    let key = "\"wall_seconds\":";
    assert_eq!(text.matches(key).count(), 1, "{text}");
    let number = 1 + text.lines().position(|l| l.contains(key)).unwrap();
    std::fs::write(&logs[0], text.replacen(key, "\"wall\":", 1)).unwrap();
    let out = wgstress(&["merge", out_dir.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let at = format!(
        "wgstress: error: {}:{number}: ",
        std::fs::canonicalize(&logs[0]).unwrap().display()
    );
    let text_err = stderr(&out);
    let errors: Vec<&str> = text_err
        .lines()
        .filter(|l| l.starts_with("wgstress: error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{text_err}");
    assert!(!text_err.contains("panicked"), "{text_err}");
    assert!(
        errors[0].starts_with(&at) && errors[0].contains("wall_seconds"),
        "{} lacks {at}",
        errors[0]
    );
}

#[test]
fn merge_writes_an_html_page_with_a_chart_of_rates_per_adapter() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path(), "[[item]]\ncommand = \"run\"\nname = \"racy\"\napp = \"{racy}\"\nruns = 4\niterations = 64\n");
    let out = dir.path().join("out");
    campaign(&plan, &out, &["--host", "h"]);
    let page = dir.path().join("report.html");
    let merged = wgstress(
        &[
            "merge",
            out.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
    let text = stdout(&merged);
    assert!(text.contains("4 / 4  100.0%"), "{text}");
    assert!(
        text.contains("wgstress run ") && text.contains("--seed 0x"),
        "the replay: {text}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg") && html.contains("</svg>"));
    assert!(
        html.contains("<title>llvmpipe"),
        "a bar per adapter: {html}"
    );
    assert!(html.contains("class=\"unexpected\""));
}
