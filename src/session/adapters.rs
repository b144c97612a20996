//! The adapters wgpu lists, as `adapters --json` shows them, and those a campaign's workers
//! use, each by its place among those wgpu lists, which
//! the workers pass on to their commands as `--adapter #N`: `all` every GPU (CPU drivers
//! such as lavapipe only where there is no GPU), `all:TEXT` every adapter whose name contains
//! TEXT, else the one `--adapter` names (or the best). `all` and `all:TEXT` take the adapters
//! a choice without a backend considers (`device::by_default`): a GPU's GL adapter beside its
//! Vulkan one would run every item twice on one GPU.

use anyhow::{bail, Result};
use wgstress_campaign::shard_log::{Adapter, AdapterPlace};

pub fn for_campaign(wanted: Option<&str>) -> Result<Vec<Adapter>> {
    let Some(filter) = wanted.and_then(all) else {
        let choice = wgstress_runtime::gpu::device::NativeChoice {
            name: wanted.map(str::to_string),
            backend: None,
        };
        let (index, info) = wgstress_runtime::gpu::device::find(&choice)?;
        return Ok(vec![adapter(index, info)]);
    };
    let infos = wgstress_runtime::gpu::device::adapters();
    let listed: Vec<Adapter> = infos
        .iter()
        .enumerate()
        .filter(|(_, info)| wgstress_runtime::gpu::device::by_default(&infos, info))
        .map(|(index, info)| adapter(index, info.clone()))
        .collect();
    let cpu = |a: &Adapter| a.device_type == "Cpu";
    let gpus = listed.iter().any(|a| !cpu(a));
    let kept: Vec<Adapter> = listed
        .into_iter()
        .filter(|a| match filter {
            Filter::Gpus => !gpus || !cpu(a),
            Filter::Named(text) => a.name.to_lowercase().contains(&text.to_lowercase()),
        })
        .collect();
    if kept.is_empty() {
        bail!(
            "no adapter matches `{}` (see wgstress adapters)",
            wanted.unwrap_or_default()
        );
    }
    Ok(kept)
}

/// Every adapter wgpu lists, each with its place among them.
pub fn listed() -> Vec<Adapter> {
    wgstress_runtime::gpu::device::adapters()
        .into_iter()
        .enumerate()
        .map(|(index, info)| adapter(index, info))
        .collect()
}

/// The adapter as the campaign records it (and `adapters --json` lists it). `info` is wgpu's `AdapterInfo`, which this crate
/// names only through the runtime.
fn adapter(index: usize, info: wgstress_runtime::gpu::device::Info) -> Adapter {
    Adapter {
        place: AdapterPlace::Listed(index),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        name: info.name,
    }
}

enum Filter<'a> {
    Gpus,
    Named(&'a str),
}

fn all(wanted: &str) -> Option<Filter<'_>> {
    match wanted {
        "all" => Some(Filter::Gpus),
        w => w.strip_prefix("all:").map(Filter::Named),
    }
}

/// The browser's adapter as a campaign records it, from a device opened in it once (which
/// starts the browser, and ends it after): the adapter's name with the browser's
/// ("google swiftshader, WebGPU in Chromium 148.0.7778.167"), so that it is told from the
/// same GPU natively; its `GPUAdapterInfo` as the driver.
pub fn for_browser() -> Result<Adapter> {
    let choice = wgstress_runtime::gpu::device::AdapterChoice::Browser;
    let gpu = wgstress_runtime::gpu::device::open(&choice)?;
    let adapter = browser_adapter(&gpu.info);
    drop(gpu);
    wgstress_runtime::gpu::device::close_browser();
    Ok(adapter)
}

/// A browser's adapter (wgpu's `AdapterInfo` of it, as the browser device makes it) as a
/// campaign records it.
pub fn browser_adapter(info: &wgstress_runtime::gpu::device::Info) -> Adapter {
    Adapter {
        place: AdapterPlace::Browser,
        name: format!("{}, WebGPU in {}", info.name, info.driver),
        driver: info.driver_info.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
    }
}
