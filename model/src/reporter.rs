//! The one place the libraries report to: a run, a fence search or a shard takes a
//! `Reporter` and hands it each `Event` (event.rs) as it happens. The CLI's reporter passes
//! them on to the JSON-lines log, the progress bars and the notes, as cargo-nextest's
//! reporter does to its displayer, JUnit aggregator and structured output.

use crate::event::{Event, EventKind};
use crate::FileError;
use std::time::Instant;

pub trait Reporter {
    /// When the reporter started: every event's `elapsed` counts from it.
    fn started(&self) -> Instant;

    /// Takes one event. A failed write (of the log) is an error: the run loop ends the
    /// session with it, as it would for any other error, and keeps what it found.
    fn report(&mut self, event: Event<'_>) -> Result<(), FileError>;

    /// Reports `kind` as happening now.
    fn emit(&mut self, kind: EventKind<'_>) -> Result<(), FileError> {
        let elapsed = self.started().elapsed();
        self.report(Event { elapsed, kind })
    }
}

/// A reporter that takes every event and does nothing with it: for runs that nobody
/// watches (a fence search's trials, a hang's reproduction, the tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Reporter for Silent {
    fn started(&self) -> Instant {
        // No event is kept, so none needs a start to count from.
        Instant::now()
    }

    fn report(&mut self, _event: Event<'_>) -> Result<(), FileError> {
        Ok(())
    }
}

/// A reporter that hands each event's kind to a function: for a caller that watches a few
/// events itself (the tests count a search's trials with one).
pub struct Watcher<F> {
    started: Instant,
    each: F,
}

impl<F: FnMut(EventKind<'_>)> Watcher<F> {
    pub fn new(each: F) -> Watcher<F> {
        Watcher {
            started: Instant::now(),
            each,
        }
    }
}

impl<F: FnMut(EventKind<'_>)> Reporter for Watcher<F> {
    fn started(&self) -> Instant {
        self.started
    }

    fn report(&mut self, event: Event<'_>) -> Result<(), FileError> {
        (self.each)(event.kind);
        Ok(())
    }
}
