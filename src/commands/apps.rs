use anyhow::Result;
use std::process::ExitCode;

pub fn list() -> Result<ExitCode> {
    for app in wgstress_apps::all() {
        println!("{:<14} {}", app.name, app.summary);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn adapters() -> Result<ExitCode> {
    let found = wgstress_runtime::device::adapters();
    if found.is_empty() {
        return Err(wgstress_runtime::Error::NoAdapter.into());
    }
    for info in found {
        println!("{}", wgstress_runtime::device::describe(&info));
    }
    Ok(ExitCode::SUCCESS)
}
