//! `wgstress mutants` over the suite in one environment: the runs, the table and the log.

use super::report::Report;
use crate::mutants::mutants_report as present;
use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::Result;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wgstress_litmus::mutants::{run_suite, Pool};
use wgstress_litmus::test::Test;
use wgstress_log::{JsonLog, MutantsStart, MutantsSummary, StartOf, Summary};
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::mutants::summarise;
use wgstress_model::run::stop::Stop;
use wgstress_runtime::gpu::device::{describe, Gpu};

/// The suite as it runs: the environment resolved on the adapter.
pub struct Suite<'a> {
    pub tests: &'a [Test],
    pub env: Env,
    pub time: Duration,
}

pub fn run(
    reporting: &Report,
    suite: &Suite,
    gpu: &Gpu,
    mut log: Option<&mut JsonLog>,
    notes: Notes,
) -> Result<Status> {
    let (adapter, env) = (describe(&gpu.info), &suite.env);
    let time = suite.time.as_secs_f64();
    notes.note(&format!(
        "{} tests for {time} s each on {adapter}",
        suite.tests.len()
    ));
    if let Some(log) = log.as_mut() {
        log.start(StartOf::Mutants(MutantsStart {
            adapter: adapter.clone(),
            env: env.clone(),
            tests: suite.tests.len(),
            time_per_test: time,
            reproducibility: reporting.reproducibility,
            budget: reporting.budget,
        }))?;
    }
    let start = Instant::now();
    let stop = crate::interrupt::stop_flag(notes.on);
    let results = run_suite(
        gpu,
        &mut Pool::default(),
        suite.tests,
        env,
        suite.time,
        &stop,
        &mut |r| notes.note(&present::line(r)),
    )?;
    let interrupted = stop.load(Ordering::SeqCst);
    let summary = summarise(&results, reporting.reproducibility, reporting.budget);
    let report = MutantsSummary {
        adapter: adapter.clone(),
        env: env.clone(),
        time_per_test: time,
        summary: summary.clone(),
        results: results.clone(),
        seconds: start.elapsed().as_secs_f64(),
        tests: suite.tests.len(),
        interrupted,
    };
    if let Some(log) = log.as_mut() {
        log.summary(Summary::Mutants(report.clone()))?;
    }
    if reporting.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        let seconds = start.elapsed().as_secs_f64();
        emit(&present::suite(&results, &summary, env, time, seconds)?)?;
        if interrupted {
            emit(&format!(
                "interrupted: {} of {} tests ran (the last for as long as it ran)\n",
                results.len(),
                suite.tests.len()
            ))?;
        }
    }
    // A broken coherence promise is a bug by WGSL's own rules (or naga's).
    let stopped = interrupted.then_some(Stop::Interrupted);
    Ok(Status::of(stopped.as_ref(), !summary.incoherent.is_empty()))
}
