//! `wgstress instrument`: writes the instrumented shader and its manifest.

use crate::notes::{emit, Notes};
use crate::session::paths;
use crate::status::Status;
use anyhow::{Context, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The WGSL application
    shader: PathBuf,
    /// The application's @compute entry point (needed when the shader has several)
    #[arg(long)]
    entry: Option<String>,
    /// A @compute entry point that checks the application's results (overrides a
    /// `// wgstress: postcondition NAME` comment in the shader)
    #[arg(long)]
    postcondition: Option<String>,
    /// Where to write the instrumented WGSL
    #[arg(short, long)]
    output: PathBuf,
    /// Where to write the manifest (JSON)
    #[arg(long)]
    manifest: PathBuf,
    /// Print a unified diff between naga's rendering of the original and the instrumented shader
    #[arg(long)]
    diff: bool,
    /// A value for an `override` (by name or numeric @id): NAME=VALUE, a number or
    /// true/false; repeatable. Overrides are resolved before instrumenting
    #[arg(long = "constant", value_name = "NAME=VALUE", value_parser = constant)]
    constants: Vec<(String, f64)>,
}

/// `NAME=VALUE`: an override's name or @id and a number (true and false are 1 and 0, as for
/// pipeline constants).
fn constant(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{text}` names no override"));
    }
    let value = match value.trim() {
        "true" => 1.0,
        "false" => 0.0,
        number => number
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{number}` is not a number (nor true or false)"))?,
    };
    Ok((name.to_string(), value))
}

/// A validated `instrument`: the source read, both outputs writable and distinct from it
/// and from each other.
pub struct Plan {
    source: String,
    options: wgstress_instrument::InstrumentOptions,
    output: PathBuf,
    manifest: PathBuf,
    diff: bool,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let source = wgstress_model::read::source(&args.shader)?;
    paths::Files::new()
        .input("SHADER", &args.shader)
        .output("--output", &args.output)
        .output("--manifest", &args.manifest)
        .check()?;
    Ok(Plan {
        source,
        options: wgstress_instrument::InstrumentOptions {
            entry: args.entry.clone(),
            postcondition: args.postcondition.clone(),
            file_name: Some(args.shader.display().to_string()),
            constants: args.constants.clone(),
            ..Default::default()
        },
        output: args.output.clone(),
        manifest: args.manifest.clone(),
        diff: args.diff,
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let result = wgstress_instrument::instrument_wgsl(&plan.source, &plan.options)?;
    let path = plan.options.file_name.as_deref().unwrap_or_default();
    notes.barrier_warnings(&plan.source, path);
    let manifest = serde_json::to_string_pretty(&result.manifest)?;
    // Write both files or neither: a failed second write removes the first.
    wgstress_runtime::write::replace(&plan.output, result.wgsl.as_bytes())
        .with_context(|| format!("{}", plan.output.display()))?;
    if let Err(e) = wgstress_runtime::write::replace(&plan.manifest, manifest.as_bytes()) {
        let _ = std::fs::remove_file(&plan.output);
        return Err(e).with_context(|| format!("{}", plan.manifest.display()));
    }
    if plan.diff {
        emit(&result.diff())?;
    }
    Ok(Status::Passed)
}
