//! The scheduler against the oracle (issue 31, item 6). Progress litmus tests of the generated
//! suite, each thread a workgroup of one invocation, run under each progress model the
//! scheduler emulates (`--schedule`), holding each workgroup in turn at its start and at each
//! of its first steps. Two checks:
//!
//! - a test may starve only under a model the oracle says does not guarantee its termination
//!   under weak fairness;
//! - where `hold::starving_hold` finds that holding one workgroup at its start must starve the
//!   test (the others left waiting in place whatever order they run in), the scheduler, told
//!   to hold that workgroup there, starves it in some of `REPEATS` runs.
//!
//! Counted, not checked (docs/progress.md): pairs whose starving hold needs the held workgroup
//! to run alone for a few instructions first (a lock it takes before the others start: the
//! scheduler cannot order workgroups' starts), and pairs the oracle says may not terminate but
//! that no hold of one workgroup starves (the others livelock, or wait in a loop of several
//! instructions, or two must be held). On lavapipe.

mod common;

use common::*;
use wgstress_model::run::record::RunOutcome;
use wgstress_model::stress::params::RunParams;
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;
use wgstress_progress::generate::{generate, Bounds};
use wgstress_progress::hold::{starving_hold, StarvingHold};
use wgstress_progress::oracle::TerminationOracle as Oracle;
use wgstress_progress::wgsl::{self, InstanceLayout as Layout, Mapping};
use wgstress_progress::{AxbTest as Test, Fairness, Model, ProgressScheduler as Scheduler};
use wgstress_runtime::app::check::{Check, Rule};
use wgstress_runtime::app::init::Init;
use wgstress_runtime::app::spec::BindingKind;
use wgstress_runtime::gpu::engine::{Engine, EngineConfig};

/// Steps of a thread at which it is held, after its start: a test's threads hold at most four
/// instructions, so the states a hold can matter in come within its first few steps.
const STEPS: u32 = 8;

/// Instructions a thread runs before it gives up: below llvmpipe's 65,535 iterations, above
/// the scheduler's hang floor there (16,384), so a wait that nothing ends is found as a hang
/// first.
const BOUND: u32 = 30_000;

/// The models the scheduler emulates, with the oracle's name for each.
const MODELS: [(Schedule, Model); 5] = [
    (Schedule::Unfair, Model::Unfair),
    (Schedule::Hsa, Model::Hsa),
    (Schedule::Obe, Model::Obe),
    (Schedule::Lobe, Model::Lobe),
    (Schedule::Fair, Model::Fair),
];

/// The test as an application: thread t is workgroup t (the plain mapping, one instance); a
/// thread that gave up fails the check on its status word.
fn app(name: &str, test: &Test) -> App {
    let threads = test.threads().len() as u32;
    let layout = Layout::new(Mapping::Plain, 1);
    let [mem, status, params] = wgsl::BINDINGS;
    let mut app = App::bare(
        name,
        &wgsl::shader(test),
        [threads, 1, 1],
        vec![
            Binding::storage(mem, layout.memory_words() as u32, Init::Zeros),
            Binding::storage(status, threads, Init::Zeros),
            Binding {
                group: 0,
                binding: params,
                kind: BindingKind::Uniform,
                words: wgsl::PARAMS as u32,
                init: Init::Words {
                    words: layout.params(BOUND).to_vec(),
                },
                name: None,
            },
        ],
    );
    app.checks = vec![Check {
        name: Some("every thread terminated".into()),
        group: 0,
        binding: status,
        words: None,
        start: None,
        count: None,
        stride: None,
        last: false,
        rule: Rule::AllEqual {
            value: wgsl::TERMINATED,
        },
    }];
    app
}

/// The runs of `test` under `schedule`: each workgroup held at its start, and (where the
/// model lets a started workgroup be held) at each of its first `STEPS` steps.
fn runs(engine: &Engine, schedule: Schedule, threads: u32) -> Vec<RunParams> {
    let base = RunParams::draw(0, &settings(Strategy::None, false), engine.app_groups());
    let holds: Vec<(Option<u32>, u32)> = match schedule {
        Schedule::Fair => vec![(None, 0)],
        Schedule::Obe | Schedule::Lobe => (0..threads).map(|v| (Some(v), 0)).collect(),
        Schedule::Hsa | Schedule::Unfair => (0..threads)
            .flat_map(|v| (0..=STEPS).map(move |s| (Some(v), s)))
            .collect(),
    };
    holds
        .into_iter()
        .map(|(victim, park_step)| RunParams {
            schedule,
            victim,
            park_step,
            ..base.clone()
        })
        .collect()
}

/// Runs of a starving hold at a workgroup's start. More than one: a held workgroup is let go
/// when nobody else ran for a while, and on llvmpipe the others' threads are the operating
/// system's, which may not run them at once.
const REPEATS: u64 = 4;

/// The runs of a starving hold: its victim held at its start.
fn starving_runs(engine: &Engine, schedule: Schedule, hold: StarvingHold) -> Vec<RunParams> {
    (0..REPEATS)
        .map(|seed| RunParams {
            schedule,
            victim: Some(hold.victim as u32),
            park_step: 0,
            ..RunParams::draw(seed, &settings(Strategy::None, false), engine.app_groups())
        })
        .collect()
}

/// Under unfair and HSA: the (test, model) pairs the oracle says may not terminate; of them
/// those with a starving hold at a workgroup's start (each shown), those whose starving hold
/// needs the victim to run alone first, and those some run showed (starved or hung).
#[derive(Default)]
struct Shown {
    owed: usize,
    at_start: usize,
    after_steps: usize,
    shown: usize,
    /// Runs that hung with nobody held.
    hangs: usize,
}

/// Where the emulator starved a test the oracle says the model guarantees, or did not starve
/// it under a hold that must; counts in `shown` what it showed under unfair and HSA.
fn disagreement(engine: &mut Engine, test: &Test, name: &str, shown: &mut Shown) -> Vec<String> {
    let oracle = Oracle::new(test);
    let threads = test.threads().len() as u32;
    let mut wrong = Vec::new();
    for (schedule, model) in MODELS {
        let results = engine
            .run(&runs(engine, schedule, threads))
            .unwrap_or_else(|e| panic!("{name} under {}: {e}", schedule.name()));
        let ended: Vec<&RunOutcome> = results
            .iter()
            .map(|r| &r.outcome)
            .filter(|o| **o != RunOutcome::Pass)
            .collect();
        let guaranteed = oracle.terminates(Scheduler {
            model,
            fairness: Fairness::Weak,
        });
        let starved = ended.iter().filter(|o| ***o == RunOutcome::Starved).count();
        shown.hangs += ended.iter().filter(|o| ***o == RunOutcome::Hang).count();
        if guaranteed && starved > 0 {
            wrong.push(format!(
                "{name}: {} guarantees termination, yet {starved} of {} runs starved",
                schedule.name(),
                results.len(),
            ));
        }
        let hold = starving_hold(test, model);
        if let Some(hold) = hold.filter(|h| h.after == 0) {
            let held = engine
                .run(&starving_runs(engine, schedule, hold))
                .unwrap_or_else(|e| panic!("{name} under {}: {e}", schedule.name()));
            let starved = held
                .iter()
                .filter(|r| r.outcome == RunOutcome::Starved)
                .count();
            if starved == 0 {
                let outcomes: Vec<String> =
                    held.iter().map(|r| format!("{:?}", r.outcome)).collect();
                wrong.push(format!(
                    "{name}: under {}, workgroup {} held at its start must starve it, yet its \
                     runs ended {}",
                    schedule.name(),
                    hold.victim,
                    outcomes.join(", ")
                ));
            }
        }
        if matches!(schedule, Schedule::Unfair | Schedule::Hsa) && !guaranteed {
            shown.owed += 1;
            shown.at_start += usize::from(hold.is_some_and(|h| h.after == 0));
            shown.after_steps += usize::from(hold.is_some_and(|h| h.after > 0));
            shown.shown += usize::from(!ended.is_empty() || hold.is_some_and(|h| h.after == 0));
        }
    }
    wrong
}

/// Every `every`-th test of the seed-bounds suite, and the seed's named examples.
fn sample(every: usize) -> Vec<(String, Test)> {
    let mut tests: Vec<(String, Test)> = wgstress_progress::suite::seed_examples()
        .into_iter()
        .map(|(name, test)| (name.to_string(), test))
        .collect();
    tests.extend(
        generate(&Bounds::seed())
            .into_iter()
            .step_by(every)
            .map(|g| (g.name, g.test)),
    );
    tests
}

/// Set in a child run of the test: it takes the tests of this many threads only, with as many
/// llvmpipe threads.
const THREADS_VAR: &str = "WGSTRESS_EMULATOR_THREADS";

#[test]
fn the_scheduler_starves_a_test_where_and_only_where_the_oracle_says_it_may() {
    // llvmpipe gives each of its threads a contiguous share of a dispatch's workgroups, runs
    // each to its end, and reads its thread count once per process: only with as many threads
    // as the test has workgroups does every workgroup run at once (with fewer, one waits for
    // another to end before it starts, a hold nobody asked for). So the tests of two and of
    // three threads run in a child process each.
    let Some(threads) = std::env::var(THREADS_VAR).ok() else {
        for threads in ["2", "3"] {
            let status = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "the_scheduler_starves_a_test_where_and_only_where_the_oracle_says_it_may",
                    "--nocapture",
                ])
                .env(THREADS_VAR, threads)
                .env("LP_NUM_THREADS", threads)
                .status()
                .unwrap();
            assert!(status.success(), "the tests of {threads} threads: {status}");
        }
        return;
    };
    let threads: usize = threads.parse().unwrap();
    let every = std::env::var("WGSTRESS_EMULATOR_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let mut gpu = None;
    let mut wrong = Vec::new();
    let mut shown = Shown::default();
    let tests: Vec<(String, Test)> = sample(every)
        .into_iter()
        .filter(|(_, test)| test.threads().len() == threads)
        .collect();
    for (name, test) in &tests {
        let config = EngineConfig::new(64, 1 << 12);
        let mut engine = Engine::on(app(name, test), &config, gpu.as_ref())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        gpu = Some(engine.gpu().clone());
        wrong.extend(disagreement(&mut engine, test, name, &mut shown));
    }
    println!(
        "{} tests: under unfair and HSA, of {} (test, model) pairs the oracle says may not \
         terminate, {} starve when one workgroup is held at its start (each checked), {} when \
         it is held after running alone first (not steered); {} starved or hung in some run; \
         {} run(s) hung with nobody held",
        tests.len(),
        shown.owed,
        shown.at_start,
        shown.after_steps,
        shown.shown,
        shown.hangs
    );
    assert!(
        wrong.is_empty(),
        "{} disagreement(s) in {} tests:\n{}",
        wrong.len(),
        tests.len(),
        wrong.join("\n")
    );
}
