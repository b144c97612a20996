//! Reading a log back: each whole line as a `Line`, refused with its file and line number
//! when it is not one (a field renamed, missing or of another type, a start line of another
//! version). Two things are not errors, as a killed command or a damaged disk leaves them:
//! a last line without its newline (cut off mid-write) is skipped, and a whole line that is
//! not JSON at all is skipped and counted.

use crate::{Line, VERSION};
use std::path::Path;

/// A line of a log that is not a line of this schema.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {what}")]
pub struct Error {
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub what: String,
}

/// What a log holds.
#[derive(Debug, Default)]
pub struct Parsed {
    pub lines: Vec<Line>,
    /// Whole lines that are not JSON, skipped.
    pub damaged: usize,
}

/// The lines of `bytes`, the contents of the log at `path` (named in errors).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed, Error> {
    let mut parsed = Parsed::default();
    let mut rest = bytes;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let (text, next, ended) = match rest.iter().position(|b| *b == b'\n') {
            Some(end) => (&rest[..end], &rest[end + 1..], true),
            None => (rest, &[][..], false),
        };
        rest = next;
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let error = |what: String| Error {
            file: path.display().to_string(),
            line: number,
            what,
        };
        let value: serde_json::Value = match serde_json::from_slice(text) {
            Ok(value) => value,
            Err(_) if ended => {
                parsed.damaged += 1;
                continue;
            }
            Err(_) => break,
        };
        check_version(&value).map_err(error)?;
        let line = serde_json::from_value(value).map_err(|e| error(e.to_string()))?;
        parsed.lines.push(line);
    }
    Ok(parsed)
}

/// Refuses a start line of another version before its fields are read: they may mean other
/// things there.
fn check_version(value: &serde_json::Value) -> Result<(), String> {
    if value.get("type").and_then(|t| t.as_str()) != Some("start") {
        return Ok(());
    }
    match value.get("version") {
        None => Err(format!(
            "a start line without a version: a log of a wgstress older than log version {VERSION}"
        )),
        Some(v) if v.as_u64() == Some(u64::from(VERSION)) => Ok(()),
        Some(v) => Err(format!(
            "log version {v}; this wgstress reads version {VERSION} (read it with the wgstress that wrote it)"
        )),
    }
}
