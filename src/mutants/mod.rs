//! `wgstress mutants`: the MC Mutants suite in one environment (death rates, mutation score,
//! reproducibility, conformance violations), or `--search` for the best environment.

mod mutants_report;

use crate::notes::Notes;
use crate::options::{LitmusEnvOptions, LogOptions};
use crate::session::paths;
use crate::status::Status;
use anyhow::Result;
use clap::ValueEnum;
use std::path::PathBuf;
use std::time::Duration;
use wgstress_litmus::catalog;
use wgstress_litmus::search::{EnvSearchConfig, Space};
use wgstress_litmus::test::Test;
use wgstress_log::JsonLog;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::kind::Kind;
use wgstress_runtime::gpu::device::open;

mod report;
mod search;
mod suite;

use report::Report;
use search::{run_search, Search};
use suite::{run, Suite};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    env: LitmusEnvOptions,
    /// Seconds each test runs
    #[arg(long, default_value = "1", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    time: Duration,
    /// Which tests of the suite run
    #[arg(long, value_enum, default_value_t = Tests::All)]
    tests: Tests,
    /// Reproducibility target of the score and of the search's Algorithm 1 (above 0, below 1)
    #[arg(long, default_value_t = 0.99999, value_parser = crate::options::probability, allow_negative_numbers = true)]
    reproducibility: f64,
    /// Per-test time budget (seconds) the reproducibility score is for
    #[arg(long, default_value = "64", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    budget: Duration,
    /// Search environments for this many seconds instead, and write the best to --write-env
    #[arg(long, value_name = "SECONDS", value_parser = crate::options::seconds, allow_negative_numbers = true, conflicts_with = "env_file")]
    search: Option<Duration>,
    /// Seconds each mutant runs in each environment of the search
    #[arg(long, default_value = "0.1", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    search_time: Duration,
    /// Share of the search spent on random environments before guided ones (0 to 1)
    #[arg(long, default_value_t = 0.5, value_parser = crate::options::share, allow_negative_numbers = true)]
    random_share: f64,
    /// Testing workgroups the search tries (comma-separated)
    #[arg(long, value_delimiter = ',', default_values_t = [256u32, 512, 1024], value_parser = clap::value_parser!(u32).range(1..=65_535))]
    search_groups: Vec<u32>,
    /// Seed of the search's random environments, decimal or 0x-hex
    #[arg(long, default_value = "1", value_parser = crate::options::seed)]
    seed: u64,
    /// Where the search writes the best environment
    #[arg(long, default_value = "wgstress-env.json")]
    write_env: PathBuf,
    /// Print the results as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    log: LogOptions,
}

/// Which tests of the suite run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Tests {
    /// The mutants and the conformance tests
    All,
    /// The mutants: their death rates and the mutation score
    Mutants,
    /// The conformance tests: disallowed behaviours, possible driver or naga bugs
    Conformance,
}

/// A validated `mutants`: the suite in one environment, or a search.
pub struct Plan {
    mode: Mode,
    adapter: wgstress_runtime::gpu::device::AdapterChoice,
    report: Report,
    log: Option<PathBuf>,
}

enum Mode {
    Suite {
        tests: Vec<Test>,
        /// The options' environment; --env FILE's replaces it when found on the adapter.
        env: Env,
        env_file: Option<PathBuf>,
        time: Duration,
    },
    Search(Box<Search>),
}

pub fn plan(args: &Args) -> Result<Plan> {
    let log = crate::session::log_path(&args.log);
    let mut files = paths::Files::new();
    if let Some(log) = &log {
        files.output("--log", log);
    }
    let mode = match args.search {
        Some(seconds) => {
            files.output("--write-env", &args.write_env);
            Mode::Search(Box::new(Search {
                config: search_config(args, seconds),
                mutants: selected(Tests::Mutants),
                write_env: args.write_env.clone(),
            }))
        }
        None => Mode::Suite {
            tests: selected(args.tests),
            env: args.env.env(false),
            env_file: crate::session::env_file(args.env.env_file.as_deref())?,
            time: args.time,
        },
    };
    if let Mode::Suite {
        env_file: Some(file),
        ..
    } = &mode
    {
        files.input("--env", file);
    }
    files.check()?;
    Ok(Plan {
        mode,
        adapter: args.env.device.choice(),
        report: Report {
            reproducibility: args.reproducibility,
            budget: args.budget.as_secs_f64(),
            json: args.json,
        },
        log,
    })
}

fn search_config(args: &Args, seconds: Duration) -> EnvSearchConfig {
    EnvSearchConfig {
        space: Space {
            testing_groups: args.search_groups.clone(),
            workgroup_size: args.env.workgroup_size,
            ..Space::default()
        },
        budget: seconds,
        per_test: args.search_time,
        random_share: args.random_share,
        reproducibility: args.reproducibility,
        test_budget: args.budget.as_secs_f64(),
        seed: args.seed,
    }
}

fn selected(which: Tests) -> Vec<Test> {
    catalog::all()
        .into_iter()
        .filter(|t| match (which, t.kind) {
            (_, Kind::Classic) => false,
            (Tests::All, _) => true,
            (Tests::Mutants, Kind::Mutant(_)) | (Tests::Conformance, Kind::Conformance(_)) => true,
            _ => false,
        })
        .collect()
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let gpu = open(&plan.adapter)?;
    let mut log = plan.log.as_deref().map(JsonLog::append_to).transpose()?;
    match &plan.mode {
        Mode::Suite {
            tests,
            env,
            env_file,
            time,
        } => {
            let env = crate::session::announce::resolve_env(
                env.clone(),
                env_file.as_deref(),
                &gpu.info.name,
                notes,
            )?;
            let suite = Suite {
                tests,
                env,
                time: *time,
            };
            run(&plan.report, &suite, &gpu, log.as_mut(), notes)
        }
        Mode::Search(search) => run_search(&plan.report, search, &gpu, log.as_mut(), notes),
    }
}
