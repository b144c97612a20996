//! Counting outcomes over a session of runs, and the summary a user reads.

use crate::run::holds::HoldTally;
use crate::run::results_block::RunOutcome;
use crate::run::stats::{reproducibility, wilson_95};
use crate::stress::params::Replay;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// A failing run, with what a user needs to find and replay it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub run: u64,
    pub seconds: f64,
    pub seed: String,
    pub outcome: RunOutcome,
    pub detail: String,
    /// What, with its seed, replays this run.
    pub replay: Replay,
}

#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub runs: u64,
    pub counts: BTreeMap<RunOutcome, u64>,
    pub elapsed: Duration,
    pub first_failure: Option<Failure>,
    pub stress_groups_ran: u64,
    /// Runs whose wait the detector called a hang, or the driver ended, that ended by
    /// themselves when run again (counted by their outcome then).
    pub slow_waits: u64,
    /// Where runs under a progress model held their victims, and the places they passed.
    pub holds: HoldTally,
}

/// `0x…`: how seeds are printed and read back by `--seed`.
pub fn seed_text(seed: u64) -> String {
    format!("{seed:#018x}")
}

impl Tally {
    /// Runs whose outcome was `outcome`.
    pub fn count(&self, outcome: &RunOutcome) -> u64 {
        self.counts.get(outcome).copied().unwrap_or(0)
    }

    pub fn failures(&self) -> u64 {
        self.counts
            .iter()
            .filter(|(o, _)| o.is_failure())
            .map(|(_, n)| n)
            .sum()
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
            counts: RunCounts::from(&self.counts),
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
            slow_waits: self.slow_waits,
            holds: self.holds.clone(),
        }
    }
}

/// The numbers a summary reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stats {
    pub runs: u64,
    pub failures: u64,
    pub counts: RunCounts,
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
    /// Runs whose wait the detector called a hang, or the driver ended, and that ended by
    /// themselves when run again: slow waits, counted by the outcome of the attempt that
    /// ended, not as hangs.
    #[serde(default)]
    pub slow_waits: u64,
    /// Where runs under a progress model held their victims (empty for runs that hold none).
    #[serde(default, skip_serializing_if = "HoldTally::is_empty")]
    pub holds: HoldTally,
}

/// Runs per outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCounts {
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

impl From<&BTreeMap<RunOutcome, u64>> for RunCounts {
    fn from(map: &BTreeMap<RunOutcome, u64>) -> RunCounts {
        let get = |o: RunOutcome| map.get(&o).copied().unwrap_or(0);
        RunCounts {
            pass: get(RunOutcome::Pass),
            postcondition: get(RunOutcome::Postcondition),
            assertion: get(RunOutcome::Assertion),
            starved: get(RunOutcome::Starved),
            hang: get(RunOutcome::Hang),
            watchdog: get(RunOutcome::Watchdog),
            device_lost: get(RunOutcome::DeviceLost),
        }
    }
}

impl std::fmt::Display for RunCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pass {}", self.pass)?;
        for (kind, n) in self.failing_kinds() {
            write!(f, ", {kind} {n}")?;
        }
        Ok(())
    }
}

impl RunCounts {
    /// Runs per failing outcome, in the order the summary prints them.
    pub fn failing_kinds(&self) -> [(&'static str, u64); 6] {
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

#[cfg(test)]
mod tests {
    use super::RunCounts;

    #[test]
    fn failing_names_only_the_kinds_that_occurred() {
        let none = RunCounts {
            pass: 5,
            ..RunCounts::default()
        };
        assert_eq!(none.failing(), "-");
        let some = RunCounts {
            pass: 5,
            postcondition: 700,
            watchdog: 3,
            ..RunCounts::default()
        };
        assert_eq!(some.failing(), "postcondition 700, watchdog 3");
        assert_eq!(
            some.to_string(),
            "pass 5, postcondition 700, assertion 0, starved 0, hang 0, watchdog 3, device lost 0"
        );
    }
}
