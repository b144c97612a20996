//! `wgstress tune`: tunes systematic stress to this GPU on MP, SB and LB; writes a device
//! profile and a heat map.

mod heat_map;
mod profile;

use crate::notes::{emit, Notes};
use crate::options::{LitmusEnvOptions, LogOptions};
use crate::present::bar::Progress;
use crate::session::paths;
use crate::status::Status;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use wgstress_litmus::tuning::{cell_cost, tune, Tuned};
use wgstress_log::{JsonLog, StartOf, Summary, TuneStart, TuneSummary};
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::tune_grid::TuneConfig;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    env: LitmusEnvOptions,
    /// Distances between x and y tried in patch finding, 1..=N
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    distances: u32,
    /// Stressed locations tried in patch finding, 0..N words from x
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(2..=4096))]
    locations: u32,
    /// Longest access sequence tried
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=5))]
    max_sequence: u32,
    /// Most patches stressed at once
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=64))]
    max_spread: u32,
    /// Litmus iterations per grid cell
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    iterations_per_cell: u32,
    /// Seconds the whole tune may take, from the device's opening: grids and iterations are
    /// sized to fit from what a cell costs, and sized again as the tune goes
    #[arg(long, value_parser = crate::options::seconds, allow_negative_numbers = true)]
    budget: Option<Duration>,
    /// Where to write the device profile
    #[arg(long, default_value = wgstress_runtime::stress::profile::DEFAULT_PATH)]
    profile: PathBuf,
    /// Where to write the heat map (SVG)
    #[arg(long, default_value = "wgstress-heatmap.svg")]
    heat_map: PathBuf,
    #[command(flatten)]
    log: LogOptions,
}

/// A validated `tune`: both outputs writable and distinct.
pub struct Plan {
    config: TuneConfig,
    /// --env FILE: its environment replaces the options' when found on the adapter.
    env_file: Option<PathBuf>,
    adapter: wgstress_runtime::gpu::device::AdapterChoice,
    budget: Option<Duration>,
    profile: PathBuf,
    heat_map: PathBuf,
    log: Option<PathBuf>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let log = crate::session::log_path(&args.log);
    let env_file = crate::session::env_file(args.env.env_file.as_deref())?;
    let mut files = paths::Files::new();
    if let Some(env) = &env_file {
        files.input("--env", env);
    }
    files
        .output("--profile", &args.profile)
        .output("--heat-map", &args.heat_map);
    if let Some(log) = &log {
        files.output("--log", log);
    }
    files.check()?;
    let env = with_stress(args.env.env(false));
    Ok(Plan {
        config: TuneConfig {
            distances: args.distances,
            locations: args.locations,
            max_sequence: args.max_sequence as usize,
            max_spread: args.max_spread,
            iterations_per_cell: args.iterations_per_cell,
            env,
        },
        env_file,
        adapter: args.env.device.choice(),
        budget: args.budget,
        profile: args.profile.clone(),
        heat_map: args.heat_map.clone(),
        log,
    })
}

/// Tuning needs stress: half the testing groups when none are given.
fn with_stress(mut env: Env) -> Env {
    if env.stress_groups == 0 {
        env.stress_groups = (env.testing_groups / 2).max(1);
    }
    env
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let start = Instant::now();
    // Listening before the first note: a Ctrl-C after "tuning" gets the summary.
    let stop = crate::interrupt::stop_flag(notes.on);
    let mut config = plan.config;
    let gpu = wgstress_runtime::gpu::device::open(&plan.adapter)?;
    let env = crate::session::announce::resolve_env(
        config.env,
        plan.env_file.as_deref(),
        &gpu.info.name,
        notes,
    )?;
    config.env = with_stress(env);
    notes.note(&format!(
        "tuning {}",
        wgstress_runtime::gpu::device::describe(&gpu.info)
    ));
    if let Some(budget) = plan.budget {
        fit(&mut config, &gpu, budget, start)?;
        notes.note(&format!(
            "fitted to {} s: {} distances x {} locations, sequences up to {}, spread up to {}, {} iterations per cell",
            budget.as_secs_f64(), config.distances, config.locations, config.max_sequence, config.max_spread, config.iterations_per_cell
        ));
    }
    let mut log = plan.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.start(StartOf::Tune(TuneStart {
            adapter: wgstress_runtime::gpu::device::describe(&gpu.info),
            config: config.clone(),
        }))?;
    }
    let mut progress = Progress::cells(config.cells(), notes.on);
    let deadline = plan.budget.map(|budget| start + budget);
    let tuned = tune(&gpu, &config, deadline, &stop, &mut || progress.cell())?;
    progress.finish();
    let Tuned {
        profile,
        evidence,
        interrupted,
    } = tuned;
    if interrupted {
        emit(&crate::tune::profile::interrupted(
            &profile,
            &evidence,
            config.cells(),
        ))?;
        if let Some(log) = log.as_mut() {
            log.summary(Summary::Tune(TuneSummary {
                profile: profile.clone(),
                evidence: evidence.clone(),
                changes: None,
                written: false,
                interrupted: true,
            }))?;
        }
        return Ok(Status::Interrupted);
    }
    if !evidence.any() {
        // Nothing measured is lost: the log keeps the grids; the profile is not written.
        emit(&crate::tune::profile::no_signal(&profile, &evidence))?;
        if let Some(log) = log.as_mut() {
            log.summary(Summary::Tune(TuneSummary {
                profile: profile.clone(),
                evidence: evidence.clone(),
                changes: None,
                written: false,
                interrupted: false,
            }))?;
        }
        return Ok(Status::Failed);
    }
    // The profile this one replaces, to say how tuning (in another environment) changed it.
    let changes = wgstress_runtime::stress::profile::load(&plan.profile)
        .ok()
        .filter(|before| before.adapter == profile.adapter)
        .map(|before| profile.changes_from(&before));
    // The findings first, then the files: a failed write loses nothing that was measured.
    emit(&crate::tune::profile::report(
        &profile,
        &evidence,
        changes.as_deref(),
        &plan.profile,
        &plan.heat_map,
    ))?;
    if let Some(log) = log.as_mut() {
        log.summary(Summary::Tune(TuneSummary {
            profile: profile.clone(),
            evidence: evidence.clone(),
            changes: changes.clone(),
            written: true,
            interrupted: false,
        }))?;
    }
    wgstress_runtime::stress::profile::save(&profile, &plan.profile)?;
    crate::tune::heat_map::heat_map(&profile, &plan.heat_map)?;
    Ok(Status::Passed)
}

/// Sizes `config` to end within `budget` of `start`, from what a cell costs on `gpu`; the
/// tune itself keeps to its deadline as it goes. A budget too short for the smallest tune is
/// refused.
fn fit(
    config: &mut TuneConfig,
    gpu: &wgstress_runtime::gpu::device::Gpu,
    budget: Duration,
    start: Instant,
) -> Result<()> {
    let cost = cell_cost(gpu, config)?;
    // A tenth is kept for what the cells do not count: compiling the three tests, the
    // estimate's error.
    let left = budget.saturating_sub(start.elapsed()).as_secs_f64() * 0.9;
    if !config.fit(left, cost) {
        let smallest = config.estimate(cost) / 0.9 + start.elapsed().as_secs_f64();
        bail!(
            "--budget {} s holds no tune on this adapter: the smallest ({} cells of one iteration) needs about {:.1} s",
            budget.as_secs_f64(),
            config.cells(),
            smallest
        );
    }
    Ok(())
}
