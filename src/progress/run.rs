//! `progress --suite` and `--tests FILE...`: tests run on the adapter under each mapping,
//! every run ending by itself at the loop bound; then, per scheduler, whether the adapter
//! conformed, the tests that did not terminate, and the strongest models consistent with it.

use crate::notes::{emit, Notes};
use crate::progress::plan::{NamedTest, RunPlan, Runs, Source};
use crate::status::Status;
use anyhow::{bail, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use wgstress_litmus::axb_runs::ProgressTest;
use wgstress_log::{JsonLog, Line, ProgressMode, ProgressStart, ProgressSummary, StartOf, Summary};
use wgstress_progress::generate::{generate, Bounds};
use wgstress_progress::observe::{judge, Observed};
use wgstress_progress::suite::Verdicts;
use wgstress_progress::wgsl::InstanceLayout;
use wgstress_runtime::gpu::device::{self, Gpu};

/// Runs a submission: the seed's 20 in one, whose status words (at most 65,535 a run) read back
/// together.
const BATCH: u32 = 20;

/// llvmpipe ends an invocation's loops after this many iterations, silently.
const LLVMPIPE_LOOPS: u32 = 65_535;

/// The tests of the suite, or `sample` of them spread evenly over it (in the suite's order).
fn suite(sample: Option<u64>) -> Vec<NamedTest> {
    let all = generate(&Bounds::seed());
    let keep = sample.map_or(all.len(), |n| (n as usize).min(all.len()));
    (0..keep)
        .map(|k| &all[k * all.len() / keep])
        .map(|g| NamedTest {
            name: g.name.clone(),
            test: g.test.clone(),
        })
        .collect()
}

/// Instances of a test of `threads` threads: as asked, or as many as 65,535 workgroups hold
/// (the seed's choice), within what the adapter dispatches.
fn instances(asked: Option<u32>, threads: usize, gpu: &Gpu) -> Result<u32> {
    let most = gpu.limits.max_compute_workgroups_per_dimension.min(65_535) / threads as u32;
    match asked {
        Some(m) if m > most => bail!(
            "--instances {m}: a test of {threads} threads fits {most} instances in the {} workgroups this adapter dispatches",
            gpu.limits.max_compute_workgroups_per_dimension
        ),
        Some(m) => Ok(m),
        None => Ok(most),
    }
}

pub fn run(plan: RunPlan, notes: Notes) -> Result<Status> {
    let RunPlan {
        source,
        mappings,
        instances: asked,
        runs,
        adapter,
        json,
        log,
    } = plan;
    let (mode, tests) = match source {
        Source::Suite { sample } => (ProgressMode::Suite, suite(sample)),
        Source::Files(tests) => (ProgressMode::Tests, tests),
    };
    let gpu = device::open(&adapter)?;
    let adapter = device::describe(&gpu.info);
    if gpu.info.name.contains("llvmpipe") && runs.loop_bound >= LLVMPIPE_LOOPS {
        bail!(
            "--loop-bound {}: llvmpipe ends loops after {LLVMPIPE_LOOPS} iterations without a word, which would pass for termination; give less",
            runs.loop_bound
        );
    }
    let most_threads = tests
        .iter()
        .map(|t| t.test.threads().len())
        .max()
        .unwrap_or(1);
    instances(asked, most_threads, &gpu)?;
    let verdicts: Vec<(String, Verdicts)> = tests
        .iter()
        .map(|t| (t.name.clone(), Verdicts::of(&t.test)))
        .collect();
    notes.note(&format!(
        "{} progress tests on {adapter}, {} each",
        tests.len(),
        mappings
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let mut log = log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.start(StartOf::Progress(ProgressStart {
            mode,
            adapter: adapter.clone(),
            tests: tests.len(),
            mappings: mappings.clone(),
            iterations: runs.iterations,
            instances: asked,
            loop_bound: runs.loop_bound,
            timeout: runs.timeout.as_secs_f64(),
        }))?;
    }
    let stop = crate::interrupt::stop_flag(notes.on);
    let start = Instant::now();
    let mut last_note = Instant::now();
    let mut observed: Vec<Observed> = Vec::new();
    let mut error: Option<String> = None;
    'tests: for (done, t) in tests.iter().enumerate() {
        let m = instances(asked, t.test.threads().len(), &gpu)?;
        let mut compiled = match ProgressTest::new(&gpu, &t.name, &t.test, m, BATCH) {
            Ok(c) => c,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        };
        for &mapping in &mappings {
            let (o, failed) = run_mapping(
                &gpu,
                &mut compiled,
                t,
                InstanceLayout::new(mapping, m),
                runs,
                &stop,
            );
            if o.iterations > 0 {
                if let Some(log) = log.as_mut() {
                    log.write(&Line::Test(o.clone()))?;
                }
                observed.push(o);
            }
            if let Some(e) = failed {
                error = Some(e);
                break 'tests;
            }
            if stop.load(Ordering::SeqCst) {
                break 'tests;
            }
        }
        if last_note.elapsed().as_secs() >= 5 {
            notes.note(&format!(
                "{} of {} tests ran ({:.0} s)",
                done + 1,
                tests.len(),
                start.elapsed().as_secs_f64()
            ));
            last_note = Instant::now();
        }
    }
    let interrupted = stop.load(Ordering::SeqCst);
    let judgement = judge(&verdicts, &observed);
    let tests_run = {
        let mut names: Vec<&str> = observed.iter().map(|o| o.test.as_str()).collect();
        names.dedup();
        names.len()
    };
    let report = ProgressSummary {
        adapter: adapter.clone(),
        mode,
        tests: tests.len(),
        tests_run,
        mappings: mappings.clone(),
        iterations: runs.iterations,
        loop_bound: runs.loop_bound,
        seconds: start.elapsed().as_secs_f64(),
        observed: observed.clone(),
        judgement: judgement.clone(),
        interrupted,
        error: error.clone(),
    };
    if let Some(log) = log.as_mut() {
        log.summary(Summary::Progress(report.clone()))?;
    }
    if json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&crate::progress::termination::run_report(
            &adapter,
            tests.len(),
            &observed,
            &judgement,
            error.as_deref(),
            interrupted,
        ))?;
    }
    if let Some(e) = error {
        eprintln!("wgstress: error: {e}");
        crate::status::exit_now(Status::Aborted);
    }
    Ok(if interrupted {
        Status::Interrupted
    } else {
        Status::Passed
    })
}

/// `runs.iterations` runs of one test under one mapping, `BATCH` a submission (fewer if
/// stopped), and the error that ended them early.
fn run_mapping(
    gpu: &Gpu,
    compiled: &mut ProgressTest,
    test: &NamedTest,
    layout: InstanceLayout,
    runs: Runs,
    stop: &AtomicBool,
) -> (Observed, Option<String>) {
    let mut o = Observed {
        test: test.name.clone(),
        mapping: layout.mapping(),
        instances: layout.instances(),
        iterations: 0,
        hung_iterations: 0,
        hung_instances: 0,
        gave_up: vec![0; test.test.threads().len()],
    };
    while o.iterations < runs.iterations && !stop.load(Ordering::SeqCst) {
        let n = (runs.iterations - o.iterations).min(BATCH);
        let iterations = match compiled.run(gpu, layout, runs.loop_bound, n, runs.timeout) {
            Ok(its) => its,
            Err(e) => return (o, Some(e.to_string())),
        };
        for it in iterations {
            o.iterations += 1;
            o.hung_iterations += u32::from(it.hung_instances > 0);
            o.hung_instances += u64::from(it.hung_instances);
            for (total, n) in o.gave_up.iter_mut().zip(&it.gave_up) {
                *total += u64::from(*n);
            }
        }
    }
    (o, None)
}
