//! `wgstress merge DIR...`: every shard under the directories, pooled into one report
//! (text or JSON on stdout, an HTML page with SVG charts), judged against a baseline.

use crate::notes::{emit, Notes};
use crate::session::paths;
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;
use wgstress_campaign::baseline::Baseline;
use wgstress_campaign::{merge, render};

#[derive(clap::Args)]
pub struct Args {
    /// Campaign output directories (their --out), or any directories above shards
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Expectations (TOML `[[expect]]` entries: item, adapter, outcome): exit 1 only on
    /// results they do not expect
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    /// Also write the report as an HTML page with SVG charts
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// A validated merge: the directories exist, the baseline is read, the page can be written.
pub struct Plan {
    dirs: Vec<PathBuf>,
    baseline: Option<(PathBuf, Baseline)>,
    json: bool,
    html: Option<PathBuf>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    for dir in &args.dirs {
        if !dir.is_dir() {
            anyhow::bail!("{}: no such directory", dir.display());
        }
    }
    let baseline = match &args.baseline {
        Some(path) => Some((path.clone(), Baseline::load(path)?)),
        None => None,
    };
    if let Some(html) = &args.html {
        let mut files = paths::Files::new();
        if let Some(b) = &args.baseline {
            files.input("--baseline", b);
        }
        for dir in &args.dirs {
            files.tree(dir);
        }
        files.output("--html", html).check()?;
    }
    Ok(Plan {
        dirs: args.dirs.clone(),
        baseline,
        json: args.json,
        html: args.html.clone(),
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let shards = merge::read(&plan.dirs)?;
    let baseline = plan.baseline.as_ref();
    let report = merge::merge(
        &shards,
        baseline.map(|(_, b)| b),
        baseline.map(|(p, _)| p.display().to_string()),
        &crate::present::replay::options,
    );
    if plan.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&render::text(&report))?;
    }
    if let Some(path) = &plan.html {
        wgstress_runtime::write::replace(path, render::html(&report).as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        notes.note(&format!("report: {}", path.display()));
    }
    Ok(Status::of(None, report.failed()))
}
