//! How much of the costly work this thread has done: parses of WGSL text, placements of
//! fence sites and analyses of them. A fence search parses each part once, and places and
//! analyses its sites once per set of variables made atomic; its tests count these to hold
//! it to that.

use std::cell::Cell;

thread_local! {
    static PARSES: Cell<u64> = const { Cell::new(0) };
    static PLACEMENTS: Cell<u64> = const { Cell::new(0) };
    static ANALYSES: Cell<u64> = const { Cell::new(0) };
}

/// This thread's counts so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// WGSL texts parsed (a user's shader, or one wgstress wrote; not its own library).
    pub parses: u64,
    /// Modules whose candidate fence sites were placed.
    pub placements: u64,
    /// Placed modules analysed (their sites' roles and source anchors).
    pub analyses: u64,
}

impl Work {
    /// The counts of this thread now.
    pub fn now() -> Work {
        Work {
            parses: PARSES.with(Cell::get),
            placements: PLACEMENTS.with(Cell::get),
            analyses: ANALYSES.with(Cell::get),
        }
    }

    /// The work done since `earlier` (this thread's counts then; counts of another thread
    /// give no more than this thread's).
    pub fn since(earlier: Work) -> Work {
        let now = Work::now();
        Work {
            parses: now.parses.saturating_sub(earlier.parses),
            placements: now.placements.saturating_sub(earlier.placements),
            analyses: now.analyses.saturating_sub(earlier.analyses),
        }
    }
}

pub(crate) fn parsed() {
    PARSES.with(|n| n.set(n.get() + 1));
}

pub(crate) fn placed() {
    PLACEMENTS.with(|n| n.set(n.get() + 1));
}

pub(crate) fn analysed() {
    ANALYSES.with(|n| n.set(n.get() + 1));
}
