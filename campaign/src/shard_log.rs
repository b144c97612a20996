//! The shard's own log, `shard.jsonl`: what ran where. A start line (host, adapter, shard,
//! plan, the shard's items), a line as each attempt of an item starts and one as it ends,
//! and an end line; each written and flushed at once, so a killed shard leaves what it did,
//! and a missing end line says it was cut short.

use crate::error::{CampaignError, Result};
use crate::plan::Command;
use crate::shard::Shard;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
// How an item's command ended is the model's: a shard reports it in its events too.
pub use wgstress_model::adapter_place::AdapterPlace;
pub use wgstress_model::child_exit::Exit;

/// The version of this format, in every start line.
pub(crate) const VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Line {
    Start(Start),
    Item(ItemStart),
    Done(ItemDone),
    End(End),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Start {
    pub version: u32,
    pub host: String,
    pub adapter: Adapter,
    pub shard: Shard,
    pub plan: PlanRef,
    /// The items this shard runs, in order.
    pub items: Vec<ItemRef>,
    /// Seconds since the Unix epoch.
    pub started: f64,
}

/// A GPU as wgpu (or a browser) describes it, and where the items find it: its place among
/// the host's (`--adapter #N`), or the browser. Written as `index`, the name it had when only
/// listed adapters were run, so that older shard logs read alike.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Adapter {
    #[serde(rename = "index")]
    pub place: AdapterPlace,
    pub name: String,
    /// The driver's name and version, as the driver gives them.
    pub driver: String,
    pub backend: String,
    pub device_type: String,
}

impl Adapter {
    /// "NVIDIA H100 80GB HBM3, driver NVIDIA 550.54" (no driver part when it is unknown).
    pub fn model(&self) -> String {
        match self.driver.is_empty() {
            true => self.name.clone(),
            false => format!("{}, driver {}", self.name, self.driver),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct PlanRef {
    pub name: String,
    pub path: String,
    pub digest: String,
    pub master_seed: String,
    /// Items in the whole plan.
    pub items: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ItemRef {
    pub key: String,
    pub name: String,
    pub command: Command,
    pub description: String,
    /// The arguments that pick the application, for replays.
    pub app_args: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ItemStart {
    pub key: String,
    pub attempt: u32,
    /// The master seed the item's runs derive from (none for litmus and mutants).
    pub seed: Option<String>,
    /// The whole command line after `wgstress`.
    pub args: Vec<String>,
    pub started: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ItemDone {
    pub key: String,
    pub attempt: u32,
    pub exit: Exit,
    /// Wall-clock seconds of the whole command: start-up, calibration and runs.
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct End {
    pub seconds: f64,
    pub interrupted: bool,
    pub ended: f64,
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// An append-only JSON-lines file, each line flushed as it is written.
pub(crate) struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Creates `path`; an existing file is an error (a shard is not run twice into one place).
    pub(crate) fn create(path: &Path) -> Result<Writer> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(|e| CampaignError::io(path, e))?;
        Ok(Writer {
            file,
            path: path.to_path_buf(),
        })
    }

    pub(crate) fn write(&mut self, line: &Line) -> Result<()> {
        let mut text = serde_json::to_string(line).expect("shard lines serialize");
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| CampaignError::io(&self.path, e))
    }
}
