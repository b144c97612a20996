//! The adapters a campaign's workers use: `--adapter all` every one wgpu lists, else the one
//! `--adapter` names (or the best), by its place among them, which the workers pass on to
//! their commands as `--adapter #N`.

use anyhow::Result;
use wgstress_campaign::record::Adapter;

pub fn for_campaign(wanted: Option<&str>) -> Result<Vec<Adapter>> {
    let found: Vec<(usize, _)> = match wanted {
        Some("all") => wgstress_runtime::device::adapters()
            .into_iter()
            .enumerate()
            .collect(),
        _ => vec![wgstress_runtime::device::find(wanted)?],
    };
    if found.is_empty() {
        return Err(wgstress_runtime::Error::NoAdapter.into());
    }
    Ok(found
        .into_iter()
        .map(|(index, info)| Adapter {
            index,
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            name: info.name,
        })
        .collect())
}
