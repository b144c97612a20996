//! Where a campaign writes: `OUT/<host>/<adapter>/shard-I/`, in it the shard's own log
//! (`shard.jsonl`) and per item and attempt the command's log, its JSON output, its notes
//! and whatever else it writes.

use crate::names::{safe_name, slug};
use crate::shard_log::{Adapter, AdapterPlace};
use std::path::{Path, PathBuf};

/// The shard's own log's file name.
pub(crate) const SHARD_LOG: &str = "shard.jsonl";

/// `OUT/<host>/gpu<N>-<adapter>/shard-I` (the place number keeps identical GPUs apart), or
/// `OUT/<host>/browser-<adapter>/shard-I` for a browser's adapter, whose name names the
/// browser: a browser on a host and its GPU natively land side by side.
pub(crate) fn shard_dir(out: &Path, host: &str, adapter: &Adapter, shard: u32) -> PathBuf {
    let name = slug(&adapter.name);
    let gpu = match adapter.place {
        AdapterPlace::Listed(index) => format!("gpu{index}-{name}"),
        AdapterPlace::Browser => format!("browser-{name}"),
    };
    out.join(safe_name(host))
        .join(gpu)
        .join(format!("shard-{shard}"))
}

/// A host's name as the output's paths write it: letters, digits, `.`, `_` and `-`, so
/// that no name (one a browser's page reported, say) can name another directory.
pub fn safe_host(host: &str) -> String {
    safe_name(host)
}

/// The files of one attempt of one item.
#[derive(Clone, Debug)]
pub(crate) struct ItemFiles {
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
    pub(crate) fn new(dir: &Path, key: &str, attempt: u32) -> ItemFiles {
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
    let read =
        |path: &str| wgstress_model::read::text(Path::new(path), 4096, "a host name may hold").ok();
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
