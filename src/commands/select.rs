//! Finding the application a command names: a bundled one, or an app spec file.

use anyhow::{bail, Result};
use std::path::Path;
use wgstress_apps::{Size, Variant};
use wgstress_runtime::spec::App;

#[derive(clap::Args, Clone)]
pub struct AppArgs {
    /// A bundled application (see `wgstress apps`) or an app spec (.toml)
    pub app: String,
    /// Which variant of a bundled application
    #[arg(long, default_value = "fixed")]
    pub variant: Variant,
    /// Problem size of a bundled application
    #[arg(long, default_value = "small")]
    pub size: Size,
}

pub fn load(args: &AppArgs) -> Result<App> {
    if args.app.ends_with(".toml") || Path::new(&args.app).exists() {
        return Ok(wgstress_runtime::spec::load(Path::new(&args.app))?);
    }
    match wgstress_apps::find(&args.app) {
        Some(bundled) => Ok(bundled.build(args.variant, args.size)),
        None => bail!(
            "no bundled application or spec file named `{}` (bundled: {})",
            args.app,
            wgstress_apps::all()
                .iter()
                .map(|a| a.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
