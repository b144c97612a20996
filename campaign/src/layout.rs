//! Where a campaign writes: `OUT/<host>/<adapter>/shard-I/`, in it the shard's own log
//! (`shard.jsonl`) and per item and attempt the command's log, its JSON output, its notes
//! and whatever else it writes.

use crate::record::Adapter;
use std::path::{Path, PathBuf};

/// The shard's own log's file name.
pub const SHARD_LOG: &str = "shard.jsonl";

/// A file or directory name made of `text`: letters, digits, `.`, `_` and `-`.
pub fn safe_name(text: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || "._-".contains(c) => c,
            _ => '-',
        })
        .collect();
    match name.trim_matches(['-', '.']) {
        "" => "unnamed".to_string(),
        n => n.to_string(),
    }
}

/// Lower-case letters, digits, dots and single dashes, at most 48 characters: readable
/// file names for items and adapters.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    out.trim_matches(['-', '.']).to_string()
}

/// `OUT/<host>/gpu<N>-<adapter>/shard-I`: the place number keeps identical GPUs apart.
pub fn shard_dir(out: &Path, host: &str, adapter: &Adapter, shard: u32) -> PathBuf {
    let name = slug(&adapter.name);
    out.join(safe_name(host))
        .join(format!("gpu{}-{name}", adapter.index))
        .join(format!("shard-{shard}"))
}

/// The files of one attempt of one item.
#[derive(Clone, Debug)]
pub struct ItemFiles {
    pub log: PathBuf,
    pub json: PathBuf,
    pub stderr: PathBuf,
    /// compare's chart, fences' patched shader, mutants --search's environment.
    pub svg: PathBuf,
    pub fixed: PathBuf,
    pub env: PathBuf,
}

impl ItemFiles {
    /// Attempt 0 is the item's run; later ones re-run an unexpected failure.
    pub fn new(dir: &Path, key: &str, attempt: u32) -> ItemFiles {
        let stem = match attempt {
            0 => key.to_string(),
            n => format!("{key}.rerun-{n}"),
        };
        let file = |suffix: &str| dir.join(format!("{stem}{suffix}"));
        ItemFiles {
            log: file(".jsonl"),
            json: file(".json"),
            stderr: file(".stderr.txt"),
            svg: file(".svg"),
            fixed: file(".fixed.wgsl"),
            env: file(".env.json"),
        }
    }
}

/// This machine's name: the kernel's, else /etc/hostname's, else `hostname`'s.
pub fn host_name() -> Option<String> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let command = || {
        std::process::Command::new("hostname")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .or_else(command)
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_safe_for_every_file_system() {
        assert_eq!(super::safe_name("node-1.cluster"), "node-1.cluster");
        assert_eq!(super::safe_name("a/b c"), "a-b-c");
        assert_eq!(super::safe_name(".."), "unnamed");
    }
}
