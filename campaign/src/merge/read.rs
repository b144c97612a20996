//! Reading campaign directories: every `shard.jsonl` under them, and for each attempt of an
//! item the command's own log. A line cut off by a kill is skipped, not an error; a whole
//! line that is not JSON (a byte that is not UTF-8, say) is skipped and named in the report;
//! a shard log of another format version, or counts no command writes, are refused; a copy
//! of a shard read already is named and counted once.

use super::extract::{measures, Measure};
use crate::error::{CampaignError, Result};
use crate::layout::{ItemFiles, SHARD_LOG};
use crate::shard_log::{End, ItemDone, ItemRef, Line, Start, VERSION};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One shard as it ran on one adapter of one host.
#[derive(Clone, Debug)]
pub(crate) struct ShardRun {
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
pub(crate) struct Attempt {
    pub item: ItemRef,
    pub attempt: u32,
    pub seed: Option<String>,
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
    pub(crate) runs: Vec<ShardRun>,
    /// Shard logs without a start line: killed before they wrote one.
    pub(crate) unreadable: Vec<PathBuf>,
    /// Logs with whole lines that are not JSON, skipped: the log and how many.
    pub(crate) damaged: Vec<(PathBuf, usize)>,
    /// Shard logs that are copies of one read already (the same start line: host, adapter,
    /// shard, plan and start time), not counted again: the copy and the one counted.
    pub(crate) duplicates: Vec<(PathBuf, PathBuf)>,
}

/// More runs (or instances, or failures) than one command counts in any real campaign (a
/// GPU at a million runs a second would need 13 days): a log that claims more was not
/// written by wgstress, and sums of such counts could overflow.
pub(crate) const MAX_COUNT: u64 = 1 << 40;

/// Every shard under `dirs`, in path order.
pub fn read(dirs: &[PathBuf]) -> Result<Shards> {
    let mut logs = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(CampaignError::Input(format!(
                "{}: no such directory (give the --out of a campaign)",
                dir.display()
            )));
        }
        find(dir, &mut logs)?;
    }
    logs.sort();
    logs.dedup();
    if logs.is_empty() {
        return Err(CampaignError::Input(format!(
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
        damaged: Vec::new(),
        duplicates: Vec::new(),
    };
    for log in logs {
        match shard(&log, &mut shards.damaged)? {
            Some(run) => match shards
                .runs
                .iter()
                .find(|r| same_start(&r.start, &run.start))
            {
                Some(first) => shards.duplicates.push((log, first.dir.join(SHARD_LOG))),
                None => shards.runs.push(run),
            },
            None => shards.unreadable.push(log),
        }
    }
    if shards.runs.is_empty() {
        return Err(CampaignError::Input(format!(
            "nothing to merge: every {SHARD_LOG} under {} lacks its start line (killed as it began)",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(shards)
}

/// Whether two start lines are one shard's: a copy of its directory, not a second run.
fn same_start(a: &Start, b: &Start) -> bool {
    a.host == b.host
        && a.adapter.place == b.adapter.place
        && a.adapter.name == b.adapter.name
        && a.shard == b.shard
        && a.plan.digest == b.plan.digest
        && a.started == b.started
}

/// The shard logs under `dir`, through links, each directory once (a link back up ends).
fn find(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let files = wgstress_model::read::files_under(dir).map_err(CampaignError::read)?;
    for path in files {
        if path.file_name().is_some_and(|n| n == SHARD_LOG) {
            out.push(std::fs::canonicalize(&path).unwrap_or(path));
        }
    }
    Ok(())
}

/// The bytes of the log at `path`, bounded as every log merge reads; none where no log is
/// (a shard that never started writes none).
fn log_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    if !path.exists() {
        return Ok(None);
    }
    wgstress_model::read::bytes(
        path,
        wgstress_model::read::LOG_BYTES,
        "a log merge reads may hold",
    )
    .map(Some)
    .map_err(CampaignError::read)
}

/// JSON lines of `path`, skipping any that do not parse: the last when a kill cut it off
/// (it has no newline), and whole lines that are not JSON, counted in `damaged`.
fn lines(path: &Path, damaged: &mut Vec<(PathBuf, usize)>) -> Result<Vec<Value>> {
    let Some(bytes) = log_bytes(path)? else {
        return Ok(Vec::new());
    };
    let (values, bad) = parse_lines(&bytes);
    if bad > 0 {
        damaged.push((path.to_path_buf(), bad));
    }
    Ok(values)
}

/// The JSON values of `bytes`' lines, and how many whole lines (ended by a newline) are not
/// JSON in UTF-8.
fn parse_lines(bytes: &[u8]) -> (Vec<Value>, usize) {
    let (mut values, mut bad) = (Vec::new(), 0);
    let mut rest = bytes;
    while !rest.is_empty() {
        let (line, next, ended) = match rest.iter().position(|b| *b == b'\n') {
            Some(end) => (&rest[..end], &rest[end + 1..], true),
            None => (rest, &[][..], false),
        };
        rest = next;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice(line) {
            Ok(value) => values.push(value),
            Err(_) if ended => bad += 1,
            Err(_) => {}
        }
    }
    (values, bad)
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
/// wrote one). A start line of another format version is refused.
fn shard(path: &Path, damaged: &mut Vec<(PathBuf, usize)>) -> Result<Option<ShardRun>> {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let values = lines(path, damaged)?;
    if let Some(first) = values.first().filter(|v| v["type"] == "start") {
        check_version(path, first)?;
    }
    let parsed: Vec<Line> = values
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
        .map(|b| attempt(&dir, b, damaged))
        .collect::<Result<_>>()?;
    Ok(Some(ShardRun {
        dir,
        start,
        attempts,
        end,
        last,
    }))
}

/// Refuses a start line that is not of the format this merge reads: its version missing, or
/// another one (a shard of another wgstress, whose lines may mean other things).
fn check_version(path: &Path, start: &Value) -> Result<()> {
    let at = format!("{}:1", path.display());
    match start.get("version").map(|v| (v, v.as_u64())) {
        None => Err(CampaignError::Input(format!(
            "{at}: the start line has no version: not a shard log that wgstress wrote"
        ))),
        Some((_, Some(v))) if v == u64::from(VERSION) => Ok(()),
        Some((v, _)) => Err(CampaignError::Input(format!(
            "{at}: shard log version {v}; this wgstress reads version {VERSION} (merge it with the wgstress that wrote it)"
        ))),
    }
}

/// The lines of a command's log, read through the log's schema: a line that is not one is
/// an error naming it; whole lines that are not JSON are skipped, counted in `damaged`.
fn command_lines(
    path: &Path,
    damaged: &mut Vec<(PathBuf, usize)>,
) -> Result<Vec<wgstress_log::Line>> {
    let Some(bytes) = log_bytes(path)? else {
        return Ok(Vec::new());
    };
    let parsed =
        wgstress_log::parse(path, &bytes).map_err(|e| CampaignError::Input(e.to_string()))?;
    if parsed.damaged > 0 {
        damaged.push((path.to_path_buf(), parsed.damaged));
    }
    Ok(parsed.lines)
}

/// An attempt with what its command's log and notes say (a line of it that is not a line of
/// the log's schema is refused, with its file and line); counts no command writes are
/// refused.
fn attempt(dir: &Path, b: Begun, damaged: &mut Vec<(PathBuf, usize)>) -> Result<Attempt> {
    let files = ItemFiles::new(dir, &b.item.key, b.attempt);
    let (measures, complete) = measures(b.item.command, &command_lines(&files.log, damaged)?);
    for m in &measures {
        if m.runs > MAX_COUNT || m.failures > m.runs {
            return Err(CampaignError::Input(format!(
                "{}: {} runs with {} failures: not counts a wgstress command writes (at most 2^40, failures at most runs)",
                files.log.display(),
                m.runs,
                m.failures
            )));
        }
    }
    Ok(Attempt {
        error: error_line(&files.stderr),
        measures,
        complete,
        item: b.item,
        attempt: b.attempt,
        seed: b.seed,
        done: b.done,
    })
}

/// The command's `wgstress: error: ...` line, if it wrote one.
fn error_line(stderr: &Path) -> Option<String> {
    let tail = wgstress_model::read::tail(stderr, 64 << 10).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("wgstress: error: "))
        .map(str::to_string)
}
