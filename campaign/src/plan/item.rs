//! A plan's item: one wgstress command on one application (or litmus test) with its options,
//! described canonically (the command, the target as written, the options sorted), so that
//! its hash, shard and seed do not depend on the order of keys or on where the plan lives.

use super::file::{Entry, RawItem};
use crate::error::{CampaignError, Result};
use crate::hash::fnv1a;
use crate::names::slug;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use wgstress_model::location::Location;

/// The commands a campaign runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    Run,
    Compare,
    Fences,
    Litmus,
    Mutants,
    /// The progress litmus suite (or test files), to compare GPUs' progress models.
    Progress,
}

impl Command {
    pub(crate) const ALL: [Command; 6] = [
        Command::Run,
        Command::Compare,
        Command::Fences,
        Command::Litmus,
        Command::Mutants,
        Command::Progress,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Command::Run => "run",
            Command::Compare => "compare",
            Command::Fences => "fences",
            Command::Litmus => "litmus",
            Command::Mutants => "mutants",
            Command::Progress => "progress",
        }
    }

    /// The key naming what it runs: an application, a litmus test, or nothing.
    fn target_key(self) -> Option<&'static str> {
        match self {
            Command::Run | Command::Compare | Command::Fences => Some("app"),
            Command::Litmus => Some("test"),
            Command::Mutants | Command::Progress => None,
        }
    }

    /// Whether its runs draw seeds from `--master-seed`.
    pub fn seeded(self) -> bool {
        matches!(self, Command::Run | Command::Compare | Command::Fences)
    }

    pub(crate) fn parse(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug)]
pub struct Item {
    /// The item's `name`, else its description.
    pub name: String,
    pub command: Command,
    /// The application or litmus test as the plan writes it (none for mutants).
    pub target: Option<String>,
    /// `command target --option value ...`, options sorted: what is hashed and shown.
    pub description: String,
    pub hash: u64,
    /// A file name for its logs: the description made safe, and the hash.
    pub key: String,
    /// The arguments after `wgstress`: the command, the target (a spec's path resolved
    /// against the plan's directory) and the options; the campaign adds its own.
    pub args: Vec<String>,
    /// The arguments that pick the application (for the `wgstress run` line of a replay).
    pub app_args: Vec<String>,
    pub at: Location,
}

impl Item {
    /// Whether the item may hang the machine's GPU: a progress item (its models hold
    /// workgroups back, and a test that needs a stronger model than the GPU has spins), or a
    /// raw run (no watchdog ends a spin that never ends).
    pub fn may_hang(&self) -> bool {
        self.command == Command::Progress || self.args.iter().any(|a| a == "--raw")
    }
}

/// Options the campaign sets itself, per item.
const RESERVED: [&str; 17] = [
    "log",
    "no-log",
    "json",
    "master-seed",
    "adapter",
    "browser",
    "browser-relay",
    "svg",
    "output",
    "write-env",
    "list",
    "sites",
    "all",
    "quiet",
    "help",
    "version",
    "seed-file",
];

/// Options whose value is a path, resolved against the plan's directory.
const PATHS: [&str; 2] = ["profile", "env"];

/// Options that pick the application, kept for replays.
const APP_OPTIONS: [&str; 4] = ["variant", "size", "entry", "postcondition"];

/// Where a plan's text came from, for errors at `file:line:column`.
pub(crate) struct Source<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    /// Where each line starts, found once: each item's place is looked up, and counting
    /// lines from the start for each made a plan of 20,000 items take 20 s to list.
    lines: Vec<usize>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(path: &'a Path, text: &'a str) -> Source<'a> {
        let lines = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source { path, text, lines }
    }

    pub(crate) fn at(&self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = self.lines.partition_point(|&start| start <= offset);
        let start = self.lines[line - 1];
        Location {
            file: self.path.to_path_buf(),
            line,
            column: self
                .text
                .get(start..offset)
                .map_or(0, |s| s.chars().count())
                + 1,
        }
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> CampaignError {
        CampaignError::At {
            at: self.at(offset),
            message: message.into(),
        }
    }
}

/// The items of one `[[item]]`: one per application (or test) it names.
pub(crate) fn build(
    raw: &RawItem,
    defaults: &BTreeMap<String, (usize, Vec<Entry>)>,
    base: &Path,
    source: &Source,
) -> Result<Vec<Item>> {
    let entry = |key: &str| raw.entries.iter().find(|e| e.key == key);
    let command_entry =
        entry("command").ok_or_else(|| source.error(raw.offset, "the item has no `command`"))?;
    let command = string(command_entry, source).and_then(|name| {
        Command::parse(&name).ok_or_else(|| {
            let known: Vec<_> = Command::ALL.iter().map(|c| c.name()).collect();
            source.error(
                command_entry.at,
                format!(
                    "unknown command `{name}` (a campaign runs {})",
                    known.join(", ")
                ),
            )
        })
    })?;
    let name = entry("name").map(|e| string(e, source)).transpose()?;
    let targets = targets(raw, command, source)?;
    let mut options: BTreeMap<String, &Entry> = BTreeMap::new();
    let own = defaults.get(command.name()).map_or(&[][..], |(_, d)| d);
    const ITEM_KEYS: [&str; 4] = ["command", "name", "app", "test"];
    if let Some(e) = own.iter().find(|e| ITEM_KEYS.contains(&e.key.as_str())) {
        let message = format!(
            "`{}` belongs in an [[item]], not in [defaults.{command}]",
            e.key
        );
        return Err(source.error(e.at, message));
    }
    for e in own.iter().chain(&raw.entries) {
        if ITEM_KEYS.contains(&e.key.as_str()) {
            continue;
        }
        let flag = e.key.replace('_', "-");
        if RESERVED.contains(&flag.as_str()) {
            return Err(source.error(e.at, format!("`{}` is set by the campaign", e.key)));
        }
        options.insert(flag, e);
    }
    let mut rendered: Vec<(String, Option<String>)> = Vec::new();
    for (flag, e) in &options {
        if let Some(value) = value(e, source)? {
            rendered.push((flag.clone(), value));
        }
    }
    let several = targets.len() > 1;
    Ok(targets
        .into_iter()
        .map(|target| {
            let item_name = match (&name, &target) {
                (Some(n), Some(t)) if several => Some(format!("{n} {t}")),
                (n, _) => n.clone(),
            };
            item(
                command,
                target,
                item_name,
                &rendered,
                base,
                source.at(raw.offset),
            )
        })
        .collect())
}

fn item(
    command: Command,
    target: Option<String>,
    name: Option<String>,
    options: &[(String, Option<String>)],
    base: &Path,
    at: Location,
) -> Item {
    let mut words = vec![command.name().to_string()];
    let mut args = words.clone();
    let mut app_args = Vec::new();
    if let Some(t) = &target {
        words.push(t.clone());
        let spec = command != Command::Litmus && (t.ends_with(".toml") || base.join(t).exists());
        let resolved = if spec { resolve(base, t) } else { t.clone() };
        args.push(resolved.clone());
        app_args.push(resolved);
    }
    for (flag, value) in options {
        let value_arg = match value {
            Some(v) if PATHS.contains(&flag.as_str()) => Some(resolve(base, v)),
            v => v.clone(),
        };
        words.push(format!("--{flag}"));
        if let Some(v) = value {
            words.push(v.clone());
        }
        if APP_OPTIONS.contains(&flag.as_str()) {
            // For the replay a report prints; the item's own command line is `args`.
            app_args.push(format!("--{flag}"));
            app_args.extend(value_arg.clone());
        }
        // One argument, `--flag=value`: a value that starts with `--` stays a value.
        args.push(match value_arg {
            Some(v) => format!("--{flag}={v}"),
            None => format!("--{flag}"),
        });
    }
    let description = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    let hash = fnv1a(description.as_bytes());
    Item {
        name: name.unwrap_or_else(|| description.clone()),
        command,
        target,
        key: format!("{}-{hash:016x}", slug(&description)),
        description,
        hash,
        args,
        app_args,
        at,
    }
}

/// The applications (or tests) an item names: `app = "x"` or `app = ["x", "y"]`.
fn targets(raw: &RawItem, command: Command, source: &Source) -> Result<Vec<Option<String>>> {
    let wanted = command.target_key();
    for other in ["app", "test"] {
        if Some(other) == wanted {
            continue;
        }
        if let Some(e) = raw.entries.iter().find(|e| e.key == other) {
            return Err(source.error(e.at, format!("`{command}` takes no `{other}`")));
        }
    }
    let Some(key) = wanted else {
        return Ok(vec![None]);
    };
    let e = raw
        .entries
        .iter()
        .find(|e| e.key == key)
        .ok_or_else(|| source.error(raw.offset, format!("a `{command}` item needs `{key}`")))?;
    let names: Vec<String> = match &e.value {
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Array(values) if !values.is_empty() => values
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| source.error(e.at, format!("`{key}`: give strings")))?,
        _ => return Err(source.error(e.at, format!("`{key}`: give a name or a list of names"))),
    };
    if let Some(name) = names.iter().find(|n| n.starts_with('-')) {
        return Err(source.error(
            e.at,
            format!(
                "`{key}` = `{name}`: a name that starts with `-` would be read as an option (for a \
                 file of that name, write ./{name})"
            ),
        ));
    }
    Ok(names.into_iter().map(Some).collect())
}

fn string(e: &Entry, source: &Source) -> Result<String> {
    e.value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| source.error(e.at, format!("`{}`: give a string", e.key)))
}

/// An option's value on the command line: `None` for a switch that is off, `Some(None)` for
/// one that is on, a list joined with commas.
fn value(e: &Entry, source: &Source) -> Result<Option<Option<String>>> {
    let scalar = |v: &toml::Value| match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(n) => Some(n.to_string()),
        toml::Value::Float(x) => Some(x.to_string()),
        _ => None,
    };
    let bad = || {
        source.error(
            e.at,
            format!(
                "`{}`: give a string, a number, true or false, or a list of strings or numbers",
                e.key
            ),
        )
    };
    Ok(match &e.value {
        toml::Value::Boolean(true) => Some(None),
        toml::Value::Boolean(false) => None,
        toml::Value::Array(values) => {
            let parts: Option<Vec<String>> = values.iter().map(scalar).collect();
            Some(Some(parts.ok_or_else(bad)?.join(",")))
        }
        v => Some(Some(scalar(v).ok_or_else(bad)?)),
    })
}

fn resolve(base: &Path, path: &str) -> String {
    let joined = base.join(path);
    std::path::absolute(&joined)
        .unwrap_or(joined)
        .display()
        .to_string()
}

/// A word as a shell reads it back: quoted when it holds anything but plain characters.
pub(crate) fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:,=@+#".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
