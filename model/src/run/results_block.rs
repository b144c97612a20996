//! What one run leaves in its results block, decoded, and how it ended
//! (`wgstress_runtime::gpu::decode` decodes a block and classifies a run).

use serde::{Deserialize, Serialize};

/// One event record: how often it fired and who fired first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    pub count: u32,
    pub site: u32,
    pub group: [u32; 3],
    pub local: [u32; 3],
}

/// The scheduler's control block at a run's end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheduler {
    /// Progress events: workgroups started or finished, loop iterations that changed state.
    pub progress: u32,
    pub started: u32,
    pub finished: u32,
    /// 1 + the victim's hold point when it was parked (1: at its start); 0 if it never was.
    pub victim_parked: u32,
    /// 1 + the place the victim was parked at (a loop's index, or `HOLD_PLACE` plus an
    /// access's: instrument's manifest); 0 at its start.
    pub victim_site: u32,
    /// The hold points the victim passed (its invocations' most).
    #[serde(default)]
    pub victim_holds: u32,
    /// The places the victim passed where its model would have let it be held: bit i of
    /// words 0-3 the loop of index i, of words 4-7 the access of index i (the first 128 of
    /// each).
    #[serde(default)]
    pub reached: [u32; 8],
    /// Workgroups that waited for a free slot under the occupancy bound.
    pub admissions_held: u32,
    /// A stall was found while a workgroup was held back: starvation.
    pub starved: bool,
    /// A stall was found with none held: the application stopped getting anywhere.
    pub hung: bool,
    /// Invocations that found their wait stalled, and the first eight: (workgroup, loop).
    pub waiters: u32,
    pub waits: [(u32, u32); 8],
}

impl Scheduler {
    /// The waits recorded, distinct (workgroup, loop) pairs in the order found.
    pub fn waits(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        for w in self.waits.iter().take(self.waiters.min(8) as usize) {
            if !out.contains(w) {
                out.push(*w);
            }
        }
        out
    }
}

/// The GPU-side results of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub assertion: EventRecord,
    pub postcondition: EventRecord,
    pub watchdog: EventRecord,
    /// A wait that saw no progress for the stall limit: its loop, and who found it first.
    #[serde(default)]
    pub stall: EventRecord,
    /// A loop the driver ended (llvmpipe's iteration limit): the first, and how many.
    #[serde(default)]
    pub cut: EventRecord,
    /// What the scheduler saw (docs/progress.md).
    #[serde(default)]
    pub scheduler: Scheduler,
    pub stress_groups_ran: u32,
    /// The highest count any application loop reached, as the watchdog counts: a `for` loop
    /// of n iterations counts n + 1 (its last entry leaves by the condition). 0 in records
    /// written before it was kept.
    #[serde(default)]
    pub max_trips: u32,
    /// The results block the events come from: the dispatch's index in the pipeline (0 for
    /// a single kernel), or the number of dispatches for a postcondition in its own file.
    #[serde(default)]
    pub dispatch: u32,
}

impl Record {
    /// One run's record from the records of its blocks (one per dispatch): the events of the
    /// first block where the driver cut a loop, else where the scheduler starved a wait, else
    /// where the watchdog fired, else of the first with a failed assertion, else
    /// of the first with a failed postcondition; stress workgroups summed, loop counts the
    /// highest.
    pub fn merge(blocks: &[Record]) -> Record {
        let first = |count: fn(&Record) -> u32| blocks.iter().position(|r| count(r) > 0);
        let at = first(|r| r.cut.count)
            .or_else(|| first(|r| u32::from(r.scheduler.starved)))
            .or_else(|| first(|r| r.watchdog.count))
            .or_else(|| first(|r| u32::from(r.scheduler.hung)))
            .or_else(|| first(|r| r.assertion.count))
            .or_else(|| first(|r| r.postcondition.count))
            .unwrap_or(0);
        Record {
            stress_groups_ran: blocks.iter().map(|r| r.stress_groups_ran).sum(),
            max_trips: blocks.iter().map(|r| r.max_trips).max().unwrap_or(0),
            dispatch: at as u32,
            ..blocks[at]
        }
    }
}

/// How a run ended. Starvation outranks the others: what follows the release of the held
/// workgroups (a loop cut short, a failed check) may follow from it. A watchdog or hang
/// outcome outranks the checks: once a loop was cut short, the application's results say
/// nothing more.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunOutcome {
    Pass,
    Postcondition,
    Assertion,
    /// A wait was held up by a workgroup the run's progress model did not guarantee to run;
    /// the held workgroups were then released and the run completed.
    Starved,
    /// The application stopped getting anywhere (a deadlock, or a livelock that changes
    /// nothing): every wait saw no progress, with nothing held back.
    Hang,
    Watchdog,
    DeviceLost,
}

/// As the log spells it.
impl std::fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunOutcome::Pass => "pass",
            RunOutcome::Postcondition => "postcondition",
            RunOutcome::Assertion => "assertion",
            RunOutcome::Starved => "starved",
            RunOutcome::Hang => "hang",
            RunOutcome::Watchdog => "watchdog",
            RunOutcome::DeviceLost => "device-lost",
        })
    }
}

impl RunOutcome {
    pub fn is_failure(&self) -> bool {
        *self != RunOutcome::Pass
    }
}
