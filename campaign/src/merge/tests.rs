//! The merge on shard directories written here line by line in the formats the campaign
//! and the commands write: a flake, an error, a compare cut short.

use crate::layout::{ItemFiles, SHARD_LOG};
use crate::outcome::{Judgement, Outcome};
use crate::plan::Command;
use crate::record::*;
use crate::shard::Shard;
use serde_json::json;
use std::path::Path;

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
/// each attempt's command log.
fn shard(
    dir: &Path,
    items: Vec<ItemRef>,
    attempts: &[(&str, u32, Option<i32>, Vec<serde_json::Value>)],
) {
    std::fs::create_dir_all(dir).unwrap();
    let mut log = Writer::create(&dir.join(SHARD_LOG)).unwrap();
    log.write(&Line::Start(Start {
        version: VERSION,
        host: "h".into(),
        adapter: Adapter {
            index: 0,
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
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&files.log, text).unwrap();
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

fn summary(runs: u64, failures: u64) -> serde_json::Value {
    let first = json!({"run": 3, "seconds": 0.5, "seed": "0xabc", "outcome": "postcondition",
        "detail": "wrong", "replay": {"mode": "raw"}});
    json!({"type": "summary", "runs": runs, "failures": failures, "seconds": 1.0,
        "time_to_first_failure": if failures > 0 { json!(0.5) } else { json!(null) },
        "first_failure": if failures > 0 { first } else { json!(null) }})
}

#[test]
fn a_failure_that_passes_its_rerun_is_a_flake_and_an_error_is_unexpected() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![item("a", Command::Run), item("b", Command::Run)];
    let start = json!({"type": "start"});
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
    assert_eq!((a.outcome, a.judgement), (Outcome::Flaky, Judgement::Flake));
    assert_eq!(a.counts.time_to_first_failure, Some(0.5));
    assert_eq!(
        a.first_failures[0].replay,
        "wgstress run app.toml --adapter GPU --seed 0xabc --raw"
    );
    let b = report.rows.iter().find(|r| r.item == "b").unwrap();
    assert_eq!(
        (b.outcome, b.judgement),
        (Outcome::Error, Judgement::UnexpectedError)
    );
    assert_eq!(b.notes, ["the batch hung"]);
    assert_eq!(report.unexpected, 1, "the flake is reported, not counted");
    assert!(!report.shards[0].finished && report.shards[0].cut_short.is_empty());
}

#[test]
fn a_compare_cut_short_counts_each_configuration_to_its_last_batch() {
    let dir = tempfile::tempdir().unwrap();
    let batch = |strategy: &str, total: u64, postcondition: u64| {
        let failures = match postcondition {
            0 => json!([]),
            _ => {
                json!([{"failure": {"run": 1, "seconds": 0.25, "seed": "0x5", "outcome": "postcondition",
                "detail": "d", "replay": {"mode": "raw"}}}])
            }
        };
        json!({"type": "batch", "strategy": strategy, "shuffle": true, "total_runs": total,
            "seconds": 0.5, "counts": {"pass": total - postcondition, "postcondition": postcondition},
            "failures": failures})
    };
    let lines = vec![
        json!({"type": "start"}),
        batch("none", 4, 0),
        batch("cache", 4, 1),
        batch("none", 8, 0),
        batch("cache", 8, 3),
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
    assert_eq!(report.rows[0].outcome, Outcome::Incomplete);
    assert_eq!(report.rows[0].first_failures[0].failure.after_seconds, 0.25);
    assert_eq!(report.shards[0].cut_short, ["c"]);
    assert_eq!(report.unreadable.len(), 1);
    assert!(crate::render::text(&report).contains("unreadable: "));
}
