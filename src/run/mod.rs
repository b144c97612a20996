//! `wgstress run`: one configuration, many runs, a summary.

pub(crate) mod run_summary;

use crate::fanout::Fanout;
use crate::notes::{emit, Notes};
use crate::options::{AppOptions, BudgetOptions, ScheduleOptions, SessionOptions, StressOptions};
use crate::present::bar::Progress;
use crate::session::SessionPlan;
use crate::status::Status;
use anyhow::Result;
use std::time::Duration;
use wgstress_log::JsonLog;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::gpu::engine::Mode;
use wgstress_runtime::run::runner::{self, RunConfig};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    app: AppOptions,
    #[command(flatten)]
    budget: BudgetOptions,
    #[command(flatten)]
    stress: StressOptions,
    #[command(flatten)]
    schedule: ScheduleOptions,
    #[command(flatten)]
    session: SessionOptions,
    /// Stress strategy
    #[arg(long, value_parser = crate::options::strategies(), default_value = "systematic")]
    strategy: Strategy,
    /// Keep the application's workgroup ids as dispatched
    #[arg(long)]
    no_shuffle: bool,
    /// Replay: every run uses exactly the stress parameters, shuffles and buffer layout of
    /// this run seed (not the GPU's scheduling, which no seed controls)
    #[arg(long, value_parser = crate::options::seed)]
    seed: Option<u64>,
    /// Run the application's shaders exactly as given: no instrumentation, no stress, no
    /// watchdog; the same batches, postcondition and host checks. A failure here is the
    /// application's own, not the tool's
    #[arg(long, conflicts_with_all = RAW_CONFLICTS)]
    raw: bool,
}

/// What a raw run has none of: stress, its shape and iterations, the workgroup shuffle, the
/// watchdog. Given with --raw, each would be ignored, so clap refuses it.
const RAW_CONFLICTS: [&str; 14] = [
    "strategy",
    "schedule",
    "occupancy",
    "no_shuffle",
    "iterations",
    "stress_ratio",
    "watchdog_limit",
    "stress_fraction",
    "stress_placement",
    "cache_mib",
    "profile",
    "sequence",
    "spread",
    "patch_words",
];

/// A validated `run`.
pub struct Plan {
    session: SessionPlan,
    strategy: Strategy,
    shuffle: bool,
    replay: Option<u64>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let mut session = SessionPlan::new(
        &args.app,
        &args.budget,
        &args.stress,
        &args.session,
        args.schedule.scheduling(),
    )?;
    session.mode = if args.raw {
        Mode::Raw
    } else {
        Mode::Instrumented
    };
    Ok(Plan {
        session,
        // A raw run has no stress: nothing to calibrate, shuffle or draw shapes for.
        strategy: if args.raw {
            Strategy::None
        } else {
            args.strategy
        },
        shuffle: !args.no_shuffle && !args.raw,
        replay: args.seed,
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    // Watched from the start: a signal while calibration runs stops the command before its
    // first batch, with a summary of no runs; one while the engine is built quits at once
    // (`SessionPlan::engine`), as nothing is gathered yet.
    let stop = crate::interrupt::stop_flag(notes.on);
    let mut engine = session.engine()?;
    crate::session::announce::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategy == Strategy::Systematic {
        notes.note(&format!("systematic stress from {source}"));
    }
    let (settings, calibration) = session.stress.settings(
        &mut engine,
        plan.strategy,
        plan.shuffle,
        &shape,
        &session.budget,
    )?;
    if let Some(c) = &calibration {
        crate::session::announce::note_measured(&settings, c, session, notes);
    }
    let spent = calibration
        .as_ref()
        .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds));
    let config = RunConfig {
        settings,
        // Calibration's time comes out of the budget.
        budget: session.budget.less(spent),
        master_seed: session.master_seed,
        replay: plan.replay,
        adaptive: session.stress.adaptive(),
        calibration,
        stop,
    };
    let log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    let mut reporter = Fanout::new(log);
    reporter.show(Progress::runs(
        &config.budget,
        notes.on && !session.json,
        notes.on,
    ));
    let mut summary = runner::run(&mut engine, &config, &mut reporter)?;
    reporter.finish();
    // On a CPU driver a batch past the hang timeout is a slow one still running on the
    // driver's threads, which an instrumented run would only queue behind.
    let cpu = wgstress_runtime::gpu::device::on_cpu(&engine.gpu().info);
    let hung = engine.gpu().is_hung();
    if session.mode == Mode::Raw && !cpu {
        // A hung device is leaked on drop, not waited for.
        drop(engine);
        summary.stopped = crate::session::hang::explain(summary.stopped.take(), session, hung);
    }
    if session.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&summary)?))?;
    } else {
        emit(&crate::run::run_summary::table(&summary))?;
    }
    let status = Status::of(summary.stopped.as_ref(), summary.stats.failures > 0);
    if status == Status::Aborted {
        crate::status::exit_aborted(summary.stopped.as_ref());
    }
    Ok(status)
}
