//! Counting a batch's outcomes into a session's tally, and describing a failing run with its
//! source location: what needs the instrumenter's manifest (the tally is `wgstress_model`'s).

use crate::gpu::engine::RunResult;
use std::time::Duration;
use wgstress_instrument::Manifest;
use wgstress_model::plural::count;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::run::tally::{seed_text, Failure, Tally};
use wgstress_model::stress::params::{Replay, RunParams};

/// Adds to `tally` a batch that took `elapsed`; returns the batch's failures, described, each with
/// what `replay` says replays it.
pub(crate) fn add(
    tally: &mut Tally,
    results: &[RunResult],
    elapsed: Duration,
    manifests: &[&Manifest],
    replay: &dyn Fn(&RunParams) -> Replay,
) -> Vec<Failure> {
    let mut failures = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let run = tally.runs + i as u64;
        *tally.counts.entry(r.outcome.clone()).or_default() += 1;
        tally.stress_groups_ran += u64::from(r.record.stress_groups_ran);
        tally.slow_waits += u64::from(r.rerun.is_some_and(|r| r.ended));
        let s = &r.record.scheduler;
        tally.holds.add(
            r.params.victim,
            r.params.park_place.is_some(),
            s.victim_parked,
            s.victim_site,
            &s.reached,
            s.victim_holds,
        );
        if r.outcome.is_failure() {
            let share = (i + 1) as f64 / results.len() as f64;
            failures.push(Failure {
                run,
                seconds: (tally.elapsed + elapsed.mul_f64(share)).as_secs_f64(),
                seed: seed_text(r.params.seed),
                outcome: r.outcome.clone(),
                detail: describe(r, manifests),
                replay: replay(&r.params),
            });
        }
    }
    tally.runs += results.len() as u64;
    tally.elapsed += elapsed;
    if tally.first_failure.is_none() {
        tally.first_failure = failures.first().cloned();
    }
    failures
}

/// What went wrong in a run, with its source location; in a pipeline, which dispatch's
/// events they are (`manifests`: one per results block, `Engine::manifests`).
pub fn describe(r: &RunResult, manifests: &[&Manifest]) -> String {
    let block = r.record.dispatch as usize;
    let manifest = manifests[block.min(manifests.len() - 1)];
    let text = describe_in(r, manifest);
    // A postcondition's failure names its own file and entry point already.
    let in_dispatch = matches!(
        r.outcome,
        RunOutcome::Watchdog | RunOutcome::Assertion | RunOutcome::Starved | RunOutcome::Hang
    );
    if manifests.len() > 1 && in_dispatch {
        format!(
            "dispatch {} (`{}`): {text}",
            block + 1,
            manifest.entry_point.name
        )
    } else {
        text
    }
}

fn describe_in(r: &RunResult, manifest: &Manifest) -> String {
    let file = &manifest.source;
    let at = |event: &wgstress_model::run::results_block::EventRecord,
              sites: &[wgstress_instrument::manifest::Site]| {
        let place = sites
            .get(event.site as usize)
            .map_or_else(|| format!("site {}", event.site), |s| s.describe(file));
        format!(
            "{place}, {}; first by workgroup {:?} thread {:?}",
            count(event.count, "time", "times"),
            event.group,
            event.local
        )
    };
    match r.outcome {
        RunOutcome::Pass => "pass".into(),
        RunOutcome::Watchdog => format!(
            "loop ran past the watchdog limit at {}",
            at(&r.record.watchdog, &manifest.loops)
        ),
        RunOutcome::Assertion => format!(
            "assertion failed at {}",
            at(&r.record.assertion, &manifest.hooks)
        ),
        RunOutcome::Starved => starved(r, manifest),
        RunOutcome::Hang => format!(
            "no progress: {} waited while nothing got anywhere (a deadlock, or a livelock that changes nothing); every loop was stopped{}{}",
            waits(&r.record.scheduler, manifest),
            held(r, manifest).map_or(String::new(), |h| format!(" ({h} before, and released)")),
            r.rerun.map_or(String::new(), |again| format!(
                "; {} without that verdict, the wait was still not over after {:.2} s ({})",
                if again.earlier {
                    "as an earlier run's at the same loops, run again"
                } else {
                    "run again"
                },
                again.seconds,
                count(again.attempts, "attempt", "attempts")
            ))
        ),
        RunOutcome::Postcondition if r.record.postcondition.count > 0 => {
            format!(
                "postcondition failed at {}",
                at(&r.record.postcondition, &manifest.hooks)
            )
        }
        RunOutcome::Postcondition => {
            let why = r.host.as_ref().map_or("?".into(), ToString::to_string);
            format!("host check failed: {why}")
        }
        RunOutcome::DeviceLost => "the device was lost during this run's batch".into(),
    }
}

/// "workgroup 3 at f.wgsl:40:5 (in main), workgroup 7 at ..." for the waits a run recorded.
fn waits(scheduler: &wgstress_model::run::results_block::Scheduler, manifest: &Manifest) -> String {
    let waits = scheduler.waits();
    let mut parts: Vec<String> = waits
        .iter()
        .map(|(group, site)| format!("workgroup {group} at {}", manifest.loop_at(*site)))
        .collect();
    if scheduler.waiters as usize > waits.len() {
        parts.push(format!(
            "{} in all",
            count(scheduler.waiters, "stalled wait", "stalled waits")
        ));
    }
    if parts.is_empty() {
        "no wait recorded".into()
    } else {
        parts.join(", ")
    }
}

/// Who the scheduler held back and where, if anyone.
fn held(r: &RunResult, manifest: &Manifest) -> Option<String> {
    let s = &r.record.scheduler;
    match (r.params.victim, s.victim_parked) {
        (Some(victim), 1) => Some(format!("workgroup {victim} was held at its start")),
        (Some(victim), n) if n > 1 => Some(format!(
            "workgroup {victim} was held at its hold point {}, after {}",
            n - 1,
            manifest.place_at(s.victim_site.saturating_sub(1))
        )),
        _ if s.admissions_held > 0 => Some(format!(
            "{} to start for a free slot (occupancy {})",
            count(s.admissions_held, "workgroup waited", "workgroups waited"),
            r.params.occupancy
        )),
        _ => None,
    }
}

/// Who was held, where, under which model, and who waited for it.
fn starved(r: &RunResult, manifest: &Manifest) -> String {
    let s = &r.record.scheduler;
    let schedule = r.params.schedule;
    let held = held(r, manifest).unwrap_or_else(|| "a workgroup was held".into());
    let why = if s.admissions_held > 0 && r.params.victim.is_none() {
        format!(
            "a GPU that runs {} at once never starts the others while these wait",
            count(r.params.occupancy, "workgroup", "workgroups")
        )
    } else {
        format!("{schedule} does not guarantee that it runs")
    };
    format!(
        "starved under {schedule}: {held} while {} waited: {why}; released, the run completed",
        waits(s, manifest)
    )
}
