//! `wgstress progress`: the oracle and the generator from the command line, and the suite run
//! on lavapipe, whose outcomes with one thread (LP_NUM_THREADS=1: workgroups one at a time in
//! id order, each to its end) are certain.

mod common;

use common::{wgstress, wgstress_timed};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use wgstress_progress::generate::{generate, Bounds};
use wgstress_progress::sequential::{first_stuck, gives_up};

/// The loop bound the lavapipe runs give (the default).
const BOUND: u32 = 30_000;
use wgstress_progress::suite::seed_examples;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            stderr(out)
        )
    })
}

/// The seed's examples as files in `dir`: `NAME.axb`.
fn write_examples(dir: &Path) -> Vec<String> {
    seed_examples()
        .into_iter()
        .map(|(name, test)| {
            let file = format!("{name}.axb");
            std::fs::write(dir.join(&file), test.to_string()).unwrap();
            file
        })
        .collect()
}

/// Runs wgstress on lavapipe with one thread.
fn on_one_thread(args: &[&str], dir: &Path) -> (std::process::Output, Duration) {
    let start = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .current_dir(dir)
        .env("LP_NUM_THREADS", "1")
        .output()
        .unwrap();
    (out, start.elapsed())
}

#[test]
fn the_oracle_gives_the_seeds_verdicts_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_examples(dir.path());
    let mut args = vec!["progress", "--oracle"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--json", "--evidence"]);
    let out = wgstress(&args, dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let verdict = |file: &str, model: &str, fairness: &str| {
        let entry = report
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == file)
            .unwrap();
        entry["models"][model][fairness]["terminates"]
            .as_bool()
            .unwrap()
    };
    for fairness in ["weak", "strong"] {
        assert!(verdict("mutex.axb", "obe", fairness));
        assert!(!verdict("mutex.axb", "hsa", fairness));
        assert!(verdict("prodcons-increasing.axb", "hsa", fairness));
        assert!(!verdict("prodcons-increasing.axb", "obe", fairness));
        assert!(!verdict("prodcons-decreasing.axb", "lobe", fairness));
        assert!(!verdict("mutex.axb", "unfair", fairness));
    }
    assert!(!verdict("dining-philosophers.axb", "fair", "weak"));
    assert!(verdict("dining-philosophers.axb", "fair", "strong"));
    // Where a test need not terminate, the execution that starves comes with the verdict.
    let mutex = &report[0]["models"]["hsa"]["weak"]["evidence"];
    assert_eq!(mutex["fair"], serde_json::json!([0]));
    assert!(!mutex["cycle"].as_array().unwrap().is_empty());
    // Without --evidence, the verdicts alone.
    let out = wgstress(&["progress", "--oracle", "mutex.axb", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hsa = &json(&out)[0]["models"]["hsa"]["weak"];
    assert_eq!(hsa["terminates"], false);
    assert!(hsa.get("evidence").is_none(), "{hsa}");
    // The table says the same.
    let out = wgstress(&["progress", "--oracle", "mutex.axb"], dir.path());
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table.lines().find(|l| l.starts_with("mutex.axb")).unwrap();
    let marks: Vec<&str> = row.split_whitespace().skip(1).collect();
    // unfair, HSA, OBE, HSA+OBE, LOBE, fair; weak then strong.
    assert_eq!(
        marks,
        ["-", "-", "-", "-", "yes", "yes", "yes", "yes", "yes", "yes", "yes", "yes"]
    );
}

#[test]
fn bad_test_files_and_modes_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.axb"),
        "THREAD0\natomic_store(0, 1)\nTHREAD1\natomic_chk_branch(0, 2, 0)\n",
    )
    .unwrap();
    // Eight threads of 15 stores each: every interleaving of their pcs is a state, more than
    // the oracle explores.
    let mut long = String::new();
    for t in 0..8 {
        long.push_str(&format!("THREAD{t}\n{}", "atomic_store(0, 1)\n".repeat(15)));
    }
    std::fs::write(dir.path().join("long.axb"), long).unwrap();
    let cap = format!(
        "long.axb:1:1: the test reaches more than {} states",
        wgstress_progress::MAX_STATES
    );
    std::fs::create_dir(dir.path().join("full")).unwrap();
    std::fs::write(dir.path().join("full/mine.txt"), "mine").unwrap();
    for (args, expected) in [
        (
            vec!["progress", "--oracle", "bad.axb"],
            "bad.axb:4:22: a value must be 0 or 1, found `2`",
        ),
        (
            vec!["progress", "--tests", "bad.axb"],
            "bad.axb:4:22: a value must be 0 or 1, found `2`",
        ),
        (vec!["progress", "--oracle", "long.axb"], cap.as_str()),
        (
            vec!["progress", "--oracle", "bad.axb", "--evidence"],
            "the following required arguments were not provided: --json",
        ),
        (vec!["progress", "--tests", "long.axb"], cap.as_str()),
        (vec!["progress", "--oracle", "missing.axb"], "missing.axb"),
        (
            vec!["progress"],
            "give one of --oracle FILE..., --generate DIR, --suite or --tests FILE...",
        ),
        (
            vec!["progress", "--suite", "--generate", "out"],
            "give only one of --oracle, --generate, --suite and --tests",
        ),
        (
            vec!["progress", "--generate", "full"],
            "full: not empty; --generate writes the suite into a new or empty directory, overwriting nothing",
        ),
        (
            vec!["progress", "--tests", "full/mine.txt", "--sample", "3"],
            "--sample picks tests of the suite: give it with --suite",
        ),
    ] {
        let out = wgstress(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let errors: Vec<&str> = std::str::from_utf8(&out.stderr)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("wgstress: error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{args:?}: {}", stderr(&out));
        assert!(errors[0].contains(expected), "{args:?}: {}", errors[0]);
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("full/mine.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn generate_writes_the_suite_that_the_oracle_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["progress", "--generate", "suite", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let suite = generate(&Bounds::seed());
    assert_eq!(report["tests"], suite.len());
    let files: Vec<_> = std::fs::read_dir(dir.path().join("suite"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), suite.len());
    let first = &suite[0];
    let text =
        std::fs::read_to_string(dir.path().join(format!("suite/{}.axb", first.name))).unwrap();
    assert_eq!(text, first.test.to_string());
    let rows = report["table4"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["model"], "hsa");
    assert_eq!(
        report["table4"]["weak_tests"].as_u64().unwrap()
            + report["table4"]["strong_tests"].as_u64().unwrap(),
        suite.len() as u64
    );
}

#[test]
fn every_generated_shader_is_valid_wgsl() {
    let suite = generate(&Bounds::seed());
    // A spread of the suite and the seed's examples: every instruction form, 2 and 3 threads.
    let mut shaders = Vec::new();
    let step = suite.len() / 40;
    for g in suite.iter().step_by(step).chain(suite.last()) {
        shaders.push((g.name.clone(), wgstress_progress::wgsl::shader(&g.test)));
    }
    for (name, test) in seed_examples() {
        shaders.push((name.to_string(), wgstress_progress::wgsl::shader(&test)));
    }
    // The interpreter the emulator test runs every test through.
    for threads in 1..=3 {
        shaders.push((
            format!("interpreter-{threads}"),
            wgstress_progress::interpret::shader(threads),
        ));
    }
    for (name, source) in &shaders {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{name}: {}\n{source}", e.emit_to_string(source)));
        naga::valid::Validator::new(Default::default(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    let tint: Vec<_> = shaders
        .into_iter()
        .map(|(name, source)| wgstress_tint::NamedWgsl::new(name, source))
        .collect();
    wgstress_tint::assert_valid(&tint);
}

#[test]
fn on_lavapipe_the_suite_ends_by_itself_with_the_outcomes_one_thread_must_give() {
    let dir = tempfile::tempdir().unwrap();
    let (out, took) = on_one_thread(
        &[
            "progress",
            "--suite",
            "--sample",
            "30",
            "--instances",
            "16",
            "--iterations",
            "2",
            "--json",
            "--log",
            "progress.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took < Duration::from_secs(120), "took {took:?}");
    let report = json(&out);
    let suite = generate(&Bounds::seed());
    let observed = report["observed"].as_array().unwrap();
    assert_eq!(observed.len(), 30 * 3);
    let mut hung = 0;
    for o in observed {
        let name = o["test"].as_str().unwrap();
        let test = &suite.iter().find(|g| g.name == name).unwrap().test;
        // One thread runs workgroups one at a time in id order, to their end: every mapping
        // keeps an instance's threads in id order, so an instance hangs exactly when its
        // threads run alone in id order do, every instance, every run.
        let stuck = first_stuck(test).is_some();
        let runs = o["iterations"].as_u64().unwrap();
        assert_eq!(runs, 2);
        let expected_hung = if stuck { runs } else { 0 };
        assert_eq!(o["hung_iterations"], expected_hung, "{o}");
        let instances = o["instances"].as_u64().unwrap();
        assert_eq!(
            o["hung_instances"],
            if stuck { runs * instances } else { 0 },
            "{o}"
        );
        // The threads that gave up are those that do when they run alone in id order, each
        // from the memory the ones before left, in every instance.
        let gave_up: Vec<u64> = o["gave_up"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = gives_up(test, BOUND)
            .into_iter()
            .map(|g| if g { runs * instances } else { 0 })
            .collect();
        assert_eq!(gave_up, expected, "{o}");
        hung += usize::from(stuck);
    }
    assert!(hung > 0, "the sample has tests that hang in id order");
    // That scheduler is one LOBE allows: the adapter conforms to LOBE (and so to HSA, OBE
    // and HSA+OBE), weak and strong.
    let schedulers = report["judgement"]["schedulers"].as_array().unwrap();
    for c in schedulers {
        if c["scheduler"]["model"] != "fair" {
            assert_eq!(c["violations"], serde_json::json!([]), "{c}");
        }
        if c["scheduler"]["model"] == "fair" {
            assert_ne!(c["violations"], serde_json::json!([]), "{c}");
        }
    }
    // The log: a start line, a line per test and mapping, the summary.
    let log = std::fs::read_to_string(dir.path().join("progress.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["command"], "progress");
    assert_eq!(lines.len(), 1 + 30 * 3 + 1);
    assert_eq!(lines.last().unwrap()["type"], "summary");
}

#[test]
fn on_lavapipe_the_decreasing_producer_consumer_hangs_and_the_mutex_does_not() {
    let dir = tempfile::tempdir().unwrap();
    write_examples(dir.path());
    let (out, _) = on_one_thread(
        &[
            "progress",
            "--tests",
            "mutex.axb",
            "prodcons-decreasing.axb",
            "prodcons-increasing.axb",
            "--instances",
            "64",
            "--iterations",
            "3",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let hangs: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "did not terminate:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        hangs,
        [
            "  prodcons-decreasing.axb  plain  in 3 of 3 runs",
            "  prodcons-decreasing.axb  round-robin  in 3 of 3 runs",
            "  prodcons-decreasing.axb  chunked  in 3 of 3 runs",
        ],
        "{text}"
    );
    assert!(
        text.contains("strongest models consistent with these runs: strong LOBE"),
        "{text}"
    );
    // More runs than one submission holds: every one counted.
    let (out, _) = on_one_thread(
        &[
            "progress",
            "--tests",
            "prodcons-decreasing.axb",
            "--mapping",
            "plain",
            "--iterations",
            "45",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  prodcons-decreasing.axb  plain  in 45 of 45 runs"),
        "{text}"
    );
    // llvmpipe's loops end silently at 65,535 iterations: a bound past it is refused.
    let (out, _) = wgstress_timed(
        &[
            "progress",
            "--tests",
            "mutex.axb",
            "--loop-bound",
            "70000",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--loop-bound 70000: llvmpipe"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_campaign_runs_the_suite_as_an_item_and_merge_counts_its_hung_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plan.toml"),
        "name = \"progress\"\n\n[[item]]\ncommand = \"progress\"\nsuite = true\nsample = 6\n\
         instances = 4\niterations = 2\nmapping = \"plain\"\n",
    )
    .unwrap();
    let (out, _) = on_one_thread(
        &["campaign", "plan.toml", "--out", "out", "--host", "h"],
        dir.path(),
    );
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let merged = wgstress(&["merge", "--json", "out"], dir.path());
    let report = json(&merged);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report}");
    // The suite's sample, as `--suite --sample 6` picks it: two runs each, plain.
    let suite = generate(&Bounds::seed());
    let stuck = (0..6)
        .map(|k| &suite[k * suite.len() / 6])
        .filter(|g| first_stuck(&g.test).is_some())
        .count() as u64;
    assert_eq!(rows[0]["runs"], 12, "{}", rows[0]);
    assert_eq!(rows[0]["failures"], 2 * stuck, "{}", rows[0]);
    let notes = rows[0].to_string();
    assert!(notes.contains("strongest: "), "{notes}");
}
