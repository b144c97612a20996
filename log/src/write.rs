//! The log's one writer.

use crate::{Line, Start, StartOf, Summary, VERSION};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use wgstress_model::event::{Event, EventKind, RunEvent};
use wgstress_model::reporter::Reporter;
use wgstress_model::FileError;

pub struct JsonLog {
    file: File,
    path: PathBuf,
    opened: Instant,
}

impl JsonLog {
    pub fn append_to(path: &Path) -> Result<JsonLog, FileError> {
        let file = wgstress_model::open::writer(path, true).map_err(|e| FileError::io(path, e))?;
        Ok(JsonLog {
            file,
            path: path.to_path_buf(),
            opened: Instant::now(),
        })
    }

    /// Writes one line and flushes it to the operating system.
    pub fn write(&mut self, line: &Line) -> Result<(), FileError> {
        // Only a value serde_json cannot write (a map with keys that are not strings) fails
        // here: an error of the log, as a failed write is.
        let mut text = serde_json::to_string(line)
            .map_err(|e| FileError::io(&self.path, std::io::Error::other(e)))?;
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| FileError::io(&self.path, e))
    }

    /// Writes a command's start line, with the schema's version.
    pub fn start(&mut self, command: StartOf) -> Result<(), FileError> {
        self.write(&Line::Start(Start {
            version: VERSION,
            command,
        }))
    }

    /// Writes a command's summary line.
    pub fn summary(&mut self, summary: Summary) -> Result<(), FileError> {
        self.write(&Line::Summary(Box::new(summary)))
    }
}

/// A subscriber to the run loop's events: each of its log lines written as it comes (the
/// lines carry their own times; a lost device, the search's and the shards' events are
/// no line of this log).
impl Reporter for JsonLog {
    fn started(&self) -> Instant {
        self.opened
    }

    fn report(&mut self, event: Event<'_>) -> Result<(), FileError> {
        let EventKind::Run(event) = event.kind else {
            return Ok(());
        };
        match event {
            RunEvent::Start(s) => self.start(StartOf::Run(s.clone())),
            RunEvent::CompareStart(s) => self.start(StartOf::Compare(s.clone())),
            RunEvent::Batch(b) => self.write(&Line::Batch(b.clone())),
            RunEvent::DeviceLost(_) => Ok(()),
            RunEvent::Summary(s) => self.summary(Summary::Run(Box::new(s.clone()))),
            RunEvent::CompareSummary(c) => self.summary(Summary::Compare(c.clone())),
        }
    }
}
