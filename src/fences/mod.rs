//! `wgstress fences`: the search for the storage barriers that stop an application's
//! failures (search.rs); or its candidate fence sites (where a storage barrier can go in
//! uniform control flow), or its shader with a barrier at every one.

pub(crate) mod fence_report;
mod fix;
mod output;
mod search;
pub(crate) mod search_bar;
mod sites;

use crate::notes::Notes;
use crate::options::AppOptions;
use crate::session::{load_app, paths};
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;
use wgstress_runtime::app::spec::App;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    app: AppOptions,
    /// List the candidate sites (no search): file:line:column of the access, the side, the
    /// function, the access's source line
    #[arg(long)]
    sites: bool,
    /// Write the shader with a storageBarrier() at every site (no search; needs --output)
    #[arg(long, requires = "output")]
    all: bool,
    /// Where the search writes the patched shader (only a verified fix), or --all its shader
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    search: search::SearchOptions,
}

/// A validated `fences`: a search, or the sites and the all-sites shader.
pub enum Plan {
    Search(Box<search::Plan>),
    Sites(Box<SitesPlan>),
}

pub struct SitesPlan {
    app: App,
    sites: bool,
    /// Where the all-sites shader goes, checked writable and distinct from the inputs.
    output: Option<PathBuf>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    if !args.sites && !args.all {
        let plan = search::plan(&args.app, &args.search, args.output.as_deref())?;
        return Ok(Plan::Search(Box::new(plan)));
    }
    let (app, inputs) = load_app(&args.app)?;
    stressed(&app)?;
    let output = if args.all { args.output.clone() } else { None };
    if let Some(out) = &output {
        if !app.pipeline.is_empty() {
            anyhow::bail!(
                "{}: --all writes one shader with a barrier at every site; this spec is a pipeline (--sites lists the sites of every pass)",
                app.name
            );
        }
        paths::Files::new()
            .inputs(&inputs)
            .output("--output", out)
            .check()?;
    }
    Ok(Plan::Sites(Box::new(SitesPlan {
        app,
        sites: args.sites,
        output,
    })))
}

/// The search places fences in the shaders of the stressed dispatches: an application
/// needs one.
fn stressed(app: &App) -> Result<()> {
    if app.dispatches().iter().any(|d| d.stress) {
        return Ok(());
    }
    anyhow::bail!(
        "{}: no dispatch runs under stress (stress = false in every [[dispatch]]): fences has nothing to search",
        app.name
    )
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    match plan {
        Plan::Search(plan) => {
            let (outcome, mut log) = search::execute(&plan, notes)?;
            output::show(&plan, &outcome, log.as_mut())
        }
        Plan::Sites(plan) => {
            notes.app_warnings(&plan.app);
            sites::sites(plan.app, plan.sites, plan.output.as_deref())
        }
    }
}
