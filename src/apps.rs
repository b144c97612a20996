//! `wgstress apps` and `wgstress adapters`: lists.

use crate::notes::emit;
use crate::status::Status;
use anyhow::Result;

pub fn list() -> Result<Status> {
    let mut text = String::new();
    for app in wgstress_apps::all() {
        text.push_str(&format!("{:<14} {}\n", app.name, app.summary));
    }
    emit(&text)?;
    Ok(Status::Passed)
}

#[derive(clap::Args)]
pub struct AdaptersArgs {
    /// Print the adapters as one JSON array (index, name, driver, backend, device type)
    #[arg(long)]
    json: bool,
}

pub fn adapters(args: &AdaptersArgs) -> Result<Status> {
    let none = || Err(wgstress_runtime::RuntimeError::NoAdapter.into());
    if args.json {
        let listed = crate::session::adapters::listed();
        if listed.is_empty() {
            return none();
        }
        emit(&format!("{}\n", serde_json::to_string_pretty(&listed)?))?;
        return Ok(Status::Passed);
    }
    let found = wgstress_runtime::gpu::device::adapters();
    if found.is_empty() {
        return none();
    }
    // `#N` picks the N-th with --adapter: identical GPUs of one host differ only there.
    let text: String = found
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let driver = format!("{} {}", info.driver, info.driver_info);
            let driver = driver.trim();
            let describe = wgstress_runtime::gpu::device::describe(info);
            match driver.is_empty() {
                true => format!("#{i} {describe}\n"),
                false => format!("#{i} {describe}, driver {driver}\n"),
            }
        })
        .collect();
    emit(&text)?;
    Ok(Status::Passed)
}
