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

pub fn adapters() -> Result<Status> {
    let found = wgstress_runtime::gpu::device::adapters();
    if found.is_empty() {
        return Err(wgstress_runtime::Error::NoAdapter.into());
    }
    let text: String = found
        .iter()
        .map(|info| format!("{}\n", wgstress_runtime::gpu::device::describe(info)))
        .collect();
    emit(&text)?;
    Ok(Status::Passed)
}
