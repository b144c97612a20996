//! `wgstress progress`: forward progress (the seed's progress models). With an application,
//! runs it under each progress model and occupancy bound and says which it needs (app.rs).
//! Progress litmus tests: `--oracle` gives each test's verdict under every model without a
//! GPU, `--generate` writes the suite, `--suite` and `--tests` run tests on the adapter and say
//! which models it conformed to.

pub(crate) mod app_report;
mod plan;
mod termination;

use crate::notes::Notes;
use crate::options::{LogOptions, ProgressRunOptions};
use crate::progress::plan::{Modes, ProgressPlan};
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;

mod app;
mod generate;
mod oracle;
mod run;

#[derive(clap::Args)]
pub struct Args {
    /// A bundled application (see `wgstress apps`) or an app spec (.toml), run under each
    /// progress model and occupancy bound
    #[arg(conflicts_with_all = ["oracle", "generate", "suite", "tests"])]
    app: Option<String>,
    #[command(flatten)]
    app_options: app::AppArgs,
    /// Print each test file's verdict under every progress model, weak and strong: whether
    /// it is guaranteed to terminate (no GPU). A test that reaches more states than the oracle
    /// explores is refused
    #[arg(long, num_args = 1.., value_name = "FILE")]
    oracle: Vec<PathBuf>,
    /// With --oracle --json: for every verdict where the test need not terminate, the
    /// execution that shows it (the steps from the start, then the cycle repeated forever, and
    /// the threads the model guarantees on it). Without it the JSON holds the verdicts only
    #[arg(long, requires_all = ["oracle", "json"])]
    evidence: bool,
    /// Write the generated suite into DIR (new or empty), one file per test, and print its
    /// size, its Table 4 counted as OOPSLA'21's is beside OOPSLA'21's, and each model's own
    /// counts
    #[arg(long, value_name = "DIR")]
    generate: Option<PathBuf>,
    /// Run the generated suite on this adapter
    #[arg(long)]
    suite: bool,
    /// Run these test files on this adapter
    #[arg(long, num_args = 1.., value_name = "FILE")]
    tests: Vec<PathBuf>,
    #[command(flatten)]
    run: ProgressRunOptions,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    log: LogOptions,
}

/// A validated `progress`: an application's, or the litmus tests'.
pub enum Plan {
    App(Box<app::Plan>),
    Tests(ProgressPlan),
}

pub fn plan(args: &Args) -> Result<Plan> {
    if let Some(app) = &args.app {
        return Ok(Plan::App(Box::new(app::plan(
            app,
            &args.app_options,
            &args.run,
            &args.log,
            args.json,
        )?)));
    }
    args.app_options.refuse_without_app()?;
    Ok(Plan::Tests(crate::progress::plan::plan(
        Modes {
            oracle: &args.oracle,
            evidence: args.evidence,
            generate: args.generate.as_deref(),
            suite: args.suite,
            tests: &args.tests,
        },
        &args.run,
        &args.log,
        args.json,
    )?))
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    match plan {
        Plan::App(plan) => app::execute(*plan, notes),
        Plan::Tests(ProgressPlan::Oracle { tests, output }) => oracle::oracle(&tests, output),
        Plan::Tests(ProgressPlan::Generate { dir, json }) => generate::generate(&dir, json, notes),
        Plan::Tests(ProgressPlan::Run(plan)) => run::run(plan, notes),
    }
}
