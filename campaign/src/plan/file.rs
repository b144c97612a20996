//! The plan file as TOML gives it: keys and values with their byte offsets, before any
//! meaning is given to an item's options.

use crate::error::{CampaignError, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

type Table = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    name: Option<String>,
    master_seed: Option<Spanned<toml::Value>>,
    #[serde(default)]
    defaults: BTreeMap<Spanned<String>, Spanned<Table>>,
    #[serde(default)]
    item: Vec<Spanned<Table>>,
}

/// One key of an item or of a command's defaults, and its value.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub key: String,
    pub value: toml::Value,
    /// Byte offset of the value.
    pub at: usize,
}

/// An `[[item]]` as written.
#[derive(Clone, Debug)]
pub(crate) struct RawItem {
    pub offset: usize,
    pub entries: Vec<Entry>,
}

/// The plan file as written.
pub(crate) struct RawPlan {
    pub name: Option<String>,
    pub master_seed: Option<u64>,
    /// Per command name, its default options, with the offset of the command's table.
    pub defaults: BTreeMap<String, (usize, Vec<Entry>)>,
    pub items: Vec<RawItem>,
}

pub(crate) fn parse(path: &Path, text: &str) -> Result<RawPlan> {
    let file: PlanFile = toml::from_str(text).map_err(|e| CampaignError::toml(path, text, &e))?;
    let master_seed = match file.master_seed {
        None => None,
        Some(seed) => Some(master_seed(seed.get_ref()).ok_or_else(|| {
            CampaignError::at(
                path,
                text,
                seed.span().start,
                "master_seed: give a non-negative integer, or a string of one in decimal or 0x-hex",
            )
        })?),
    };
    let entries = |table: Table| {
        table
            .into_iter()
            .map(|(key, value)| Entry {
                key: key.into_inner(),
                at: value.span().start,
                value: value.into_inner(),
            })
            .collect()
    };
    Ok(RawPlan {
        name: file.name,
        master_seed,
        defaults: file
            .defaults
            .into_iter()
            .map(|(command, table)| {
                let offset = command.span().start;
                (command.into_inner(), (offset, entries(table.into_inner())))
            })
            .collect(),
        items: file
            .item
            .into_iter()
            .map(|table| RawItem {
                offset: table.span().start,
                entries: entries(table.into_inner()),
            })
            .collect(),
    })
}

/// A seed as TOML allows it: an integer (TOML's are signed 64-bit, so a string for the
/// upper half), decimal or 0x-hex.
fn master_seed(value: &toml::Value) -> Option<u64> {
    match value {
        toml::Value::Integer(n) => u64::try_from(*n).ok(),
        toml::Value::String(text) => match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => text.parse().ok(),
        },
        _ => None,
    }
}
