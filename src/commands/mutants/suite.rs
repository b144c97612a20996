//! `wgstress mutants` over the suite in one environment: the runs, the table and the log.

use super::report::Report;
use crate::notes::{emit, Notes};
use crate::present::mutants as present;
use crate::status::Status;
use anyhow::Result;
use std::time::{Duration, Instant};
use wgstress_litmus::env::Env;
use wgstress_litmus::mutants::{run_suite, summarise, Pool};
use wgstress_litmus::test::Test;
use wgstress_runtime::gpu::device::{describe, Gpu};
use wgstress_runtime::run::log::JsonLog;

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
        log.write(&serde_json::json!({
            "type": "start", "command": "mutants", "adapter": adapter, "env": env,
            "tests": suite.tests.len(), "time_per_test": time,
            "reproducibility": reporting.reproducibility, "budget": reporting.budget,
        }))?;
    }
    let start = Instant::now();
    let results = run_suite(
        gpu,
        &mut Pool::default(),
        suite.tests,
        env,
        suite.time,
        &mut |r| notes.note(&present::line(r)),
    )?;
    let summary = summarise(&results, reporting.reproducibility, reporting.budget);
    let report = serde_json::json!({
        "adapter": adapter,
        "env": env,
        "time_per_test": time,
        "summary": summary,
        "results": results,
        "seconds": start.elapsed().as_secs_f64(),
    });
    if let Some(log) = log.as_mut() {
        log.summary(report.clone())?;
    }
    if reporting.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        let seconds = start.elapsed().as_secs_f64();
        emit(&present::suite(&results, &summary, env, time, seconds)?)?;
    }
    // A broken coherence promise is a bug by WGSL's own rules (or naga's).
    Ok(Status::of(None, !summary.incoherent.is_empty()))
}
