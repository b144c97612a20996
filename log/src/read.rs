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
pub struct LogReadError {
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
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed, LogReadError> {
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
        let error = |what: String| LogReadError {
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
        let line: Line = serde_json::from_value(value.clone()).map_err(|e| error(e.to_string()))?;
        check_keys(&value, &line).map_err(error)?;
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

/// Refuses a key of `value` that names no field of the `line` read from it. Serde ignores
/// such keys wherever a struct cannot deny unknown fields (one with a flattened part: the
/// summaries of run, compare, fences and tune), so a field renamed there would read as
/// missing, and an optional one silently as none. Written again, a line has every key it
/// was read with and only those: one it lacks names no field.
fn check_keys(value: &serde_json::Value, line: &Line) -> Result<(), String> {
    let written = serde_json::to_value(line).map_err(|e| e.to_string())?;
    match unknown(value, &written) {
        Some(key) => Err(format!(
            "unknown field `{key}`: not a field of log version {VERSION}"
        )),
        None => Ok(()),
    }
}

/// The first key of `read` that `written` lacks, as a path of keys and indices.
fn unknown(read: &serde_json::Value, written: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match (read, written) {
        (Value::Object(read), Value::Object(written)) => {
            read.iter().find_map(|(key, r)| match written.get(key) {
                None => Some(key.clone()),
                Some(w) => unknown(r, w).map(|inner| format!("{key}.{inner}")),
            })
        }
        (Value::Array(read), Value::Array(written)) => read
            .iter()
            .zip(written)
            .enumerate()
            .find_map(|(i, (r, w))| unknown(r, w).map(|inner| format!("{i}.{inner}"))),
        _ => None,
    }
}
