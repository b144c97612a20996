//! `wgstress progress`: progress litmus tests (the seed's progress models). `--oracle` gives
//! each test's verdict under every model without a GPU, `--generate` writes the suite,
//! `--suite` and `--tests` run tests on the adapter and say which models it conformed to.

use crate::notes::Notes;
use crate::options::{LogOptions, ProgressRunOptions};
use crate::plan::progress::{Modes, ProgressPlan};
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;

mod generate;
mod oracle;
mod run;

#[derive(clap::Args)]
pub struct Args {
    /// Print each test file's verdict under every progress model, weak and strong: whether
    /// it is guaranteed to terminate (no GPU; with --json, the starving execution too)
    #[arg(long, num_args = 1.., value_name = "FILE")]
    oracle: Vec<PathBuf>,
    /// Write the generated suite into DIR (new or empty), one file per test, and print its
    /// size and its Table 4 beside the seed's
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

pub fn plan(args: &Args) -> Result<ProgressPlan> {
    crate::plan::progress::plan(
        Modes {
            oracle: &args.oracle,
            generate: args.generate.as_deref(),
            suite: args.suite,
            tests: &args.tests,
        },
        &args.run,
        &args.log,
        args.json,
    )
}

pub fn execute(plan: ProgressPlan, notes: Notes) -> Result<Status> {
    match plan {
        ProgressPlan::Oracle { tests, json } => oracle::oracle(&tests, json),
        ProgressPlan::Generate { dir, json } => generate::generate(&dir, json, notes),
        ProgressPlan::Run(plan) => run::run(plan, notes),
    }
}
