//! What one run leaves in its results block, decoded, and how it is classified.

use crate::app::failure::CheckFailure;
use serde::{Deserialize, Serialize};
use wgstress_instrument::manifest::{Layout, Manifest};

/// One event record: how often it fired and who fired first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub count: u32,
    pub site: u32,
    pub group: [u32; 3],
    pub local: [u32; 3],
}

/// The GPU-side results of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub assertion: Event,
    pub postcondition: Event,
    pub watchdog: Event,
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
    /// Decodes a results block laid out as the manifest says.
    pub fn decode(bytes: &[u8], manifest: &Manifest) -> Record {
        let word = |offset: u32| {
            let o = offset as usize;
            u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"))
        };
        let events_at = field(&manifest.results, "events");
        let event = |index: u32| {
            let base = events_at + index * manifest.event.size;
            let f = |name: &str| word(base + field(&manifest.event, name));
            Event {
                count: f("count"),
                site: f("site"),
                group: [f("group_x"), f("group_y"), f("group_z")],
                local: [f("local_x"), f("local_y"), f("local_z")],
            }
        };
        Record {
            assertion: event(0),
            postcondition: event(1),
            watchdog: event(2),
            stress_groups_ran: word(field(&manifest.results, "stress_groups_ran")),
            max_trips: word(field(&manifest.results, "max_trips")),
            dispatch: 0,
        }
    }

    /// One run's record from the records of its blocks (one per dispatch): the events of the
    /// first block where the watchdog fired, else of the first with a failed assertion, else
    /// of the first with a failed postcondition; stress workgroups summed, loop counts the
    /// highest.
    pub fn merge(blocks: &[Record]) -> Record {
        let first = |count: fn(&Record) -> u32| blocks.iter().position(|r| count(r) > 0);
        let at = first(|r| r.watchdog.count)
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

fn field(layout: &Layout, name: &str) -> u32 {
    layout
        .offset(name)
        .unwrap_or_else(|| panic!("the wgstress library lays out `{name}`"))
}

/// How a run ended. A watchdog outcome outranks the others: once a loop was cut short, the
/// application's results and checks say nothing more.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    Postcondition,
    Assertion,
    Watchdog,
    DeviceLost,
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        *self != Outcome::Pass
    }

    /// Classifies a run from its GPU record and the host checks' verdict.
    pub fn classify(record: &Record, host: &Result<(), CheckFailure>) -> Outcome {
        if record.watchdog.count > 0 {
            Outcome::Watchdog
        } else if record.assertion.count > 0 {
            Outcome::Assertion
        } else if record.postcondition.count > 0 || host.is_err() {
            Outcome::Postcondition
        } else {
            Outcome::Pass
        }
    }
}
