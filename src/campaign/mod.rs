//! `wgstress campaign PLAN --out DIR`: one shard of a plan, on one adapter or on every one
//! at once, each item a child wgstress process; the logs go to `DIR/<host>/<gpu>/shard-I/`
//! for `wgstress merge`. `--list` shows the items and their shards instead.

pub(crate) mod campaign_report;

use crate::campaign::campaign_report as present;
use crate::fanout::Fanout;
use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::{anyhow, Result};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use wgstress_campaign::baseline::Baseline;
use wgstress_campaign::execute::{self, Campaign};
use wgstress_campaign::outcome::{BaselineJudgement, SessionOutcome};
use wgstress_campaign::plan::{CampaignPlan, ItemCheck};
use wgstress_campaign::shard::Shard;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign's plan (TOML: the items, each a command on an application; docs/campaigns.md)
    plan: PathBuf,
    /// Where the shard's logs go (DIR/<host>/<gpu>/shard-I/); merge reads them
    #[arg(long, required_unless_present = "list")]
    out: Option<PathBuf>,
    /// Run the I-th of N shards (from 0) [default: from SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX and JOB_COMPLETIONS, else the whole plan]
    #[arg(long, value_name = "I/N", value_parser = shard)]
    shard: Option<Shard>,
    /// The adapter whose name contains this, `#N` the N-th `wgstress adapters` lists; `all`:
    /// every GPU at once, a worker each (a CPU driver only where there is no GPU); `all:TEXT`:
    /// every adapter whose name contains TEXT [default: the best one]
    #[arg(long)]
    adapter: Option<String>,
    /// Run the items on the GPU of a headless Chromium, through WebGPU, as `--browser` does
    /// (docs/browser.md): each item starts its own; the logs go under the browser's adapter
    #[arg(long, conflicts_with = "adapter")]
    browser: bool,
    /// This machine's name in the output's paths and the report [default: the system's]
    #[arg(long)]
    host: Option<String>,
    /// Expectations (TOML, as merge takes): which failures are known, for --rerun-unexpected
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Re-run an item that failed unexpectedly up to K times: a pass makes it a flake
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    rerun_unexpected: u32,
    /// List the plan's items, their shards (this one's marked) and seeds; run nothing
    #[arg(long, conflicts_with_all = ["out", "adapter", "browser", "host", "baseline"])]
    list: bool,
}

fn shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

/// A validated campaign: the list, or a shard to run.
pub enum Plan {
    List(CampaignPlan, Shard),
    Run(Box<RunPlan>),
}

/// A shard to run: the plan and every item checked, the adapters found, the output
/// directories created and empty of earlier shards.
pub struct RunPlan {
    plan: CampaignPlan,
    shard: Shard,
    host: String,
    workers: Vec<execute::Worker>,
    baseline: Option<Baseline>,
    rerun_unexpected: u32,
}

pub fn plan(args: &Args, check: ItemCheck) -> Result<Plan> {
    let plan = CampaignPlan::load(&args.plan, check)?;
    let shard = match args.shard {
        Some(s) => s,
        None => Shard::from_env(&|name| std::env::var(name).ok())?.unwrap_or(Shard::WHOLE),
    };
    let Some(out) = args.out.as_deref().filter(|_| !args.list) else {
        return Ok(Plan::List(plan, shard));
    };
    let host = match &args.host {
        Some(h) => h.clone(),
        None => wgstress_campaign::layout::host_name()
            .ok_or_else(|| anyhow!("cannot tell this machine's name: give --host"))?,
    };
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let adapters = match args.browser {
        true => vec![crate::session::adapters::for_browser()?],
        false => crate::session::adapters::for_campaign(args.adapter.as_deref())?,
    };
    let workers = execute::prepare(out, &host, &adapters, shard)?;
    Ok(Plan::Run(Box::new(RunPlan {
        plan,
        shard,
        host,
        workers,
        baseline,
        rerun_unexpected: args.rerun_unexpected,
    })))
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let plan = match plan {
        Plan::List(plan, shard) => {
            emit(&present::list(&plan, shard))?;
            return Ok(Status::Passed);
        }
        Plan::Run(plan) => plan,
    };
    let owned = plan.plan.items.iter().filter(|i| plan.shard.owns(i));
    notes.note(&format!(
        "campaign {}: shard {} ({} of {} items) on {} of {}",
        plan.plan.name,
        plan.shard,
        owned.count(),
        plan.plan.items.len(),
        crate::present::numbers::count(plan.workers.len(), "GPU", "GPUs"),
        plan.host
    ));
    let children = std::sync::Arc::new(wgstress_campaign::children::Children::new());
    crate::interrupt::forward_to(children.clone());
    let campaign = Campaign {
        plan: &plan.plan,
        shard: plan.shard,
        host: plan.host.clone(),
        workers: plan.workers.clone(),
        binary: std::env::current_exe()?,
        rerun_unexpected: plan.rerun_unexpected,
        baseline: plan.baseline.as_ref(),
        stop: crate::interrupt::stop_flag(notes.on),
        children,
    };
    let mut reporter = Fanout::new(None);
    reporter.show(present::ShardNotes(notes));
    let outcomes = execute::run(&campaign, &mut reporter)?;
    emit(&present::table(&outcomes))?;
    for w in &plan.workers {
        emit(&format!("logs: {}\n", w.dir.display()))?;
    }
    let unexpected = outcomes
        .iter()
        .any(|o| BaselineJudgement::of(o.expected, o.outcome).unexpected());
    Ok(if campaign.stop.load(Ordering::SeqCst) {
        Status::Interrupted
    } else if outcomes.iter().any(|o| o.outcome == SessionOutcome::Error) {
        Status::Aborted
    } else {
        Status::of(None, unexpected)
    })
}
