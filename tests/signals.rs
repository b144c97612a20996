//! SIGINT and SIGTERM stop every command with a summary of what it gathered (exit 130 and 143),
//! on lavapipe, even when the signals were ignored by the process that started it (a
//! shell's background job inherits SIGINT ignored); a campaign passes them on to the item it
//! runs, which stops the same way rather than run on.

mod common;
use common::fixture;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Starts wgstress with `args` in `dir` as a background job of a script: SIGINT ignored.
fn start(args: &[&str], dir: &Path) -> Child {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' INT; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `signal` (INT, TERM) to `child` `after` a line of its stderr first contains `when`,
/// then waits for it (at most `within` after the signal); returns its output and its stderr.
fn signal_when(
    mut child: Child,
    when: &str,
    after: Duration,
    signal: &str,
    within: Duration,
) -> (Output, String) {
    use std::io::Read;
    let stderr = BufReader::new(child.stderr.take().unwrap());
    // Read as it comes: a report larger than a pipe holds would block the command.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let mut seen = Vec::new();
    let mut sent = None;
    for line in stderr.lines() {
        let line = line.unwrap();
        if sent.is_none() && line.contains(when) {
            std::thread::sleep(after);
            // SAFETY: kill(2) on our own child's pid.
            let number = match signal {
                "INT" => libc::SIGINT,
                "TERM" => libc::SIGTERM,
                other => panic!("no signal {other}"),
            };
            assert_eq!(unsafe { libc::kill(child.id() as i32, number) }, 0);
            sent = Some(Instant::now());
        }
        seen.push(line);
    }
    let mut out = child.wait_with_output().unwrap();
    out.stdout = reader.join().unwrap();
    let stderr = seen.join("\n");
    let sent = sent.unwrap_or_else(|| panic!("never saw {when:?}:\n{stderr}"));
    assert!(
        sent.elapsed() < within,
        "took {:?} after the signal:\n{stderr}",
        sent.elapsed()
    );
    (out, stderr)
}

fn json(out: &Output, stderr: &str) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)))
}

fn log_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn sigterm_stops_run_with_its_summary_and_exit_143() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["run", &fixture("counter.toml"), "--time", "120"])
        .args(["--batch", "4", "--iterations", "8", "--json", "--log"])
        .arg(&log)
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // The start line, then batches of 1, 4 and 4 runs: 9 logged before the signal.
    while log_lines(&log).len() < 4 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let summary = json(&out, "");
    assert_eq!(summary["interrupted"], true);
    assert!(summary["runs"].as_u64().unwrap() >= 8, "{summary}");
    let last = log_lines(&log).pop().unwrap();
    assert_eq!(
        (&last["type"], &last["runs"]),
        (&"summary".into(), &summary["runs"])
    );
}

#[test]
fn sigterm_stops_fences_with_its_report_and_exit_143() {
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args([
            "fences",
            &fixture("flag.toml"),
            "--budget",
            "1",
            "--verify",
            "120",
        ])
        .args(["--no-log", "--json", "-o", "patched.wgsl"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out, stderr) = signal_when(
        child,
        "verifying the fix",
        Duration::ZERO,
        "TERM",
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let report = json(&out, &stderr);
    assert_eq!(report["verdict"], "interrupted", "{report}");
    assert_eq!(report["during"], "the verification", "{report}");
    assert!(!dir.path().join("patched.wgsl").exists());
}

/// A shader of `n` small functions, each calling the one before: start-up (instrumenting it,
/// naga's and the driver's compiles) takes many seconds, and gathers nothing.
fn many_functions(n: usize) -> String {
    let mut wgsl = String::from(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         fn f0(x: u32) -> u32 { return x + 1u; }\n",
    );
    for i in 1..n {
        wgsl.push_str(&format!(
            "fn f{i}(x: u32) -> u32 {{ return f{}(x * {i}u + 1u); }}\n",
            i - 1
        ));
    }
    wgsl.push_str(&format!(
        "@compute @workgroup_size(1)\nfn main() {{ out[0] = f{}(out[0]); }}\n",
        n - 1
    ));
    wgsl
}

#[test]
fn sigterm_during_start_up_quits_at_once_with_exit_143() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.wgsl"), many_functions(3000)).unwrap();
    std::fs::write(
        dir.path().join("big.toml"),
        "shader = \"big.wgsl\"\nworkgroups = [1]\n\n[[binding]]\nname = \"out\"\n\
         binding = 0\nkind = \"storage\"\nwords = 1\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["run", "big.toml", "--runs", "1", "--no-log"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Past the plan (it reads and parses the files), inside the engine's start-up.
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        child.try_wait().unwrap().is_none(),
        "start-up ended within 2 s: the shader no longer measures it"
    );
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(5) {
            child.kill().unwrap();
            panic!("start-up went on for 5 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143));
}

#[test]
fn ctrl_c_stops_the_mutants_suite_with_the_tests_that_ran() {
    let dir = tempfile::tempdir().unwrap();
    let child = start(
        &[
            "mutants", "--tests", "mutants", "--time", "2", "--json", "--no-log",
        ],
        dir.path(),
    );
    // Half a second after the first test's line, the second (2 s) is running. At the line
    // itself it may not have started yet: the suite then ends with the first test alone.
    let (out, stderr) = signal_when(
        child,
        "mutant (",
        Duration::from_millis(500),
        "INT",
        Duration::from_secs(10),
    );
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let report = json(&out, &stderr);
    assert_eq!(report["interrupted"], true, "{report}");
    let ran = report["results"].as_array().unwrap().len();
    assert!((2..32).contains(&ran), "{ran} of 32 tests ran: {report}");
    assert_eq!(report["tests"], 32);
}

#[test]
fn sigterm_stops_the_mutants_search_and_keeps_the_best_environment_scored() {
    let dir = tempfile::tempdir().unwrap();
    let child = start(
        &[
            "mutants",
            "--search",
            "300",
            "--search-time",
            "0.02",
            "--search-groups",
            "64",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    let (out, stderr) = signal_when(
        child,
        "env   1 ",
        Duration::ZERO,
        "TERM",
        Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let report = json(&out, &stderr);
    assert_eq!(report["interrupted"], true, "{report}");
    assert!(report["seconds"].as_f64().unwrap() < 200.0, "{report}");
    let best = report["best"].as_u64().expect("one environment scored") as usize;
    let scored = &report["candidates"][best];
    assert_eq!(scored["rates"].as_array().unwrap().len(), 32, "{report}");
    let env: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("wgstress-env.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(env["env"], scored["env"]);
}

#[test]
fn ctrl_c_stops_tune_with_what_it_saw_and_writes_no_profile() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let child = start(
        &[
            "tune",
            "--iterations-per-cell",
            "50",
            "--log",
            log.to_str().unwrap(),
        ],
        dir.path(),
    );
    let (out, stderr) = signal_when(
        child,
        "tuning",
        Duration::ZERO,
        "INT",
        Duration::from_secs(20),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stdout.contains("interrupted      after "), "{stdout}");
    assert!(
        stdout.contains("none written: the tune did not finish"),
        "{stdout}"
    );
    assert!(!dir.path().join("wgstress-profile.json").exists());
    let last = log_lines(&log).pop().unwrap();
    assert_eq!(
        (&last["type"], &last["interrupted"]),
        (&"summary".into(), &true.into())
    );
}

/// The processes whose command line names `marker` (a path of record's scratch directory).
fn processes_naming(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        // A zombie's command line is empty: it has ended, only its parent has not reaped it.
        if cmdline.contains(marker) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

/// Runs `record ARGS` in `dir`, with its temporary directory in `dir/tmp`, until a line of
/// its stderr contains `when`; then sends `signal` and checks that record ended by it, and
/// that no process it started (Node, Chromium and Chromium's own) and no temporary directory
/// of it is left.
fn record_ends_its_children(args: &[&str], dir: &Path, when: &str, signal: &str) {
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let child = Command::new("sh")
        .arg("-c")
        .arg("trap '' INT; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_wgstress"))
        .arg("record")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (out, stderr) = signal_when(
        child,
        when,
        Duration::from_millis(500),
        signal,
        Duration::from_secs(60),
    );
    let expected = if signal == "INT" { 130 } else { 143 };
    assert_eq!(out.status.code(), Some(expected), "{stderr}");
    // What the kernel still has to tear down goes within a few seconds.
    let marker = format!("wgstress-record-{pid}-");
    let until = Instant::now() + Duration::from_secs(20);
    let mut left = processes_naming(&marker);
    while !left.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        left = processes_naming(&marker);
    }
    let dirs: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("wgstress-record-"))
        .collect();
    for p in &left {
        // Not to leave them running past a failed test either.
        if let Some(pid) = p.split(':').next().and_then(|p| p.parse::<i32>().ok()) {
            // SAFETY: kill(2) on a process this test's command started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    assert!(left.is_empty(), "left running: {left:#?}\n{stderr}");
    assert!(dirs.is_empty(), "left behind: {dirs:?}\n{stderr}");
}

#[test]
fn sigterm_to_record_of_a_node_program_leaves_no_node_behind() {
    let dir = tempfile::tempdir().unwrap();
    // A program that runs until it is stopped, and starts a child of its own.
    std::fs::write(
        dir.path().join("forever.mjs"),
        "import { spawn } from 'node:child_process';\n\
         spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', process.execArgv.join(' ')], { stdio: 'ignore' });\n\
         console.log('running');\n\
         setInterval(() => {}, 1000);\n",
    )
    .unwrap();
    record_ends_its_children(
        &[
            "--out",
            "spec",
            "--time",
            "600",
            "--",
            "node",
            "forever.mjs",
        ],
        dir.path(),
        "running",
        "TERM",
    );
}

#[test]
fn ctrl_c_to_record_of_a_page_leaves_no_chromium_behind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("forever.html"),
        "<!doctype html><script>console.log('running'); setInterval(() => {}, 1000);</script>",
    )
    .unwrap();
    record_ends_its_children(
        &[
            "--out",
            "spec",
            "--time",
            "600",
            "--browser",
            "forever.html",
        ],
        dir.path(),
        "page: running",
        "INT",
    );
}
