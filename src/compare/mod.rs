//! `wgstress compare`: every chosen configuration with the same budget, in interleaved
//! rounds; a table, and a bar chart where `--svg` asks for one.

mod chart;
pub(crate) mod comparison;

use crate::fanout::Fanout;
use crate::notes::{emit, Notes};
use crate::options::{AppOptions, BudgetOptions, ScheduleOptions, SessionOptions, StressOptions};
use crate::present::bar::Progress;
use crate::session::SessionPlan;
use crate::status::Status;
use anyhow::Result;
use clap::ValueEnum;
use std::path::PathBuf;
use wgstress_log::JsonLog;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::run::compare;
use wgstress_runtime::run::runner::Budget;

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
    /// Rounds the budget is split into; every configuration runs once per round
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    rounds: u32,
    /// Write a bar chart of the failure rates (SVG) to FILE
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// The strategies to compare, comma-separated
    #[arg(
        long,
        value_parser = crate::options::strategies(),
        value_delimiter = ',',
        default_values_t = Strategy::ALL
    )]
    strategies: Vec<Strategy>,
    /// Workgroup shuffling: each strategy with and without it, or only on, or only off
    #[arg(long, value_enum, default_value_t = Shuffle::Both)]
    shuffle: Shuffle,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Shuffle {
    Both,
    On,
    Off,
}

/// A validated `compare`.
pub struct ComparePlan {
    session: SessionPlan,
    rounds: u32,
    /// Where the chart goes, if anywhere.
    svg: Option<PathBuf>,
    /// Each strategy once, in the order given.
    strategies: Vec<Strategy>,
    shuffles: Vec<bool>,
}

pub fn plan(args: &Args) -> Result<ComparePlan> {
    let session = SessionPlan::new(
        &args.app,
        &args.budget,
        &args.stress,
        &args.session,
        args.schedule.scheduling(),
    )?;
    let mut files = session.files();
    if let Some(svg) = &args.svg {
        files.output("--svg", svg);
    }
    files.check()?;
    let mut strategies: Vec<Strategy> = Vec::new();
    for s in &args.strategies {
        if !strategies.contains(s) {
            strategies.push(*s);
        }
    }
    Ok(ComparePlan {
        session,
        rounds: args.rounds,
        svg: args.svg.clone(),
        strategies,
        shuffles: match args.shuffle {
            Shuffle::Both => vec![false, true],
            Shuffle::On => vec![true],
            Shuffle::Off => vec![false],
        },
    })
}

pub fn execute(plan: ComparePlan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    // Watched from the start: a signal while calibration runs stops the command before its
    // first batch, with a summary of no runs; one while the engine is built quits at once
    // (`SessionPlan::engine`), as nothing is gathered yet.
    let stop = crate::interrupt::stop_flag(notes.on);
    let mut engine = session.engine()?;
    crate::session::announce::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategies.contains(&Strategy::Systematic) {
        notes.note(&format!("systematic stress from {source}"));
    }
    let mut configs = Vec::new();
    for &strategy in &plan.strategies {
        // Iterations are measured once per strategy; shuffling does not change them.
        let (settings, calibration) =
            session
                .stress
                .settings(&mut engine, strategy, false, &shape, &session.budget)?;
        if let Some(c) = &calibration {
            crate::session::announce::note_measured(&settings, c, session, notes);
        }
        let aborted = calibration.as_ref().is_some_and(|c| c.aborted.is_some());
        for &shuffle in &plan.shuffles {
            let settings = wgstress_model::stress::params::Settings {
                shuffle,
                ..settings.clone()
            };
            configs.push((settings, calibration.clone()));
        }
        // A hang in calibration ends the comparison there; the device may be busy still.
        if aborted {
            break;
        }
    }
    let n = configs.len() as u32;
    let rounds = compare::ComparePlan {
        configs,
        budget: session.budget,
        adaptive: session.stress.adaptive(),
        rounds: plan.rounds,
        master_seed: session.master_seed,
        stop,
    };
    let log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    let total = Budget {
        runs: session.budget.runs.map(|r| r * u64::from(n)),
        time: session.budget.time.map(|t| t * n),
        failures: None,
    };
    let mut reporter = Fanout::new(log);
    reporter.show(Progress::runs(&total, notes.on && !session.json, notes.on));
    let result = compare::run(&mut engine, &rounds, &mut reporter)?;
    reporter.finish();
    // The table first: if the chart cannot be written after all, the numbers are shown.
    if session.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&result)?))?;
    } else {
        emit(&crate::compare::comparison::table(&result))?;
    }
    if let Some(svg) = &plan.svg {
        crate::compare::chart::chart(&result, svg)?;
        if !session.json {
            emit(&format!("chart: {}\n", svg.display()))?;
        }
    }
    let status = Status::of(result.stopped.as_ref(), result.failed());
    if status == Status::Aborted {
        crate::status::exit_aborted(result.stopped.as_ref());
    }
    Ok(status)
}
