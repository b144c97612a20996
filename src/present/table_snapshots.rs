//! Snapshots of the tables `run`, `compare`, `fences` and `progress APP` print, rendered from
//! fixed data (the log's fixtures and values built here) and written as `emit` writes them:
//! through anstream, with colour off (as to a pipe) and once forced on. `cargo insta review`
//! (or INSTA_UPDATE=always) accepts a change that is meant.

use anstream::{AutoStream, ColorChoice};
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;
use wgstress_log::fixtures;
use wgstress_model::fences::outcome::Fix;
use wgstress_model::fences::patch::{FilePatch, Patch};
use wgstress_model::run::holds::HoldCoverage;
use wgstress_model::run::progress_verdict::{
    needs, ModelResult, ProgressReport, ProgressVerdict, Unsettled,
};
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::run::summary::{Comparison, Ran, RunSummary};
use wgstress_model::run::tally::{Failure, Tally};
use wgstress_model::stress::params::{Drawn, Replay, Scheduling, StressPlacement};
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;

/// `text` as stdout gets it under `choice`; the escape character shown as `\e` where colour
/// is on, so that the snapshot reads.
fn written(text: &str, choice: ColorChoice) -> String {
    let mut out = AutoStream::new(Vec::new(), choice);
    out.write_all(text.as_bytes()).unwrap();
    String::from_utf8(out.into_inner())
        .unwrap()
        .replace('\u{1b}', "\\e")
}

fn plain(text: &str) -> String {
    written(text, ColorChoice::Never)
}

/// What replays a systematic run: the options `run` prints after `--seed`.
fn drawn(strategy: Strategy) -> Drawn {
    Drawn {
        strategy,
        iterations: 512,
        stress_fraction: (0.5, 1.0),
        placement: StressPlacement::default(),
        sequence: "ld;st".parse().unwrap(),
        spread: 2,
        patch_words: 32,
        cache_words: 1 << 20,
        shuffle: true,
        buffer_shuffle: true,
        watchdog_limit: 1 << 16,
        scheduling: Scheduling::default(),
    }
}

/// A row whose runs ended `runs - hangs` passing and `hangs` hung, the first at run 5.
fn hanging(strategy: Strategy, runs: u64, hangs: u64) -> RunSummary {
    let mut row = fixtures::run_row(Ran::Stressed(strategy), true, runs, 0);
    let tally = Tally {
        runs,
        counts: BTreeMap::from([(RunOutcome::Pass, runs - hangs), (RunOutcome::Hang, hangs)]),
        elapsed: Duration::from_secs(2),
        first_failure: Some(Failure {
            run: 5,
            seconds: 0.75,
            seed: "0x00000000000000c3".into(),
            outcome: RunOutcome::Hang,
            detail: "no progress: workgroup 1 at lock.wgsl:9:5 (in main) waited while nothing \
                     got anywhere"
                .into(),
            replay: Replay::Stressed(drawn(strategy)),
        }),
        ..Tally::default()
    };
    row.stats = tally.stats();
    row
}

#[test]
fn a_run_that_failed() {
    let mut summary = fixtures::run_row(Ran::Stressed(Strategy::Systematic), true, 1000, 7);
    summary.replay = None;
    insta::assert_snapshot!(plain(&crate::run::run_summary::table(&summary)));
}

#[test]
fn a_run_without_a_failure_bounds_its_rate_below_at_zero() {
    let mut summary = fixtures::run_row(Ran::Stressed(Strategy::None), true, 50, 0);
    summary.replay = None;
    let table = plain(&crate::run::run_summary::table(&summary));
    assert!(
        table.contains("0 of 50 = 0% (95% interval 0% .. "),
        "{table}"
    );
    insta::assert_snapshot!(table);
}

#[test]
fn a_run_in_colour() {
    let mut summary = fixtures::run_row(Ran::Stressed(Strategy::Systematic), true, 1000, 7);
    summary.replay = None;
    let table = crate::run::run_summary::table(&summary);
    let coloured = written(&table, ColorChoice::Always);
    assert_ne!(coloured, plain(&table), "colour forced on shows");
    insta::assert_snapshot!(coloured);
}

#[test]
fn a_comparison_shows_each_failing_configuration_with_its_replay() {
    let mut c: Comparison = fixtures::compare_summary();
    c.rows.push(hanging(Strategy::Systematic, 8, 2));
    let table = plain(&crate::compare::comparison::table(&c));
    assert!(
        table.contains("  replay             --seed 0x00000000000000c3 --strategy systematic"),
        "{table}"
    );
    insta::assert_snapshot!(table);
}

#[test]
fn a_fix_of_one_site() {
    let mut outcome = fixtures::fences_summary().outcome;
    outcome.fix = Some(Fix::Barriers);
    outcome.patches = vec![FilePatch {
        file: "app.wgsl".into(),
        patch: Patch::Source {
            text: String::new(),
            diff: "--- app.wgsl\n+++ app.wgsl (fixed)\n@@ -11,2 +11,3 @@\n   data = 7u;\n\
                   +  storageBarrier();\n   flag = 1u;"
                .into(),
            changed_lines: 1,
        },
    }];
    insta::assert_snapshot!(plain(&crate::fences::fence_report::text(
        &outcome,
        &["fixed.wgsl".into()],
        &[]
    )));
}

#[test]
fn a_progress_report() {
    let model = |model, verdict, runs, starved| ModelResult {
        model,
        occupancy: None,
        verdict,
        unsettled: None,
        holds: None,
        runs,
        starved_runs: starved,
        other_failures: 0,
        wait: None,
        replay: None,
    };
    let covered = HoldCoverage {
        places: 3,
        places_held: 3,
        rare_places: 0,
        workgroups: 4,
        workgroups_held: 4,
        most_points: 1,
    };
    let models = vec![
        ModelResult {
            holds: Some(covered),
            ..model(Schedule::Fair, ProgressVerdict::Terminates, 40, 0)
        },
        ModelResult {
            wait: Some(
                "workgroup 2 waits at lock.wgsl:9:5 for workgroup 0, held at its start".into(),
            ),
            replay: Some("wgstress run ticket-lock --seed 0x9 --schedule hsa".into()),
            ..model(Schedule::Hsa, ProgressVerdict::Starves, 12, 1)
        },
        ModelResult {
            unsettled: Some(Unsettled::TooFewRuns {
                runs: 1,
                needed: 32,
            }),
            ..model(Schedule::Unfair, ProgressVerdict::Inconclusive, 1, 0)
        },
    ];
    let verdicts: Vec<(Schedule, ProgressVerdict)> =
        models.iter().map(|m| (m.model, m.verdict)).collect();
    let report = ProgressReport {
        app: "ticket-lock".into(),
        adapter: fixtures::ADAPTER.into(),
        models,
        occupancy: Vec::new(),
        needs: needs(&verdicts),
        needs_occupancy: None,
        stopped: None,
    };
    insta::assert_snapshot!(plain(&crate::progress::app_report::table(&report)));
}
