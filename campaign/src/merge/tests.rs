//! The merge on shard directories written here line by line in the formats the campaign
//! and the commands write (the commands' lines as typed values, through their log's writer):
//! a flake, an error, a compare cut short.

use crate::layout::{ItemFiles, SHARD_LOG};
use crate::outcome::{BaselineJudgement, SessionOutcome};
use crate::plan::Command;
use crate::shard::Shard;
use crate::shard_log::*;
use std::path::Path;
use wgstress_log::fixtures::{batch, compare_start, run_start, run_summary};
use wgstress_log::{JsonLog, Line as LogLine, Summary};
use wgstress_model::stress::strategy::Strategy;

fn item(key: &str, command: Command) -> ItemRef {
    ItemRef {
        key: key.into(),
        name: key.into(),
        command,
        description: format!("{command} {key}"),
        app_args: vec!["app.toml".into()],
    }
}

/// A shard directory: its log with `attempts` (item, attempt, exit; none: never ended) and
/// each attempt's command log, written through the commands' writer.
fn shard(dir: &Path, items: Vec<ItemRef>, attempts: &[(&str, u32, Option<i32>, Vec<LogLine>)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut log = Writer::create(&dir.join(SHARD_LOG)).unwrap();
    log.write(&Line::Start(Start {
        version: VERSION,
        host: "h".into(),
        adapter: Adapter {
            place: crate::shard_log::AdapterPlace::Listed(0),
            name: "GPU".into(),
            driver: "d 1".into(),
            backend: "Vulkan".into(),
            device_type: "DiscreteGpu".into(),
        },
        shard: Shard::WHOLE,
        plan: PlanRef {
            name: "p".into(),
            path: "p.toml".into(),
            digest: "0".into(),
            master_seed: "0x1".into(),
            items: items.len(),
        },
        items,
        started: 100.0,
    }))
    .unwrap();
    for (key, attempt, exit, lines) in attempts {
        log.write(&Line::Item(ItemStart {
            key: key.to_string(),
            attempt: *attempt,
            seed: None,
            args: Vec::new(),
            started: 101.0,
        }))
        .unwrap();
        let files = ItemFiles::new(dir, key, *attempt);
        let mut command_log = JsonLog::append_to(&files.log).unwrap();
        for line in lines {
            command_log.write(line).unwrap();
        }
        if *exit == Some(2) {
            std::fs::write(
                &files.stderr,
                "wgstress: note\nwgstress: error: the batch hung\n",
            )
            .unwrap();
        }
        if let Some(code) = exit {
            log.write(&Line::Done(ItemDone {
                key: key.to_string(),
                attempt: *attempt,
                exit: Exit::Status(*code),
                seconds: 2.0,
            }))
            .unwrap();
        }
    }
}

/// `wgstress run`'s summary line: `runs` in a second, `failures` of them failing, the first
/// (seed 0xabc) half a second in.
fn summary(runs: u64, failures: u64) -> LogLine {
    LogLine::Summary(Box::new(Summary::Run(Box::new(run_summary(
        runs, failures,
    )))))
}

#[test]
fn a_failure_that_passes_its_rerun_is_a_flake_and_an_error_is_unexpected() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![item("a", Command::Run), item("b", Command::Run)];
    let start = run_start();
    shard(
        &dir.path().join("s"),
        items,
        &[
            ("a", 0, Some(1), vec![start.clone(), summary(10, 2)]),
            ("a", 1, Some(0), vec![start.clone(), summary(10, 0)]),
            ("b", 0, Some(2), vec![start]),
        ],
    );
    let shards = super::read(&[dir.path().to_path_buf()]).unwrap();
    let report = super::merge(&shards, None, None, &|_| "--raw".into());
    let a = report.rows.iter().find(|r| r.item == "a").unwrap();
    assert_eq!((a.counts.runs, a.counts.failures), (20, 2));
    assert_eq!(
        (a.outcome, a.judgement),
        (SessionOutcome::Flaky, BaselineJudgement::Flake)
    );
    assert_eq!(a.counts.time_to_first_failure, Some(0.5));
    assert_eq!(
        a.first_failures[0].replay,
        "wgstress run app.toml --adapter GPU --seed 0xabc --raw"
    );
    let b = report.rows.iter().find(|r| r.item == "b").unwrap();
    assert_eq!(
        (b.outcome, b.judgement),
        (SessionOutcome::Error, BaselineJudgement::UnexpectedError)
    );
    assert_eq!(b.notes, ["the batch hung"]);
    assert_eq!(report.unexpected, 1, "the flake is reported, not counted");
    assert!(!report.shards[0].finished && report.shards[0].cut_short.is_empty());
}

#[test]
fn a_compare_cut_short_counts_each_configuration_to_its_last_batch() {
    let dir = tempfile::tempdir().unwrap();
    // Shuffled batches; one that failed lists its first failure, 0.25 s in.
    let line = |strategy, total, failing| LogLine::Batch(batch(strategy, total, failing));
    let lines = vec![
        compare_start(),
        line(Strategy::None, 4, 0),
        line(Strategy::Cache, 4, 1),
        line(Strategy::None, 8, 0),
        line(Strategy::Cache, 8, 3),
    ];
    shard(
        &dir.path().join("s"),
        vec![item("c", Command::Compare)],
        &[("c", 0, None, lines)],
    );
    // A shard killed before its first line: named, not counted.
    std::fs::create_dir(dir.path().join("early")).unwrap();
    std::fs::write(dir.path().join("early").join(SHARD_LOG), "").unwrap();
    let shards = super::read(&[dir.path().to_path_buf()]).unwrap();
    let report = super::merge(&shards, None, None, &|_| "--raw".into());
    let counts: Vec<_> = report
        .rows
        .iter()
        .map(|r| {
            (
                r.config.clone().unwrap(),
                r.counts.runs,
                r.counts.failures,
                r.complete,
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("cache, shuffled".to_string(), 8, 3, false),
            ("none, shuffled".to_string(), 8, 0, false)
        ]
    );
    assert_eq!(report.rows[0].outcome, SessionOutcome::Incomplete);
    assert_eq!(report.rows[0].first_failures[0].failure.after_seconds, 0.25);
    assert_eq!(report.shards[0].cut_short, ["c"]);
    assert_eq!(report.unreadable.len(), 1);
    assert!(crate::render::text(&report).contains("unreadable: "));
}

/// A shard of one item `a` that ran 10 runs in its 2 seconds, in `dir`.
fn one_item(dir: &Path) {
    let start = run_start();
    shard(
        dir,
        vec![item("a", Command::Run)],
        &[("a", 0, Some(0), vec![start, summary(10, 0)])],
    );
}

fn error(dirs: &[std::path::PathBuf]) -> String {
    super::read(dirs).unwrap_err().to_string()
}

#[test]
fn a_copy_of_a_shard_directory_is_named_and_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    one_item(&dir.path().join("a/s"));
    one_item(&dir.path().join("b/s"));
    let dirs = [dir.path().join("a"), dir.path().join("b")];
    let shards = super::read(&dirs).unwrap();
    let report = super::merge(&shards, None, None, &|_| "--raw".into());
    assert_eq!(report.rows.len(), 1);
    assert_eq!(report.rows[0].counts.runs, 10, "not 20");
    assert_eq!(report.duplicates.len(), 1);
    assert!(
        report.duplicates[0].log.contains("/b/s/"),
        "{:?}",
        report.duplicates
    );
    assert!(crate::render::text(&report).contains("duplicate: "));
}

#[test]
fn a_line_that_is_not_utf8_is_skipped_and_named_not_the_whole_merge() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s");
    one_item(&s);
    let log = ItemFiles::new(&s, "a", 0).log;
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.splice(
        0..0,
        b"{\"type\": \"note\", \"text\": \"\xff\"}\n"
            .iter()
            .copied(),
    );
    std::fs::write(&log, bytes).unwrap();
    let shards = super::read(&[dir.path().to_path_buf()]).unwrap();
    let report = super::merge(&shards, None, None, &|_| "--raw".into());
    assert_eq!(report.rows[0].counts.runs, 10);
    assert_eq!(report.damaged.len(), 1);
    assert_eq!(report.damaged[0].lines, 1);
    assert!(crate::render::text(&report).contains("damaged: "));
}

/// The shard log in `dir` with its start line's `"version":1` replaced by `with`.
fn versioned(dir: &Path, with: &str) {
    let log = dir.join(SHARD_LOG);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("\"version\":1,"), "{text}");
    std::fs::write(&log, text.replacen("\"version\":1,", with, 1)).unwrap();
}

#[test]
fn a_shard_log_without_a_version_or_of_another_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s");
    one_item(&s);
    versioned(&s, "");
    let message = error(&[dir.path().to_path_buf()]);
    assert!(
        message.ends_with(
            "shard.jsonl:1: the start line has no version: not a shard log that wgstress wrote"
        ),
        "{message}"
    );
    let s = dir.path().join("t");
    std::fs::remove_dir_all(dir.path().join("s")).unwrap();
    one_item(&s);
    versioned(&s, "\"version\":2,");
    let message = error(&[dir.path().to_path_buf()]);
    assert!(
        message.contains("shard.jsonl:1: shard log version 2; this wgstress reads version 1"),
        "{message}"
    );
}

#[test]
fn counts_no_command_writes_are_refused_rather_than_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let start = run_start();
    shard(
        &dir.path().join("s"),
        vec![item("a", Command::Run)],
        &[
            ("a", 0, Some(0), vec![start.clone(), summary(u64::MAX, 0)]),
            ("a", 1, Some(0), vec![start, summary(3, 0)]),
        ],
    );
    let message = error(&[dir.path().to_path_buf()]);
    assert!(
        message.contains(
            "18446744073709551615 runs with 0 failures: not counts a wgstress command writes"
        ),
        "{message}"
    );
}

#[test]
fn an_item_killed_before_it_ended_counts_the_seconds_of_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    // 8 runs so far, none failing, in 0.5 s.
    let cut_short = LogLine::Batch(batch(Strategy::None, 8, 0));
    shard(
        &dir.path().join("s"),
        vec![item("a", Command::Run), item("k", Command::Run)],
        &[
            ("a", 0, Some(0), vec![run_start(), summary(10, 0)]),
            ("k", 0, None, vec![run_start(), cut_short]),
        ],
    );
    let shards = super::read(&[dir.path().to_path_buf()]).unwrap();
    let report = super::merge(&shards, None, None, &|_| "--raw".into());
    let gpu = &report.gpus[0];
    assert_eq!((gpu.runs, gpu.busy_seconds), (18, 2.5));
    assert_eq!(gpu.runs_per_second, 18.0 / 2.5);
}

#[test]
fn nothing_to_merge_when_no_shard_log_has_its_start_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("early")).unwrap();
    std::fs::write(dir.path().join("early").join(SHARD_LOG), "").unwrap();
    let message = error(&[dir.path().to_path_buf()]);
    assert!(
        message.contains("nothing to merge: every shard.jsonl under"),
        "{message}"
    );
}

/// The command log of item `a` of a shard whose item logs `lines`, with the first `field`
/// (a JSON key, which must occur once) renamed `to`: the merge's error, and the place it
/// must name (the log, and the number of the line that held the field).
fn renamed(lines: Vec<LogLine>, field: &str, to: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s");
    shard(
        &s,
        vec![item("a", Command::Run)],
        &[("a", 0, Some(0), lines)],
    );
    let log = ItemFiles::new(&s, "a", 0).log;
    let text = std::fs::read_to_string(&log).unwrap();
    let key = format!("\"{field}\":");
    assert_eq!(text.matches(&key).count(), 1, "{key} once in {text}");
    let number = 1 + text.lines().position(|l| l.contains(&key)).unwrap();
    std::fs::write(&log, text.replacen(&key, &format!("\"{to}\":"), 1)).unwrap();
    let at = format!(
        "{}:{number}: ",
        std::fs::canonicalize(&log).unwrap().display()
    );
    (error(&[dir.path().to_path_buf()]), at)
}

#[test]
fn a_command_log_line_with_a_field_renamed_is_refused_naming_its_file_and_line() {
    // The summary merge counts from: its wall-clock seconds, a field merge does not use.
    let (message, at) = renamed(vec![run_start(), summary(10, 0)], "wall_seconds", "wall");
    assert!(message.contains(&at), "{at} in {message}");
    assert!(message.contains("wall_seconds"), "{message}");
    // A batch line before the summary, which merge reads but does not count from.
    let lines = vec![
        run_start(),
        LogLine::Batch(batch(Strategy::None, 8, 0)),
        summary(10, 0),
    ];
    let (message, at) = renamed(lines, "total_runs", "total");
    assert!(message.contains(&at), "{at} in {message}");
    assert!(message.contains("`total`"), "{message}");
}
