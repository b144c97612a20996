use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

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
}

pub fn run(args: Args) -> Result<ExitCode> {
    let source = std::fs::read_to_string(&args.shader)
        .with_context(|| format!("{}", args.shader.display()))?;
    let options = wgstress_instrument::Options {
        entry: args.entry,
        postcondition: args.postcondition,
        file_name: Some(args.shader.display().to_string()),
    };
    let result = wgstress_instrument::instrument_wgsl(&source, &options)?;
    let manifest = serde_json::to_string_pretty(&result.manifest)?;
    // Write both files or neither: a failed second write removes the first.
    std::fs::write(&args.output, &result.wgsl)
        .with_context(|| format!("{}", args.output.display()))?;
    if let Err(e) = std::fs::write(&args.manifest, manifest) {
        let _ = std::fs::remove_file(&args.output);
        return Err(e).with_context(|| format!("{}", args.manifest.display()));
    }
    if args.diff {
        print!("{}", result.diff());
    }
    Ok(ExitCode::SUCCESS)
}
