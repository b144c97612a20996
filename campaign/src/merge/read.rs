//! Reading campaign directories: every `shard.jsonl` under them, and for each attempt of an
//! item the command's own log. A line cut off by a kill is skipped, not an error.

use super::extract::{measures, Measure};
use crate::error::{Error, Result};
use crate::layout::{ItemFiles, SHARD_LOG};
use crate::record::{End, ItemDone, ItemRef, Line, Start};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One shard as it ran on one adapter of one host.
#[derive(Clone, Debug)]
pub struct ShardRun {
    pub dir: PathBuf,
    pub start: Start,
    pub attempts: Vec<Attempt>,
    /// None: the shard was cut short.
    pub end: Option<End>,
    /// The last moment the log shows (its end, or the end of its last attempt).
    pub last: f64,
}

/// One attempt of one item.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub item: ItemRef,
    pub attempt: u32,
    pub seed: Option<String>,
    /// Seconds since the Unix epoch when it started.
    pub started: f64,
    pub done: Option<ItemDone>,
    pub measures: Vec<Measure>,
    /// Its log has the command's summary line.
    pub complete: bool,
    /// The command's error line, when it ended in one.
    pub error: Option<String>,
}

/// What the directories hold.
#[derive(Clone, Debug)]
pub struct Shards {
    pub runs: Vec<ShardRun>,
    /// Shard logs without a start line: killed before they wrote one.
    pub unreadable: Vec<PathBuf>,
}

/// Every shard under `dirs`, in path order.
pub fn read(dirs: &[PathBuf]) -> Result<Shards> {
    let mut logs = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(Error::Input(format!(
                "{}: no such directory (give the --out of a campaign)",
                dir.display()
            )));
        }
        find(dir, &mut logs)?;
    }
    logs.sort();
    logs.dedup();
    if logs.is_empty() {
        return Err(Error::Input(format!(
            "no {SHARD_LOG} under {}: nothing to merge",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut shards = Shards {
        runs: Vec::new(),
        unreadable: Vec::new(),
    };
    for log in logs {
        match shard(&log)? {
            Some(run) => shards.runs.push(run),
            None => shards.unreadable.push(log),
        }
    }
    Ok(shards)
}

fn find(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.is_dir() {
            find(&path, out)?;
        } else if path.file_name().is_some_and(|n| n == SHARD_LOG) {
            out.push(std::fs::canonicalize(&path).unwrap_or(path));
        }
    }
    Ok(())
}

/// JSON lines of `path`, skipping any that do not parse (the last, cut off by a kill).
fn lines(path: &Path) -> Result<Vec<Value>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = wgstress_runtime::read::text(
        path,
        wgstress_runtime::read::LOG_BYTES,
        "a log merge reads may hold",
    )
    .map_err(Error::read)?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// An attempt as the shard's log tells it, before its command's log is read.
struct Begun {
    item: ItemRef,
    attempt: u32,
    seed: Option<String>,
    started: f64,
    done: Option<ItemDone>,
}

/// A shard's log and its items' logs; None for a log without a start line (killed before it
/// wrote one).
fn shard(path: &Path) -> Result<Option<ShardRun>> {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let parsed: Vec<Line> = lines(path)?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let Some(Line::Start(start)) = parsed.first().cloned() else {
        return Ok(None);
    };
    let (mut begun, mut end, mut last) = (Vec::<Begun>::new(), None, start.started);
    for line in parsed.into_iter().skip(1) {
        match line {
            Line::Item(b) => {
                let Some(item) = start.items.iter().find(|i| i.key == b.key) else {
                    continue;
                };
                last = last.max(b.started);
                begun.push(Begun {
                    item: item.clone(),
                    attempt: b.attempt,
                    seed: b.seed,
                    started: b.started,
                    done: None,
                });
            }
            Line::Done(done) => {
                let same = |a: &&mut Begun| a.item.key == done.key && a.attempt == done.attempt;
                if let Some(a) = begun.iter_mut().rev().find(same) {
                    last = last.max(a.started + done.seconds);
                    a.done = Some(done);
                }
            }
            Line::End(e) => {
                last = last.max(e.ended);
                end = Some(e);
            }
            Line::Start(_) => {}
        }
    }
    let attempts = begun
        .into_iter()
        .map(|b| attempt(&dir, b))
        .collect::<Result<_>>()?;
    Ok(Some(ShardRun {
        dir,
        start,
        attempts,
        end,
        last,
    }))
}

/// An attempt with what its command's log and notes say.
fn attempt(dir: &Path, b: Begun) -> Result<Attempt> {
    let files = ItemFiles::new(dir, &b.item.key, b.attempt);
    let (measures, complete) = measures(b.item.command, &lines(&files.log)?);
    Ok(Attempt {
        error: error_line(&files.stderr),
        measures,
        complete,
        item: b.item,
        attempt: b.attempt,
        seed: b.seed,
        started: b.started,
        done: b.done,
    })
}

/// The command's `wgstress: error: ...` line, if it wrote one.
fn error_line(stderr: &Path) -> Option<String> {
    let tail = wgstress_runtime::read::tail(stderr, 64 << 10).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("wgstress: error: "))
        .map(str::to_string)
}
