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
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
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
    let mut run = ShardRun {
        dir: dir.clone(),
        last: start.started,
        start,
        attempts: Vec::new(),
        end: None,
    };
    for line in parsed.into_iter().skip(1) {
        match line {
            Line::Item(begun) => {
                let Some(item) = run.start.items.iter().find(|i| i.key == begun.key) else {
                    continue;
                };
                run.last = run.last.max(begun.started);
                run.attempts.push(Attempt {
                    item: item.clone(),
                    attempt: begun.attempt,
                    seed: begun.seed,
                    started: begun.started,
                    done: None,
                    measures: Vec::new(),
                    complete: false,
                    error: None,
                });
            }
            Line::Done(done) => {
                let Some(a) = run
                    .attempts
                    .iter_mut()
                    .rev()
                    .find(|a| a.item.key == done.key && a.attempt == done.attempt)
                else {
                    continue;
                };
                let ended = a.started + done.seconds;
                a.done = Some(done);
                run.last = run.last.max(ended);
            }
            Line::End(end) => {
                run.last = run.last.max(end.ended);
                run.end = Some(end);
            }
            Line::Start(_) => {}
        }
    }
    for a in &mut run.attempts {
        let files = ItemFiles::new(&dir, &a.item.key, a.attempt);
        let (measures, complete) = measures(a.item.command, &lines(&files.log)?);
        a.measures = measures;
        a.complete = complete;
        a.error = error_line(&files.stderr);
    }
    Ok(Some(run))
}

/// The command's `wgstress: error: ...` line, if it wrote one.
fn error_line(stderr: &Path) -> Option<String> {
    let text = std::fs::read_to_string(stderr).ok()?;
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("wgstress: error: "))
        .map(str::to_string)
}
