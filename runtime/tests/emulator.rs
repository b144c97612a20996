//! The scheduler against the oracle (issue 31, item 6). Progress litmus tests of the generated
//! suite, each thread a workgroup of one invocation, run under each progress model the
//! scheduler emulates (`--schedule`), holding each workgroup in turn at its start and at each
//! of its first steps. A test may starve only under a model the oracle says does not guarantee
//! its termination under weak fairness: that is checked. (A hang, a wait with nobody held, is
//! lavapipe's own doing: its threads run workgroups to their end, so with more test threads
//! than its threads a wait on one not started never ends; they are counted.) Where the oracle says unfair
//! or HSA does not guarantee it, the runs show it only when the held workgroup was holding what
//! the others wait for at its step, which depends on which workgroup won a race: how many did
//! is printed, not checked (docs/progress.md). On lavapipe.

mod common;

use common::*;
use wgstress_model::run::record::RunOutcome;
use wgstress_model::stress::params::RunParams;
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;
use wgstress_progress::generate::{generate, Bounds};
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

/// Under unfair and HSA: tests the oracle says may not terminate, and of them those a run
/// showed.
#[derive(Default)]
struct Shown {
    owed: usize,
    shown: usize,
    /// Runs that hung with nobody held.
    hangs: usize,
}

/// Where the emulator starved a test the oracle says the model guarantees; counts in `shown`
/// what it showed of the rest under unfair and HSA.
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
        if matches!(schedule, Schedule::Unfair | Schedule::Hsa) && !guaranteed {
            shown.owed += 1;
            shown.shown += usize::from(!ended.is_empty());
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

#[test]
fn the_scheduler_starves_a_test_only_where_the_oracle_says_it_may() {
    let every = std::env::var("WGSTRESS_EMULATOR_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let mut gpu = None;
    let mut wrong = Vec::new();
    let mut shown = Shown::default();
    let tests = sample(every);
    for (name, test) in &tests {
        let config = EngineConfig::new(64, 1 << 12);
        let mut engine = Engine::on(app(name, test), &config, gpu.as_ref())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        gpu = Some(engine.gpu().clone());
        wrong.extend(disagreement(&mut engine, test, name, &mut shown));
    }
    println!(
        "{} tests: under unfair and HSA, {} of {} (test, model) pairs the oracle says may not \
         terminate starved or hung in some run; {} run(s) hung with nobody held",
        tests.len(),
        shown.shown,
        shown.owed,
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
