//! `wgstress campaign PLAN --out DIR`: one shard of a plan, on one adapter or on every one
//! at once, each item a child wgstress process; the logs go to `DIR/<host>/<gpu>/shard-I/`
//! for `wgstress merge`.

use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::{anyhow, Result};
use std::path::PathBuf;
use wgstress_campaign::baseline::Baseline;
use wgstress_campaign::execute::{self, Campaign, Event};
use wgstress_campaign::outcome::{Judgement, Outcome};
use wgstress_campaign::plan::{Check, Plan as CampaignPlan};
use wgstress_campaign::record::Adapter;
use wgstress_campaign::shard::Shard;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign's plan (TOML: the items, each a command on an application; docs/campaigns.md)
    plan: PathBuf,
    /// Where the shard's logs go (DIR/<host>/<gpu>/shard-I/); merge reads them
    #[arg(long)]
    out: PathBuf,
    /// Run the I-th of N shards (from 0) [default: from SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX and JOB_COMPLETIONS, else the whole plan]
    #[arg(long, value_name = "I/N", value_parser = shard)]
    shard: Option<Shard>,
    /// The adapter whose name contains this, `#N` the N-th `wgstress adapters` lists, or
    /// `all`: every adapter at once, a worker each [default: the best one]
    #[arg(long)]
    adapter: Option<String>,
    /// This machine's name in the output's paths and the report [default: the system's]
    #[arg(long)]
    host: Option<String>,
    /// Expectations (TOML, as merge takes): which failures are known, for --rerun-unexpected
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Re-run an item that failed unexpectedly up to K times: a pass makes it a flake
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    rerun_unexpected: u32,
}

fn shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

/// A validated shard: the plan and every item checked, the adapters found, the output
/// directories created and empty of earlier shards.
pub struct Plan {
    plan: CampaignPlan,
    shard: Shard,
    host: String,
    workers: Vec<execute::Worker>,
    baseline: Option<Baseline>,
    rerun_unexpected: u32,
}

pub fn plan(args: &Args, check: Check) -> Result<Plan> {
    let plan = CampaignPlan::load(&args.plan, check)?;
    let shard = match args.shard {
        Some(s) => s,
        None => Shard::from_env(&|name| std::env::var(name).ok())?.unwrap_or(Shard::WHOLE),
    };
    let host = match &args.host {
        Some(h) => h.clone(),
        None => wgstress_campaign::layout::host_name()
            .ok_or_else(|| anyhow!("cannot tell this machine's name: give --host"))?,
    };
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let workers = execute::prepare(&args.out, &host, &adapters(args.adapter.as_deref())?, shard)?;
    Ok(Plan {
        plan,
        shard,
        host,
        workers,
        baseline,
        rerun_unexpected: args.rerun_unexpected,
    })
}

/// The adapters `--adapter` names: every one for `all`.
fn adapters(wanted: Option<&str>) -> Result<Vec<Adapter>> {
    let found: Vec<(usize, _)> = match wanted {
        Some("all") => wgstress_runtime::device::adapters()
            .into_iter()
            .enumerate()
            .collect(),
        _ => vec![wgstress_runtime::device::find(wanted)?],
    };
    if found.is_empty() {
        return Err(wgstress_runtime::Error::NoAdapter.into());
    }
    Ok(found
        .into_iter()
        .map(|(index, info)| Adapter {
            index,
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            name: info.name,
        })
        .collect())
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let binary = std::env::current_exe()?;
    let owned = plan
        .plan
        .items
        .iter()
        .filter(|i| plan.shard.owns(i))
        .count();
    notes.note(&format!(
        "campaign {}: shard {} ({owned} of {} items) on {} GPU(s) of {}",
        plan.plan.name,
        plan.shard,
        plan.plan.items.len(),
        plan.workers.len(),
        plan.host
    ));
    let campaign = Campaign {
        plan: &plan.plan,
        shard: plan.shard,
        host: plan.host.clone(),
        workers: plan.workers.clone(),
        binary,
        rerun_unexpected: plan.rerun_unexpected,
        baseline: plan.baseline.as_ref(),
        stop: crate::interrupt::stop_flag(notes.on),
    };
    let outcomes = execute::run(&campaign, &|event| progress(event, notes))?;
    emit(&crate::present::campaign::table(&outcomes))?;
    for w in &plan.workers {
        emit(&format!("logs: {}\n", w.dir.display()))?;
    }
    let judged: Vec<Judgement> = outcomes
        .iter()
        .map(|o| Judgement::of(o.expected, o.outcome))
        .collect();
    Ok(if campaign.stop.load(std::sync::atomic::Ordering::SeqCst) {
        Status::Interrupted
    } else if outcomes.iter().any(|o| o.outcome == Outcome::Error) {
        Status::Aborted
    } else {
        Status::of(false, false, judged.iter().any(|j| j.unexpected()))
    })
}

fn progress(event: Event, notes: Notes) {
    match event {
        Event::Started {
            adapter,
            item,
            attempt,
        } => notes.note(&format!(
            "#{} {}{}: started",
            adapter.index,
            item.name,
            rerun(attempt)
        )),
        Event::Finished {
            adapter,
            item,
            attempt,
            exit,
            seconds,
        } => notes.note(&format!(
            "#{} {}{}: {exit} in {seconds:.1} s",
            adapter.index,
            item.name,
            rerun(attempt)
        )),
    }
}

fn rerun(attempt: u32) -> String {
    match attempt {
        0 => String::new(),
        n => format!(" (re-run {n})"),
    }
}
