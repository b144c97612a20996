//! Complete lines of the kinds `merge` reads, for tests of the writer, the reader and the
//! merge (feature `fixtures`; on in this crate's tests). They are built from the typed
//! values, not written out as JSON, so that a change to the schema changes them too: a test
//! that writes them through `JsonLog` writes what a command would.

use crate::{
    FencesStart, FencesSummary, Line, LitmusStart, LitmusSummary, MutantsSearchStart, MutantsStart,
    MutantsSummary, ProgressMode, ProgressStart, ProgressSummary, Start, StartOf, Summary,
    TuneStart, VERSION,
};
use std::collections::BTreeMap;
use std::time::Duration;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::{
    AskedTrial, FenceOutcome, FenceVerdict, Kept, KeptRole, KeptSide, StrategyRuns,
};
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::kind::{Kind, Mutator};
use wgstress_model::litmus::mutants::{summarise, TestResult};
use wgstress_model::litmus::search::{Candidate, Phase, SearchResult};
use wgstress_model::run::calibration::Calibration;
use wgstress_model::run::log::{Batch, BatchFailure, CompareStart, RunStart};
use wgstress_model::run::results_block::{Record, RunOutcome};
use wgstress_model::run::summary::Comparison;
use wgstress_model::run::summary::{Ran, RunSummary};
use wgstress_model::run::tally::{Failure, RunCounts, Tally};
use wgstress_model::stress::params::{
    Drawn, Replay, RunParams, Scheduling, Settings, StressPlacement, StressShape,
};
use wgstress_model::stress::sequence::Sequence;
use wgstress_model::stress::shape_summary::ShapeRecord;
use wgstress_model::stress::strategy::Strategy;
use wgstress_progress::model::{Fairness, Model, ProgressScheduler as Scheduler};
use wgstress_progress::observe::{Conformance, ConformanceJudgement as Judgement, Hang, Observed};
use wgstress_progress::wgsl::Mapping;

pub const APP: &str = "app.toml";
pub const ADAPTER: &str = "GPU";

/// A start line of the current version.
pub fn start(command: StartOf) -> Line {
    Line::Start(Start {
        version: VERSION,
        command,
    })
}

pub fn summary(summary: Summary) -> Line {
    Line::Summary(Box::new(summary))
}

fn drawn(strategy: Strategy, shuffle: bool) -> Drawn {
    Drawn {
        strategy,
        iterations: 1024,
        stress_fraction: (0.5, 1.0),
        placement: StressPlacement::Interleaved,
        sequence: Sequence::default(),
        spread: 2,
        patch_words: 32,
        cache_words: 1 << 20,
        shuffle,
        buffer_shuffle: false,
        watchdog_limit: 1 << 16,
        scheduling: Scheduling::default(),
    }
}

pub fn run_start() -> Line {
    start(StartOf::Run(RunStart {
        app: APP.into(),
        adapter: ADAPTER.into(),
        strategy: Strategy::Systematic,
        raw: false,
        shuffle: true,
        iterations: 1024,
        shape: StressShape::default(),
        adaptive_shape: false,
        calibration: None,
        settings: drawn(Strategy::Systematic, true),
        master_seed: "0x1".into(),
        replay: None,
    }))
}

pub fn compare_start() -> Line {
    start(StartOf::Compare(CompareStart {
        app: APP.into(),
        adapter: ADAPTER.into(),
        rounds: 2,
        configurations: vec![drawn(Strategy::None, true), drawn(Strategy::Cache, true)],
        master_seed: "0x1".into(),
    }))
}

/// A failing run: a postcondition, replayed raw.
pub fn failure(run: u64, seconds: f64, seed: &str, detail: &str) -> Failure {
    Failure {
        run,
        seconds,
        seed: seed.into(),
        outcome: RunOutcome::Postcondition,
        detail: detail.into(),
        replay: Replay::Raw,
    }
}

/// `runs` raw runs in one second, `failures` of them postconditions, the first of them run 3
/// (seed 0xabc) half a second in.
pub fn run_summary(runs: u64, failures: u64) -> RunSummary {
    run_row(Ran::Raw, false, runs, failures)
}

/// A run summary (or a row of compare's) of `strategy`, its numbers those of a tally of
/// these runs, as the run loop's are. A stressed one sets the optional fields a stressed run
/// sets (calibration, the learned loop limit), so that a reader that lost one (read as none)
/// shows; a systematic one has its shapes' records.
pub fn run_row(strategy: Ran, shuffle: bool, runs: u64, failures: u64) -> RunSummary {
    let watched = strategy != Ran::Raw;
    let tally = Tally {
        runs,
        counts: BTreeMap::from([
            (RunOutcome::Pass, runs - failures),
            (RunOutcome::Postcondition, failures),
        ]),
        elapsed: Duration::from_secs(1),
        first_failure: (failures > 0).then(|| failure(3, 0.5, "0xabc", "wrong")),
        stress_groups_ran: 0,
        slow_waits: 0,
        holds: Default::default(),
    };
    RunSummary {
        app: APP.into(),
        adapter: ADAPTER.into(),
        strategy,
        shuffle,
        buffer_shuffle: false,
        iterations: 1024,
        calibration: watched.then_some(Calibration {
            iterations: 1024,
            app_seconds: Some(0.001953125),
            seconds: 0.25,
            timeout_seconds: None,
            aborted: None,
        }),
        shapes: match strategy {
            Ran::Stressed(Strategy::Systematic) => vec![ShapeRecord {
                shape: "ld;st on 2 patches of 32 words, 1x iterations".into(),
                runs,
                failures,
            }],
            _ => Vec::new(),
        },
        loop_limit: 1 << 16,
        loop_limit_learned: watched,
        longest_passing_loop: Some(300).filter(|_| watched),
        loop_limit_warning: Some("passing runs looped within 2x of the limit".into())
            .filter(|_| watched),
        batch: 64,
        master_seed: "0x1".into(),
        replay: Some("0x2".into()),
        stopped: None,
        wall_seconds: 1.5,
        stats: tally.stats(),
    }
}

pub fn compare_summary() -> Comparison {
    Comparison {
        app: APP.into(),
        adapter: ADAPTER.into(),
        rounds: 2,
        master_seed: "0x1".into(),
        rows: vec![
            run_row(Ran::Stressed(Strategy::None), true, 8, 0),
            run_row(Ran::Stressed(Strategy::Cache), true, 8, 3),
        ],
        stopped: None,
    }
}

/// A batch of `strategy`, shuffled: the session's `total_runs` so far, `failing` of them
/// postconditions; when some failed, the batch lists one (run 1, seed 0x5, 0.25 s in).
pub fn batch(strategy: Strategy, total_runs: u64, failing: u64) -> Batch {
    let settings = Settings {
        strategy,
        shuffle: true,
        shape: StressShape::default(),
        iterations: 1024,
        cache_words: 1 << 20,
        watchdog_limit: 1 << 16,
        stress_fraction: (0.5, 1.0),
        placement: StressPlacement::Interleaved,
        buffer_shuffle: false,
        scheduling: Scheduling::default(),
    };
    let failures = match failing {
        0 => Vec::new(),
        _ => vec![BatchFailure {
            failure: failure(1, 0.25, "0x5", "d"),
            params: RunParams::draw(5, &settings, 4),
            record: Record::default(),
        }],
    };
    Batch {
        strategy,
        shuffle: true,
        runs: 4,
        total_runs,
        seconds: 0.5,
        counts: RunCounts {
            pass: total_runs - failing,
            postcondition: failing,
            ..RunCounts::default()
        },
        failures,
    }
}

pub fn fences_start() -> Line {
    start(StartOf::Fences(FencesStart {
        app: APP.into(),
        adapter: ADAPTER.into(),
        strategy: None,
        budget_seconds: 60.0,
        verify_seconds: 10.0,
        search_seconds: 40.0,
        master_seed: "0x1".into(),
    }))
}

fn measured(runs: u64, failures: u64) -> Measured {
    Measured {
        runs,
        failures,
        watchdog: 0,
        seconds: 2.0,
        stopped: None,
    }
}

/// A fix of one barrier, verified: 100 runs before it with 7 failures.
pub fn fences_summary() -> FencesSummary {
    let runs = |runs: Measured| StrategyRuns {
        strategy: Strategy::Systematic,
        iterations: 1024,
        runs,
    };
    FencesSummary {
        outcome: FenceOutcome {
            app: APP.into(),
            adapter: ADAPTER.into(),
            strategy: Some(Strategy::Systematic),
            iterations: Some(1024),
            master_seed: "0x1".into(),
            verdict: FenceVerdict::Fixed,
            before: vec![runs(measured(100, 7))],
            sites: Some(3),
            all_sites: Some(measured(50, 0)),
            atomic: Vec::new(),
            trials: 4,
            search_runs: 400,
            asked: [
                (0, 37, false),
                (1, 63, false),
                (2, 150, true),
                (2, 150, true),
            ]
            .into_iter()
            .map(|(site, runs, passed)| AskedTrial {
                round: 0,
                sites: vec![site],
                atomic: Vec::new(),
                runs,
                passed,
                cut_short: false,
            })
            .collect(),
            search_out_of_time: false,
            runs_per_trial: Some(100),
            fix: None,
            kept: vec![Kept {
                site: 2,
                file: "app.wgsl".into(),
                line: 12,
                column: 5,
                side: KeptSide::Before,
                function: "main".into(),
                source: "flag = 1u;".into(),
                role: Some(KeptRole::Release),
                reason: Some("publishes data at app.wgsl:11:5".into()),
                needed: true,
            }],
            verified: vec![runs(measured(200, 0))],
            refined: Vec::new(),
            relies_on: Some("storageBarrier() ordering across workgroups".into()),
            choice: None,
            minimal: vec![2],
            missing: Vec::new(),
            patches: Vec::new(),
            unexpressed: Vec::new(),
            cost: Vec::new(),
            cost_error: None,
            bound: None,
            times: Default::default(),
            placements: Vec::new(),
        },
        output: Vec::new(),
        fixed_in_place: Vec::new(),
        not_fixed_in_place: None,
    }
}

pub fn litmus_start() -> Line {
    start(StartOf::Litmus(LitmusStart {
        test: "message-passing".into(),
        adapter: ADAPTER.into(),
        env: Env::default(),
        iterations: Some(100),
        seconds: Some(2.0),
        batch: 10,
        seed: 1,
    }))
}

/// 25,600 instances, 12 of them the target behaviour, 2 breaking coherence.
pub fn litmus_summary() -> LitmusSummary {
    LitmusSummary {
        test: "message-passing".into(),
        kind: Kind::Classic,
        weak_behaviour: "r0 == 1 && r1 == 0".into(),
        adapter: ADAPTER.into(),
        env: Env::default(),
        iterations: 100,
        instances: 25_600,
        counts: LitmusCounts {
            sequential: 20_000,
            interleaved: 5_586,
            weak: 12,
            target: 12,
            disallowed: 2,
            incoherent: 2,
            ..LitmusCounts::default()
        },
        seconds: 2.0,
        weak_per_second: 6.0,
        reproducibility: 0.75,
        interrupted: false,
    }
}

pub fn tune_start() -> Line {
    start(StartOf::Tune(TuneStart {
        adapter: ADAPTER.into(),
        config: wgstress_model::litmus::tune_grid::TuneConfig {
            distances: 4,
            locations: 8,
            max_sequence: 3,
            max_spread: 2,
            iterations_per_cell: 16,
            env: Env::default(),
        },
    }))
}

pub fn mutants_start() -> Line {
    start(StartOf::Mutants(MutantsStart {
        adapter: ADAPTER.into(),
        env: Env::default(),
        tests: 2,
        time_per_test: 1.0,
        reproducibility: 0.95,
        budget: 300.0,
    }))
}

fn mutant(name: &str, target: u64) -> TestResult {
    TestResult {
        name: name.into(),
        kind: Kind::Mutant(Mutator::WeakeningSw),
        iterations: 10,
        instances: 2_560,
        seconds: 1.0,
        counts: LitmusCounts {
            target,
            ..LitmusCounts::default()
        },
        rate: target as f64,
        violations: Vec::new(),
    }
}

/// Two mutants, one killed.
pub fn mutants_summary() -> MutantsSummary {
    let results = vec![mutant("mp-weakened", 4), mutant("sb-weakened", 0)];
    MutantsSummary {
        adapter: ADAPTER.into(),
        env: Env::default(),
        time_per_test: 1.0,
        summary: summarise(&results, 0.95, 300.0),
        results,
        seconds: 2.0,
        tests: 2,
        interrupted: false,
    }
}

pub fn mutants_search_start() -> Line {
    start(StartOf::MutantsSearch(MutantsSearchStart {
        adapter: ADAPTER.into(),
        seconds: 60.0,
        search_time: 1.0,
        search_groups: vec![2, 4],
        random_share: 0.5,
        reproducibility: 0.95,
        budget: 300.0,
        seed: 1,
    }))
}

pub fn mutants_search_summary() -> SearchResult {
    SearchResult {
        mutants: vec!["mp-weakened".into()],
        candidates: vec![Candidate {
            env: Env::default(),
            phase: Phase::Random,
            rates: vec![4.0],
            above_ceiling: 1,
            min_rate: 4.0,
            killed: 1,
            seconds: 1.0,
        }],
        best: Some(0),
        ceiling_rate: 0.25,
        seconds: 1.0,
        interrupted: false,
    }
}

pub fn progress_start() -> Line {
    start(StartOf::Progress(ProgressStart {
        mode: ProgressMode::Suite,
        adapter: ADAPTER.into(),
        tests: 1,
        mappings: vec![Mapping::Plain, Mapping::RoundRobin],
        iterations: 10,
        instances: Some(8),
        loop_bound: 1_000,
        timeout: 5.0,
    }))
}

/// A test's runs under a mapping: 10, 2 of them with an instance that did not terminate.
pub fn observed() -> Observed {
    Observed {
        test: "2_thread_spin".into(),
        mapping: Mapping::RoundRobin,
        instances: 8,
        iterations: 10,
        hung_iterations: 2,
        hung_instances: 3,
        gave_up: vec![1, 2],
    }
}

/// One test's runs, which hung under weak HSA; the strongest model left is weak OBE.
pub fn progress_summary() -> ProgressSummary {
    let hang = Hang {
        test: "2_thread_spin".into(),
        mapping: Mapping::RoundRobin,
        hung_iterations: 2,
        iterations: 10,
    };
    let scheduler = |model| Scheduler {
        model,
        fairness: Fairness::Weak,
    };
    ProgressSummary {
        adapter: ADAPTER.into(),
        mode: ProgressMode::Suite,
        tests: 1,
        tests_run: 1,
        mappings: vec![Mapping::RoundRobin],
        iterations: 10,
        loop_bound: 1_000,
        seconds: 2.0,
        observed: vec![observed()],
        judgement: Judgement {
            schedulers: vec![
                Conformance {
                    scheduler: scheduler(Model::Hsa),
                    tests: 1,
                    violations: vec![hang.clone()],
                },
                Conformance {
                    scheduler: scheduler(Model::Obe),
                    tests: 1,
                    violations: Vec::new(),
                },
            ],
            hangs: vec![hang],
            strongest: vec![scheduler(Model::Obe)],
        },
        interrupted: false,
        error: None,
    }
}
