//! A campaign plan (TOML): the master seed, defaults per command, and the items, each one
//! wgstress command on one application or test with its options. Errors are at
//! `file:line:column`; unknown keys are refused, and every item's arguments are checked by
//! the caller (the CLI parses and plans them as the command itself would) before any work.

mod file;
mod item;

pub(crate) use item::quote;
pub use item::{Command, Item};

use crate::error::{CampaignError, Result};
use crate::hash::fnv1a;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A validated plan.
#[derive(Clone, Debug)]
pub struct CampaignPlan {
    pub path: PathBuf,
    /// The plan's `name`, else its file's stem.
    pub name: String,
    pub master_seed: u64,
    /// A hash of the master seed and every item's description: shards of one campaign share it.
    pub digest: String,
    pub items: Vec<Item>,
}

/// Checks one item's arguments (the command first) as the command would: `Err` holds the
/// one-line reason.
pub type ItemCheck<'a> = &'a dyn Fn(&[String]) -> std::result::Result<(), String>;

/// The master seed when the plan gives none.
pub(crate) const DEFAULT_MASTER_SEED: u64 = 1;

impl CampaignPlan {
    /// Reads and validates the plan at `path`; `check` validates each item's arguments.
    pub fn load(path: &Path, check: ItemCheck) -> Result<CampaignPlan> {
        let text =
            wgstress_model::read::text(path, wgstress_model::read::PLAN_BYTES, "a plan may hold")
                .map_err(CampaignError::read)?;
        CampaignPlan::parse(path, &text, check)
    }

    /// Validates the plan `text`, which the binary holds, as if read from `path` (which
    /// errors and the shard logs name; relative paths in it are relative to its directory).
    pub fn bundled(path: &Path, text: &str, check: ItemCheck) -> Result<CampaignPlan> {
        CampaignPlan::parse(path, text, check)
    }

    pub(crate) fn parse(path: &Path, text: &str, check: ItemCheck) -> Result<CampaignPlan> {
        let parsed = file::parse(path, text)?;
        let source = item::Source::new(path, text);
        for (command, (offset, _)) in &parsed.defaults {
            if Command::parse(command).is_none() {
                let message = format!("[defaults.{command}]: no such command");
                return Err(CampaignError::at(path, text, *offset, message));
            }
        }
        let base = path.parent().unwrap_or(Path::new(""));
        let mut items: Vec<Item> = Vec::new();
        // Each item's description and name, to find a second one without a scan of all.
        let mut descriptions: HashMap<String, usize> = HashMap::new();
        let mut names: HashSet<String> = HashSet::new();
        for raw in &parsed.items {
            for item in item::build(raw, &parsed.defaults, base, &source)? {
                let clash = |message: String| CampaignError::At {
                    at: item.at.clone(),
                    message,
                };
                if let Some(line) = descriptions.get(&item.description) {
                    return Err(clash(format!(
                        "the item `{}` appears twice (first at line {line})",
                        item.description
                    )));
                }
                if !names.insert(item.name.clone()) {
                    return Err(clash(format!("two items are named `{}`", item.name)));
                }
                descriptions.insert(item.description.clone(), item.at.line);
                let mut argv = item.args.clone();
                argv.push("--no-log".to_string());
                check(&argv)
                    .map_err(|message| clash(format!("`{}`: {message}", item.description)))?;
                items.push(item);
            }
        }
        if items.is_empty() {
            return Err(CampaignError::at(path, text, 0, "the plan has no [[item]]"));
        }
        let master_seed = parsed.master_seed.unwrap_or(DEFAULT_MASTER_SEED);
        let mut all = format!("{master_seed}\n");
        for item in &items {
            all.push_str(&item.description);
            all.push('\n');
        }
        Ok(CampaignPlan {
            path: path.to_path_buf(),
            name: parsed.name.unwrap_or_else(|| {
                path.file_stem()
                    .map_or("plan".into(), |s| s.to_string_lossy().into_owned())
            }),
            master_seed,
            digest: format!("{:016x}", fnv1a(all.as_bytes())),
            items,
        })
    }
}

#[cfg(test)]
mod tests;
