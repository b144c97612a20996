//! `wgstress litmus`: one parallel litmus test in one environment, counted.

mod litmus_report;

use crate::notes::{emit, Notes};
use crate::options::{LitmusEnvOptions, LogOptions};
use crate::session::paths;
use crate::status::Status;
use anyhow::{anyhow, bail, Result};
use std::time::Duration;
use wgstress_litmus::{catalog, test};

mod run;

use run::{run, RunPlan};

#[derive(clap::Args)]
pub struct Args {
    /// The test: mp, sb, lb, corr, coww, cowr, corw, 2+2w, or one of the MC Mutants suite
    /// (--list)
    #[arg(required_unless_present = "list")]
    test: Option<String>,
    /// List every test: its kind (classic, conformance or mutant) and the behaviour it
    /// looks for
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    env: LitmusEnvOptions,
    /// storageBarrier() between each thread's accesses: weak behaviour should vanish, and
    /// the exit status is 1 if it does not (as it is for any run that breaks coherence)
    #[arg(long)]
    fence: bool,
    /// Iterations (dispatches of every instance); 100 when neither this nor --time is given
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: Option<u64>,
    /// Time budget in seconds
    #[arg(long, value_parser = crate::options::seconds, allow_negative_numbers = true)]
    time: Option<Duration>,
    /// Iterations per submission
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    batch: u32,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    log: LogOptions,
}

/// A validated `litmus`: the list, or a run.
pub enum Plan {
    List,
    Run(Box<RunPlan>),
}

pub fn plan(args: &Args) -> Result<Plan> {
    let name = match (&args.test, args.list) {
        (_, true) => return Ok(Plan::List),
        (Some(name), false) => name,
        (None, false) => bail!("give a test's name, or --list"),
    };
    let test = catalog::find(name).ok_or_else(|| {
        let names: Vec<_> = test::classics().iter().map(|t| t.name.clone()).collect();
        anyhow!(
            "unknown litmus test `{name}` (known: {}, and the MC Mutants suite's: wgstress litmus --list)",
            names.join(", ")
        )
    })?;
    let time = args.time;
    let log = crate::session::log_path(&args.log);
    let env_file = crate::session::env_file(args.env.env_file.as_deref())?;
    let mut files = paths::Files::new();
    if let Some(file) = &env_file {
        files.input("--env", file);
    }
    if let Some(log) = &log {
        files.output("--log", log);
    }
    files.check()?;
    Ok(Plan::Run(Box::new(RunPlan {
        test,
        env: args.env.env(args.fence),
        env_file,
        adapter: args.env.device.choice(),
        fence: args.fence,
        iterations: match (args.iterations, time) {
            (None, None) => Some(100),
            (n, _) => n,
        },
        time,
        batch: args.batch,
        json: args.json,
        log,
    })))
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    match plan {
        Plan::List => {
            emit(&crate::litmus::litmus_report::list(&catalog::all()))?;
            Ok(Status::Passed)
        }
        Plan::Run(plan) => run(*plan, notes),
    }
}
