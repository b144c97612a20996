//! The CLI's one reporter: every event a library reports (a run's, the fence search's, a
//! shard's) comes here once, and goes on to what subscribes to it: the JSON-lines log (the
//! run loop's lines) and to what the command shows as it runs (a `Subscriber`: the run's
//! progress bar, the search's bar and notes, the shards' notes).

use std::time::Instant;
use wgstress_log::JsonLog;
use wgstress_model::event::{Event, EventKind};
use wgstress_model::reporter::Reporter;
use wgstress_model::FileError;

/// What shows events as they come: a progress bar, notes. Each command's own shows (the
/// search's bar, the shards' notes) implement it in the command's folder, so that the
/// reporter needs none of them.
pub trait Subscriber: Send {
    fn notice(&mut self, event: EventKind<'_>);
    /// Clears what it draws: before the command's results are printed.
    fn finish(&mut self) {}
}

pub struct Fanout {
    started: Instant,
    log: Option<JsonLog>,
    shown: Option<Box<dyn Subscriber>>,
}

impl Fanout {
    /// A reporter to `log`, if any; nothing shown until `show`.
    pub fn new(log: Option<JsonLog>) -> Fanout {
        Fanout {
            started: Instant::now(),
            log,
            shown: None,
        }
    }

    /// Events from now on are shown by `subscriber` (the one before it cleared).
    pub fn show(&mut self, subscriber: impl Subscriber + 'static) {
        self.finish();
        self.shown = Some(Box::new(subscriber));
    }

    /// Clears what is drawn: before the command's results are printed.
    pub fn finish(&mut self) {
        if let Some(mut shown) = self.shown.take() {
            shown.finish();
        }
    }

    /// The log, for the lines the command writes itself (a search's or a report's summary).
    pub fn log(&mut self) -> Option<&mut JsonLog> {
        self.log.as_mut()
    }

    /// The log, what was drawn cleared.
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
        if let Some(shown) = self.shown.as_mut() {
            shown.notice(event.kind);
        }
        Ok(())
    }
}
