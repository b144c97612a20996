//! Counting outcomes over a session of runs, and the summary a user reads.

use crate::gpu::engine::RunResult;
use crate::run::record::Outcome;
use crate::run::stats::{reproducibility, wilson_95};
use crate::stress::strategy::{Replay, RunParams};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;
use wgstress_instrument::Manifest;

/// A failing run, with what a user needs to find and replay it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub run: u64,
    pub seconds: f64,
    pub seed: String,
    pub outcome: Outcome,
    pub detail: String,
    /// What, with its seed, replays this run.
    pub replay: Replay,
}

#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub runs: u64,
    pub counts: BTreeMap<Outcome, u64>,
    pub elapsed: Duration,
    pub first_failure: Option<Failure>,
    pub stress_groups_ran: u64,
}

/// `0x…`: how seeds are printed and read back by `--seed`.
pub fn seed_text(seed: u64) -> String {
    format!("{seed:#018x}")
}

impl Tally {
    /// Runs whose outcome was `outcome`.
    pub fn count(&self, outcome: &Outcome) -> u64 {
        self.counts.get(outcome).copied().unwrap_or(0)
    }

    pub fn failures(&self) -> u64 {
        self.counts
            .iter()
            .filter(|(o, _)| o.is_failure())
            .map(|(_, n)| n)
            .sum()
    }

    /// Adds a batch that took `elapsed`; returns the batch's failures, described, each with
    /// what `replay` says replays it.
    pub fn add(
        &mut self,
        results: &[RunResult],
        elapsed: Duration,
        manifests: &[&Manifest],
        replay: &dyn Fn(&RunParams) -> Replay,
    ) -> Vec<Failure> {
        let mut failures = Vec::new();
        for (i, r) in results.iter().enumerate() {
            let run = self.runs + i as u64;
            *self.counts.entry(r.outcome.clone()).or_default() += 1;
            self.stress_groups_ran += u64::from(r.record.stress_groups_ran);
            if r.outcome.is_failure() {
                let share = (i + 1) as f64 / results.len() as f64;
                failures.push(Failure {
                    run,
                    seconds: (self.elapsed + elapsed.mul_f64(share)).as_secs_f64(),
                    seed: seed_text(r.params.seed),
                    outcome: r.outcome.clone(),
                    detail: describe(r, manifests),
                    replay: replay(&r.params),
                });
            }
        }
        self.runs += results.len() as u64;
        self.elapsed += elapsed;
        if self.first_failure.is_none() {
            self.first_failure = failures.first().cloned();
        }
        failures
    }

    pub fn runs_per_second(&self) -> f64 {
        self.runs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn stats(&self) -> Stats {
        let failures = self.failures();
        let (low, high) = wilson_95(failures, self.runs);
        Stats {
            runs: self.runs,
            failures,
            counts: Counts::from(&self.counts),
            seconds: self.elapsed.as_secs_f64(),
            runs_per_second: self.runs_per_second(),
            failure_rate: if self.runs == 0 {
                0.0
            } else {
                failures as f64 / self.runs as f64
            },
            interval_95: [low, high],
            reproducibility: reproducibility(failures as f64),
            time_to_first_failure: self.first_failure.as_ref().map(|f| f.seconds),
            first_failure: self.first_failure.clone(),
            stress_groups_ran: self.stress_groups_ran,
        }
    }
}

/// The numbers a summary reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stats {
    pub runs: u64,
    pub failures: u64,
    pub counts: Counts,
    pub seconds: f64,
    pub runs_per_second: f64,
    pub failure_rate: f64,
    /// Wilson score interval of the failure rate, 95%.
    pub interval_95: [f64; 2],
    /// 1 - e^(-failures): the chance that another session of the same budget fails too.
    pub reproducibility: f64,
    /// Seconds of runs before the first failure ended (calibration not counted).
    pub time_to_first_failure: Option<f64>,
    pub first_failure: Option<Failure>,
    pub stress_groups_ran: u64,
}

/// Runs per outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub pass: u64,
    pub postcondition: u64,
    pub assertion: u64,
    #[serde(default)]
    pub starved: u64,
    #[serde(default)]
    pub hang: u64,
    pub watchdog: u64,
    pub device_lost: u64,
}

impl From<&BTreeMap<Outcome, u64>> for Counts {
    fn from(map: &BTreeMap<Outcome, u64>) -> Counts {
        let get = |o: Outcome| map.get(&o).copied().unwrap_or(0);
        Counts {
            pass: get(Outcome::Pass),
            postcondition: get(Outcome::Postcondition),
            assertion: get(Outcome::Assertion),
            starved: get(Outcome::Starved),
            hang: get(Outcome::Hang),
            watchdog: get(Outcome::Watchdog),
            device_lost: get(Outcome::DeviceLost),
        }
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pass {}", self.pass)?;
        for (kind, n) in self.failing_kinds() {
            write!(f, ", {kind} {n}")?;
        }
        Ok(())
    }
}

impl Counts {
    /// Runs per failing outcome, in the order the summary prints them.
    fn failing_kinds(&self) -> [(&'static str, u64); 6] {
        [
            ("postcondition", self.postcondition),
            ("assertion", self.assertion),
            ("starved", self.starved),
            ("hang", self.hang),
            ("watchdog", self.watchdog),
            ("device lost", self.device_lost),
        ]
    }

    /// Runs whose outcome is a failure.
    pub fn failures(&self) -> u64 {
        self.failing_kinds().iter().map(|(_, n)| n).sum()
    }

    /// The failing outcomes that occurred, as in "postcondition 700, watchdog 3"; "-" if none.
    pub fn failing(&self) -> String {
        let kinds: Vec<String> = self
            .failing_kinds()
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        if kinds.is_empty() {
            "-".into()
        } else {
            kinds.join(", ")
        }
    }
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
        Outcome::Watchdog | Outcome::Assertion | Outcome::Starved | Outcome::Hang
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
    let at = |event: &crate::run::record::Event, sites: &[wgstress_instrument::manifest::Site]| {
        let place = sites
            .get(event.site as usize)
            .map_or_else(|| format!("site {}", event.site), |s| s.describe(file));
        format!(
            "{place}, {} time(s); first by workgroup {:?} thread {:?}",
            event.count, event.group, event.local
        )
    };
    match r.outcome {
        Outcome::Pass => "pass".into(),
        Outcome::Watchdog => format!(
            "loop ran past the watchdog limit at {}",
            at(&r.record.watchdog, &manifest.loops)
        ),
        Outcome::Assertion => format!(
            "assertion failed at {}",
            at(&r.record.assertion, &manifest.hooks)
        ),
        Outcome::Starved => starved(r, manifest),
        Outcome::Hang => format!(
            "no progress: {} waited while nothing got anywhere (a deadlock, or a livelock that changes nothing); every loop was stopped{}",
            waits(&r.record.scheduler, manifest),
            held(r, manifest).map_or(String::new(), |h| format!(" ({h} before, and released)"))
        ),
        Outcome::Postcondition if r.record.postcondition.count > 0 => {
            format!(
                "postcondition failed at {}",
                at(&r.record.postcondition, &manifest.hooks)
            )
        }
        Outcome::Postcondition => {
            let why = r.host.as_ref().map_or("?".into(), ToString::to_string);
            format!("host check failed: {why}")
        }
        Outcome::DeviceLost => "the device was lost during this run's batch".into(),
    }
}

/// "workgroup 3 at f.wgsl:40:5 (in main), workgroup 7 at ..." for the waits a run recorded.
fn waits(scheduler: &crate::run::record::Scheduler, manifest: &Manifest) -> String {
    let waits = scheduler.waits();
    let mut parts: Vec<String> = waits
        .iter()
        .map(|(group, site)| format!("workgroup {group} at {}", manifest.loop_at(*site)))
        .collect();
    if scheduler.waiters as usize > waits.len() {
        parts.push(format!("{} stalled wait(s) in all", scheduler.waiters));
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
            "workgroup {victim} was held at its step {} in {}",
            n - 1,
            manifest.loop_at(s.victim_site.saturating_sub(1))
        )),
        _ if s.admissions_held > 0 => Some(format!(
            "{} workgroup(s) waited to start for a free slot (occupancy {})",
            s.admissions_held, r.params.occupancy
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
            "a GPU that runs {} workgroup(s) at once never starts the others while these wait",
            r.params.occupancy
        )
    } else {
        format!("{schedule} does not guarantee that it runs")
    };
    format!(
        "starved under {schedule}: {held} while {} waited: {why}; released, the run completed",
        waits(s, manifest)
    )
}

#[cfg(test)]
mod tests {
    use super::Counts;

    #[test]
    fn failing_names_only_the_kinds_that_occurred() {
        let none = Counts {
            pass: 5,
            ..Counts::default()
        };
        assert_eq!(none.failing(), "-");
        let some = Counts {
            pass: 5,
            postcondition: 700,
            watchdog: 3,
            ..Counts::default()
        };
        assert_eq!(some.failing(), "postcondition 700, watchdog 3");
        assert_eq!(
            some.to_string(),
            "pass 5, postcondition 700, assertion 0, starved 0, hang 0, watchdog 3, device lost 0"
        );
    }
}
