//! The CLI's one reporter: every event a library reports (a run's, the fence search's, a
//! shard's) comes here once, and goes on to what subscribes to it: the JSON-lines log (the
//! run loop's lines), the run's progress bar, the search's bar and notes, and the shards'
//! notes.

use crate::fences::search_bar::Progress as SearchProgress;
use crate::notes::Notes;
use crate::present::bar::Progress;
use std::time::Instant;
use wgstress_log::JsonLog;
use wgstress_model::event::{Event, EventKind};
use wgstress_model::reporter::Reporter;
use wgstress_model::FileError;

pub struct Fanout {
    started: Instant,
    notes: Notes,
    log: Option<JsonLog>,
    runs: Option<Progress>,
    search: Option<SearchProgress>,
}

impl Fanout {
    /// A reporter to `log`, if any, and to `notes`; no bar until one is shown.
    pub fn new(notes: Notes, log: Option<JsonLog>) -> Fanout {
        Fanout {
            started: Instant::now(),
            notes,
            log,
            runs: None,
            search: None,
        }
    }

    /// Runs from now on count on `bar` (the one before it cleared).
    pub fn show_runs(&mut self, bar: Progress) {
        self.finish();
        self.runs = Some(bar);
    }

    /// The fence search's events from now on go to `progress`.
    pub fn show_search(&mut self, progress: SearchProgress) {
        self.finish();
        self.search = Some(progress);
    }

    /// Clears the bars drawn: before the command's results are printed.
    pub fn finish(&mut self) {
        if let Some(bar) = self.runs.take() {
            bar.finish();
        }
        if let Some(mut progress) = self.search.take() {
            progress.finish();
        }
    }

    /// The log, for the lines the command writes itself (a search's or a report's summary).
    pub fn log(&mut self) -> Option<&mut JsonLog> {
        self.log.as_mut()
    }

    /// The log, the bars cleared.
    pub fn into_log(mut self) -> Option<JsonLog> {
        self.finish();
        self.log.take()
    }
}

impl Reporter for Fanout {
    fn started(&self) -> Instant {
        self.started
    }

    fn report(&mut self, event: Event<'_>) -> Result<(), FileError> {
        // The log first: a line it cannot write ends the run before the bar counts it.
        if let Some(log) = self.log.as_mut() {
            log.report(event)?;
        }
        match event.kind {
            EventKind::Run(event) => {
                if let Some(bar) = self.runs.as_mut() {
                    bar.on_event(event);
                }
            }
            EventKind::Search(event) => {
                if let Some(progress) = self.search.as_mut() {
                    progress.on_event(event);
                }
            }
            EventKind::Shard(event) => self
                .notes
                .note(&crate::campaign::campaign_report::event(&event)),
        }
        Ok(())
    }
}
