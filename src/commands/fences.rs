//! `wgstress fences`: the candidate fence sites of an application (where a storage barrier
//! can go in uniform control flow), or its shader with a barrier at every one.

use crate::notes::emit;
use crate::options::AppOptions;
use crate::plan::{load_app, paths};
use crate::status::Status;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use wgstress_instrument::fences::{fences, Side};
use wgstress_runtime::spec::App;

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true))]
pub struct Args {
    #[command(flatten)]
    app: AppOptions,
    /// List the candidate sites: file:line:column of the access, the side, the function, the
    /// access's source line
    #[arg(long, group = "what")]
    sites: bool,
    /// Write the shader with a storageBarrier() at every site (needs --output)
    #[arg(long, group = "what", requires = "output")]
    all: bool,
    /// Where --all writes the shader
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// A validated `fences`.
pub struct Plan {
    app: App,
    sites: bool,
    /// Where the all-sites shader goes, checked writable and distinct from the inputs.
    output: Option<PathBuf>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let (app, inputs) = load_app(&args.app)?;
    let output = if args.all { args.output.clone() } else { None };
    if let Some(out) = &output {
        paths::writable(out, "--output")?;
        let mut all: Vec<(&str, &Path)> = inputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
        all.push(("--output", out));
        paths::distinct(&all)?;
    }
    Ok(Plan {
        app,
        sites: args.sites,
        output,
    })
}

pub fn execute(plan: Plan) -> Result<Status> {
    let app = &plan.app;
    let options = wgstress_instrument::Options {
        entry: app.entry.clone(),
        postcondition: app.postcondition.clone(),
        file_name: Some(app.shader_path.clone()),
    };
    let found = fences(&app.source, &options)?;
    if plan.sites {
        let lines: Vec<&str> = app.source.lines().collect();
        let mut text = String::new();
        for site in &found.sites {
            let side = match site.side {
                Side::Before => "before",
                Side::After => "after",
            };
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
