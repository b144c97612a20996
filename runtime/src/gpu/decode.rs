//! Decoding a run's results block, and classifying the run: the parts of a record that need
//! the instrumenter's manifest and the host checks (the record is `wgstress_model`'s).

use crate::app::failure::CheckFailure;
use wgstress_instrument::manifest::{Layout, Manifest};
use wgstress_model::run::results_block::{EventRecord, Record, RunOutcome, Scheduler};

/// Decodes a results block laid out as the manifest says.
pub(crate) fn decode(bytes: &[u8], manifest: &Manifest) -> Record {
    let word = |offset: u32| {
        let o = offset as usize;
        u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"))
    };
    let events_at = field(&manifest.results, "events");
    let event = |index: u32| {
        let base = events_at + index * manifest.event.size;
        let f = |name: &str| word(base + field(&manifest.event, name));
        EventRecord {
            count: f("count"),
            site: f("site"),
            group: [f("group_x"), f("group_y"), f("group_z")],
            local: [f("local_x"), f("local_y"), f("local_z")],
        }
    };
    let at = |name: &str| word(field(&manifest.results, name));
    let waits_at = field(&manifest.results, "waits");
    let mut waits = [(0, 0); 8];
    for (i, w) in waits.iter_mut().enumerate() {
        let base = waits_at + 8 * i as u32;
        *w = (word(base), word(base + 4));
    }
    let reached_at = field(&manifest.results, "reached");
    let mut reached = [0; 8];
    for (i, w) in reached.iter_mut().enumerate() {
        *w = word(reached_at + 4 * i as u32);
    }
    let scheduler = Scheduler {
        progress: at("progress"),
        started: at("started"),
        finished: at("finished"),
        victim_parked: at("victim_parked"),
        victim_site: at("victim_site"),
        victim_holds: at("victim_holds"),
        reached,
        admissions_held: at("admissions_held"),
        starved: at("starved") != 0,
        hung: at("hung") != 0,
        waiters: at("waiters"),
        waits,
    };
    Record {
        assertion: event(0),
        postcondition: event(1),
        watchdog: event(2),
        stall: event(3),
        cut: event(4),
        scheduler,
        stress_groups_ran: word(field(&manifest.results, "stress_groups_ran")),
        max_trips: word(field(&manifest.results, "max_trips")),
        dispatch: 0,
    }
}

/// Classifies a run from its GPU record and the host checks' verdict.
pub(crate) fn classify(record: &Record, host: &Result<(), CheckFailure>) -> RunOutcome {
    if record.scheduler.starved {
        RunOutcome::Starved
    } else if record.watchdog.count > 0 {
        RunOutcome::Watchdog
    } else if record.scheduler.hung {
        RunOutcome::Hang
    } else if record.assertion.count > 0 {
        RunOutcome::Assertion
    } else if record.postcondition.count > 0 || host.is_err() {
        RunOutcome::Postcondition
    } else {
        RunOutcome::Pass
    }
}

fn field(layout: &Layout, name: &str) -> u32 {
    layout
        .offset(name)
        .unwrap_or_else(|| panic!("the wgstress library lays out `{name}`"))
}
