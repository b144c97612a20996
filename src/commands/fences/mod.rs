//! `wgstress fences`: the search for the storage barriers that stop an application's
//! failures (search.rs); or its candidate fence sites (where a storage barrier can go in
//! uniform control flow), or its shader with a barrier at every one.

mod output;
mod search;

use crate::notes::{emit, Notes};
use crate::options::AppOptions;
use crate::plan::{load_app, paths};
use crate::status::Status;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use wgstress_instrument::fences::{fences, Side};
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
    single_kernel(&app)?;
    let output = if args.all { args.output.clone() } else { None };
    if let Some(out) = &output {
        paths::writable(out, "--output")?;
        let mut all: Vec<(&str, &Path)> = inputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
        all.push(("--output", out));
        paths::distinct(&all)?;
    }
    Ok(Plan::Sites(Box::new(SitesPlan {
        app,
        sites: args.sites,
        output,
    })))
}

/// The fence search places fences in one kernel; a pipeline is refused rather than searched
/// in its first shader only.
fn single_kernel(app: &wgstress_runtime::app::spec::App) -> Result<()> {
    if app.pipeline.is_empty() && app.postcondition_shader.is_none() {
        return Ok(());
    }
    anyhow::bail!(
        "{}: fences works on a single kernel in one file; this spec is a pipeline of {} dispatches or has a postcondition_shader",
        app.name,
        app.dispatches().len()
    )
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    match plan {
        Plan::Search(plan) => search::execute(*plan, notes),
        Plan::Sites(plan) => sites(*plan),
    }
}

/// How a site's side reads.
fn side_name(side: Side) -> &'static str {
    match side {
        Side::Before => "before",
        Side::After => "after",
    }
}

fn sites(plan: SitesPlan) -> Result<Status> {
    let app = &plan.app;
    let options = wgstress_instrument::Options {
        entry: app.entry.clone(),
        postcondition: app.postcondition.clone(),
        file_name: Some(app.shader_path.clone()),
        ..Default::default()
    };
    let found = fences(&app.source, &options)?;
    if plan.sites {
        let lines: Vec<&str> = app.source.lines().collect();
        let mut text = String::new();
        for site in &found.sites {
            let side = side_name(site.side);
            let source = lines.get(site.line as usize - 1).map_or("", |l| l.trim());
            text.push_str(&format!(
                "{}:{}:{}: site {} {side} (in {}): {source}\n",
                app.shader_path, site.line, site.column, site.id, site.function
            ));
        }
        emit(&text)?;
    }
    if let Some(output) = &plan.output {
        std::fs::write(output, &found.all_fenced_wgsl)
            .with_context(|| format!("{}", output.display()))?;
    }
    Ok(Status::Passed)
}
