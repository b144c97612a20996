//! `wgstress mutants --search`: the environment search, its table, and the file it writes.

use super::report::Report;
use crate::mutants::mutants_report as present;
use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;
use wgstress_litmus::env_file::EnvFile;
use wgstress_litmus::search::{search, EnvSearchConfig};
use wgstress_litmus::test::Test;
use wgstress_log::{JsonLog, MutantsSearchStart, StartOf, Summary};
use wgstress_model::litmus::search::{Candidate, SearchResult};
use wgstress_runtime::gpu::device::{describe, Gpu};

/// A validated search: its configuration, the mutants it scores environments by, and where
/// the best environment goes.
pub struct Search {
    pub config: EnvSearchConfig,
    pub mutants: Vec<Test>,
    pub write_env: PathBuf,
}

pub fn run_search(
    reporting: &Report,
    planned: &Search,
    gpu: &Gpu,
    mut log: Option<&mut JsonLog>,
    notes: Notes,
) -> Result<Status> {
    let (config, write_env) = (&planned.config, &planned.write_env);
    let adapter = describe(&gpu.info);
    notes.note(&format!(
        "searching {} s on {adapter}, {} s per mutant per environment",
        config.budget.as_secs_f64(),
        config.per_test.as_secs_f64()
    ));
    if let Some(log) = log.as_mut() {
        log.start(StartOf::MutantsSearch(MutantsSearchStart {
            adapter: adapter.clone(),
            seconds: config.budget.as_secs_f64(),
            search_time: config.per_test.as_secs_f64(),
            search_groups: config.space.testing_groups.clone(),
            random_share: config.random_share,
            reproducibility: reporting.reproducibility,
            budget: reporting.budget,
            seed: config.seed,
        }))?;
    }
    let mut tried = 0;
    let stop = crate::interrupt::stop_flag(notes.on);
    let result = search(
        gpu,
        &planned.mutants,
        config,
        &stop,
        &mut |c: &Candidate, best: &Candidate| {
            tried += 1;
            notes.note(&present::candidate(tried, c, best));
        },
    )?;
    if let Some(log) = log.as_mut() {
        log.summary(Summary::MutantsSearch(result.clone()))?;
    }
    // The findings first, then the file: a failed write loses nothing that was found. An
    // interrupted search still writes the best environment it scored in full.
    if reporting.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&result)?))?;
    } else {
        emit(&present::search(&result, write_env)?)?;
    }
    if let Some(file) = env_file(reporting, gpu, &result) {
        file.save(write_env)?;
    }
    Ok(match result.interrupted {
        true => Status::Interrupted,
        false => Status::Passed,
    })
}

/// The search's best environment and how it scored, for `--env`; none when the search was
/// stopped before it scored one.
fn env_file(reporting: &Report, gpu: &Gpu, result: &SearchResult) -> Option<EnvFile> {
    let best = result.best()?;
    Some(EnvFile {
        adapter: gpu.info.name.clone(),
        driver: format!("{} {}", gpu.info.driver, gpu.info.driver_info),
        backend: format!("{:?}", gpu.info.backend),
        env: best.env.clone(),
        reproducibility: reporting.reproducibility,
        budget: reporting.budget,
        above_ceiling: best.above_ceiling,
        min_rate: best.min_rate.is_finite().then_some(best.min_rate),
        mutants: result.mutants.len(),
        killed: best.killed,
        rates: result
            .mutants
            .iter()
            .cloned()
            .zip(best.rates.iter().copied())
            .collect(),
        environments_tried: result.candidates.len(),
        search_seconds: result.seconds,
    })
}
