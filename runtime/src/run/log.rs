//! The JSON-lines log: one line per batch, appended and flushed at once, so that what ran is
//! on disk even if the process or the device dies mid-session.

use crate::error::{Error, Result};
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct JsonLog {
    file: File,
    path: PathBuf,
}

impl JsonLog {
    pub fn append_to(path: &Path) -> Result<JsonLog> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(JsonLog {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Writes one line and flushes it to the operating system.
    pub fn write(&mut self, value: &impl Serialize) -> Result<()> {
        let mut line = serde_json::to_string(value).expect("log lines serialize");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Writes `line` as the session's summary line (`"type": "summary"`).
    pub fn summary(&mut self, mut line: serde_json::Value) -> Result<()> {
        line["type"] = serde_json::json!("summary");
        self.write(&line)
    }
}
