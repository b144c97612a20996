use super::run::{stop_flag, Common};
use super::select::{load, AppArgs};
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;
use wgstress_runtime::compare::{self, Plan};
use wgstress_runtime::runner::Budget;
use wgstress_runtime::strategy::Strategy;
use crate::present::progress::Progress;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    app: AppArgs,
    #[command(flatten)]
    common: Common,
    /// Rounds the budget is split into; every configuration runs once per round
    #[arg(long, default_value_t = 4)]
    rounds: u32,
    /// Where to write the bar chart
    #[arg(long, default_value = "wgstress-compare.svg")]
    svg: PathBuf,
    /// The strategies to compare, comma-separated
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,systematic,cache,random"
    )]
    strategies: Vec<Strategy>,
    /// Workgroup shuffling: both (each strategy with and without), on or off
    #[arg(long, default_value = "both", value_parser = ["both", "on", "off"])]
    shuffle: String,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let app = load(&args.app)?;
    let budget = args.common.budget()?;
    let mut engine = args.common.engine(app)?;
    let shape = args.common.shape(&engine)?;
    let shuffles: &[bool] = match args.shuffle.as_str() {
        "on" => &[true],
        "off" => &[false],
        _ => &[false, true],
    };
    let mut strategies = args.strategies.clone();
    strategies.dedup();
    let mut configs = Vec::new();
    for strategy in strategies {
        let mut settings = args.common.settings(strategy, false, &shape);
        settings.iterations = args.common.iterations(&mut engine, &settings)?;
        for &shuffle in shuffles {
            configs.push(wgstress_runtime::strategy::Settings {
                shuffle,
                ..settings.clone()
            });
        }
    }
    let plan = Plan {
        configs,
        budget,
        rounds: args.rounds.max(1),
        master_seed: args.common.master_seed(),
        stop: stop_flag(),
    };
    let mut log = args.common.log()?;
    let total = Budget {
        runs: budget.runs.map(|r| r * plan.configs.len() as u64),
        time: budget.time.map(|t| t * plan.configs.len() as u32),
    };
    let mut progress = Progress::runs(&total, !args.common.json, true);
    let result = compare::run(&mut engine, &plan, log.as_mut(), &mut |e| {
        progress.on_event(e)
    })?;
    progress.finish();
    crate::present::chart::chart(&result, &args.svg)?;
    if args.common.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", crate::present::comparison::table(&result));
        println!("chart: {}", args.svg.display());
    }
    Ok(if result.aborted.is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
