//! The `wgstress` command line: a thin layer over wgstress-instrument and wgstress-runtime.
//!
//! Exit status: 0 when every run passed, 1 when some run failed, 2 on bad input or an error.

mod commands;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "wgstress",
    version,
    about = "Find weak-memory bugs in WGSL compute applications by stress testing them on a real GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Rewrite a WGSL application: stress workgroups, assertion hooks, loop watchdog
    Instrument(commands::instrument::Args),
    /// Run an application many times under stress and report how often it fails
    Run(commands::run::Args),
    /// Run an application under every stress strategy, with and without shuffling
    Compare(commands::compare::Args),
    /// Run a parallel litmus test (mp, sb, lb, corr, coww, cowr, corw, 2+2w)
    Litmus(commands::litmus::Args),
    /// Run the MC Mutants suite: death rates, mutation score, conformance violations; or
    /// search for the environment that kills the most mutants
    Mutants(commands::mutants::Args),
    /// Tune systematic stress to this GPU with litmus tests; writes a device profile
    Tune(commands::tune::Args),
    /// List the bundled applications
    Apps,
    /// List the GPU adapters wgpu finds
    Adapters,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Instrument(args) => commands::instrument::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Litmus(args) => commands::litmus::run(args),
        Command::Mutants(args) => commands::mutants::run(args),
        Command::Tune(args) => commands::tune::run(args),
        Command::Apps => commands::apps::list(),
        Command::Adapters => commands::apps::adapters(),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("wgstress: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
