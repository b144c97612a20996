//! `wgstress fences`: the candidate fence sites of an application (where a storage barrier
//! can go in uniform control flow), or its shader with a barrier at every one.

use super::select::{self, AppArgs};
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use wgstress_instrument::fences::{fences, Side};

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true))]
pub struct Args {
    #[command(flatten)]
    app: AppArgs,
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

pub fn run(args: Args) -> Result<ExitCode> {
    let app = select::load(&args.app)?;
    let options = wgstress_instrument::Options {
        entry: app.entry.clone(),
        postcondition: app.postcondition.clone(),
        file_name: Some(app.shader_path.clone()),
    };
    let found = fences(&app.source, &options)?;
    if args.sites {
        let lines: Vec<&str> = app.source.lines().collect();
        for site in &found.sites {
            let side = match site.side {
                Side::Before => "before",
                Side::After => "after",
            };
            let text = lines.get(site.line as usize - 1).map_or("", |l| l.trim());
            println!(
                "{}:{}:{}: site {} {side} (in {}): {text}",
                app.shader_path, site.line, site.column, site.id, site.function
            );
        }
    }
    if let (true, Some(output)) = (args.all, &args.output) {
        std::fs::write(output, &found.all_fenced_wgsl)
            .with_context(|| format!("{}", output.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
