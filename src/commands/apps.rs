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
        return Err(wgstress_runtime::RuntimeError::NoAdapter.into());
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
