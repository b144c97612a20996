//! What the fence search found and measured: the verdict, the fix and what it relies on, the
//! kept sites, and the evidence (for the report, the JSON and the log's summary line). An
//! `FenceOutcome` is built once, when the search ends.

use crate::fences::cost::Cost;
use crate::fences::measured::Measured;
use crate::fences::patch::{Choice, FilePatch};
use crate::run::stop::Stop;
use crate::stress::strategy::Strategy;
use serde::Serialize;

/// How the search ended.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum FenceVerdict {
    /// No run failed under the stress tried: nothing to fix.
    DoesNotFail,
    /// Every failure was a watchdog stop while passing runs looped near the limit: waits
    /// that look legitimate but longer than the limit allows, which no fence shortens.
    WatchdogStops { why: String },
    /// Neither barriers nor make-atomic stopped the failures (fix kind 5c): why, as far as
    /// it is known, with the measured rates in the evidence.
    NotFixed { reasons: Vec<String> },
    /// The fix found ran the verification without a failure.
    Fixed,
    /// The fix found failed or ran too few runs in the verification.
    Unverified { why: String },
    /// The user stopped it: `kept` holds the smallest set that passed its trials so far,
    /// not verified.
    Interrupted { during: String },
    /// An error ended the search.
    Aborted { why: String },
}

impl FenceVerdict {
    /// The verdict of a search that `stop` ended `during` a step.
    pub fn stopped(stop: Stop, during: &str) -> FenceVerdict {
        match stop {
            Stop::Interrupted => FenceVerdict::Interrupted {
                during: during.to_string(),
            },
            Stop::Aborted(why) => FenceVerdict::Aborted { why },
        }
    }
}

/// The kind of fix the search found (verified or not, the verdict says).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fix {
    /// `storageBarrier()` at the kept sites (fix kind 5a).
    Barriers,
    /// `variables` made atomic together, plus `storageBarrier()` at the kept sites if any
    /// (fix kind 5b). `fused`: where a read-modify-write became one atomic operation;
    /// `sites`: the candidate sites of the rewritten shader, which the kept ones are numbered
    /// among (a fused read-modify-write is one access where it was two).
    MakeAtomic {
        /// A 1-minimal set: with any one of them left plain, runs failed.
        variables: Vec<String>,
        fused: Vec<String>,
        sites: usize,
    },
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
pub fn quoted(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

impl Fix {
    /// What the fix relies on, given whether it keeps barriers.
    pub fn relies_on(&self, barriers: bool) -> String {
        let atomicity = match self {
            Fix::Barriers => return BARRIERS.to_string(),
            Fix::MakeAtomic {
                variables, fused, ..
            } if fused.is_empty() => format!(
                "specification: loads and stores of {} are atomic (no torn values; \
                 every invocation sees one modification order of each of its locations)",
                quoted(variables)
            ),
            Fix::MakeAtomic { variables, .. } => format!(
                "specification: each read-modify-write of {} is one atomic \
                 operation, indivisible for every invocation of every workgroup, so no update \
                 is lost",
                quoted(variables)
            ),
        };
        let relaxed = "WGSL atomics are relaxed and order no other memory access";
        if barriers {
            format!("{atomicity}; {relaxed}, so the order of other data rests on the kept barriers: {BARRIERS}")
        } else {
            format!(
                "{atomicity}; {relaxed}: any order of other data this fix needs rests on what \
                 the adapter did in the verification, not on the specification"
            )
        }
    }
}

/// Why a storage barrier fix holds, and what for.
pub(crate) const BARRIERS: &str = "platform: storageBarrier orders device memory on this adapter; \
    the WGSL specification gives barriers workgroup scope";

/// Which side of its access a kept barrier goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeptSide {
    Before,
    After,
}

impl std::fmt::Display for KeptSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeptSide::Before => "before",
            KeptSide::After => "after",
        })
    }
}

/// What a kept barrier orders: it publishes data through a flag, guards data read after a
/// flag, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum KeptRole {
    #[serde(rename = "release")]
    Release,
    #[serde(rename = "acquire")]
    Acquire,
    #[serde(rename = "release and acquire")]
    Both,
}

impl std::fmt::Display for KeptRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeptRole::Release => "release",
            KeptRole::Acquire => "acquire",
            KeptRole::Both => "release and acquire",
        })
    }
}

/// A site the search kept.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Kept {
    pub site: u32,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub side: KeptSide,
    pub function: String,
    /// The access's source line, trimmed.
    pub source: String,
    /// Whether its barrier releases (publishes data through a flag), acquires (guards data
    /// read after a flag), or both; none where it orders no pair the analysis can see.
    pub role: Option<KeptRole>,
    /// What it publishes or guards, at file:line:column.
    pub reason: Option<String>,
    /// Whether this adapter needed it (the search's trials kept it); a portable fix adds the
    /// other side of each pair for GPUs that cache or reorder loads.
    pub needed: bool,
}

/// One strategy's runs: of the application as is (confirming the failure), or of the fix
/// (verifying it).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct StrategyRuns {
    pub strategy: Strategy,
    pub iterations: u32,
    #[serde(flatten)]
    pub runs: Measured,
}

/// Variables make-atomic was tried on together, and what their trials saw.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct AtomicTrial {
    pub variables: Vec<String>,
    /// Why make-atomic cannot rewrite them (then it was not run).
    pub refused: Option<String>,
    /// Read-modify-writes made one atomic operation.
    pub fused: usize,
    /// Runs and whether a run failed, with a barrier at every site of the rewritten shader.
    pub all_sites: Option<TrialRuns>,
    /// The same without barriers, tried when all sites passed.
    pub alone: Option<TrialRuns>,
}

/// What the trials of one set saw (a set passes after two passing trials in a first round,
/// one in a later round).
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize)]
pub struct TrialRuns {
    pub runs: u64,
    pub passed: bool,
    /// The trials run (logs before this field: none said).
    #[serde(default)]
    pub trials: u64,
    /// The search's time bound ended a trial before its runs: nothing was seen against the
    /// set, and the search kept it.
    #[serde(default)]
    pub cut_short: bool,
}

/// One trial the search asked, in the order asked: the evidence each kept or dropped site
/// rests on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AskedTrial {
    /// The round (from 0) that asked it.
    pub round: u32,
    /// The site ids with a barrier.
    pub sites: Vec<u32>,
    /// The variables made atomic in it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub atomic: Vec<String>,
    pub runs: u64,
    /// Every run passed; false: a run failed, or (`cut_short`) the search ended the trial
    /// first.
    pub passed: bool,
    /// The search's time bound or a stop ended the trial before its runs, none failing: it
    /// says nothing against the set (logs before this field: none said).
    #[serde(default)]
    pub cut_short: bool,
}

/// A round of the search whose fix failed its verification.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Round {
    /// Runs per trial in that round.
    pub runs_per_trial: u64,
    /// The site ids that round kept.
    pub kept: Vec<u32>,
    /// Its verification's runs.
    pub verified: Vec<StrategyRuns>,
}

/// Where a search's time went, in seconds of wall time: what decides how long a fix takes
/// to find, step by step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct SearchTimes {
    /// Calibrating the stress and confirming the failure (`--budget`).
    pub confirm: f64,
    /// The trials of every round: a barrier at every site, make-atomic and delta debugging,
    /// each trial's program built (`--search-time` bounds it).
    pub trials: f64,
    /// Of `trials`, the runs themselves; the rest built programs and waited on the device.
    pub trial_runs: f64,
    /// Every round's verification of its fix (`--verify` each).
    pub verify: f64,
    /// Timing the fixes (`--cost`).
    pub cost: f64,
}

impl SearchTimes {
    /// From the first confirming run to the verdict: the time a fix took to find and verify,
    /// its cost aside.
    pub fn to_verdict(&self) -> f64 {
        self.confirm + self.trials + self.verify
    }
}

/// Everything the search measured.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct FenceOutcome {
    pub app: String,
    pub adapter: String,
    /// The strategy of the search's trials: the user's, else the one that failed most (the
    /// first tried when none failed).
    pub strategy: Option<Strategy>,
    pub iterations: Option<u32>,
    pub master_seed: String,
    #[serde(flatten)]
    pub verdict: FenceVerdict,
    /// Runs without added barriers, under each strategy tried (the user's, else systematic,
    /// then the others when systematic showed no failure).
    pub before: Vec<StrategyRuns>,
    /// Candidate sites of the last round, and runs with a barrier at every one.
    pub sites: Option<usize>,
    pub all_sites: Option<Measured>,
    /// Make-atomic, tried when all sites still failed.
    pub atomic: Vec<AtomicTrial>,
    /// The search's trials and their runs, over every round.
    pub trials: u64,
    pub search_runs: u64,
    /// Each trial of delta debugging and make-atomic, in order (logs before this field:
    /// none said; the trial of every site is `all_sites`).
    #[serde(default)]
    pub asked: Vec<AskedTrial>,
    /// The search reached its time bound (`--search-time`) before its trials were done:
    /// the set it kept passed its trials but may not be the smallest.
    pub search_out_of_time: bool,
    /// Runs per trial in the last round: a failure at the rate it was sized for shows with
    /// 99% confidence.
    pub runs_per_trial: Option<u64>,
    pub fix: Option<Fix>,
    pub kept: Vec<Kept>,
    /// Runs of the fix under each strategy that showed the failure.
    pub verified: Vec<StrategyRuns>,
    /// Earlier rounds of the search whose fix failed its verification: each next round's
    /// trials were sized for the lower failure rate that fix left.
    pub refined: Vec<Round>,
    /// What the fix relies on.
    pub relies_on: Option<String>,
    /// Which fix `kept` is: the portable one (by default) or the adapter-minimal one.
    pub choice: Option<Choice>,
    /// The adapter-minimal set: what the trials kept on this adapter.
    pub minimal: Vec<u32>,
    /// Pairs a kept barrier belongs to whose other side has no legal site.
    pub missing: Vec<String>,
    /// The suggested fix as an edit of each file it changes (or naga's rendering, and why).
    pub patches: Vec<FilePatch>,
    /// Files whose patch cannot be had, and why (the fix still ran, as naga writes it).
    pub unexpressed: Vec<String>,
    /// The time per run of the application alone, as is and with each fix (a verified fix
    /// only), or why it could not be measured.
    pub cost: Vec<Cost>,
    pub cost_error: Option<String>,
    /// What a verification without a failure bounds: the failure rate left, 95% confidence.
    pub bound: Option<Bound>,
    /// Where the time went (logs before this field: none said).
    #[serde(default)]
    pub times: SearchTimes,
    /// The portable fix's placements the cost step timed, where a barrier it adds could go
    /// at several sites (none: one placement, or none timed).
    #[serde(default)]
    pub placements: Vec<Placement>,
}

/// One placement of the portable fix: the same pairs fenced, an added barrier at another
/// site of its window.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Placement {
    /// Its barriers (site ids).
    pub sites: Vec<u32>,
    /// Its entry in the outcome's `cost`.
    pub of: String,
    /// The analysis's own placement (the latest site of each window).
    pub first: bool,
    /// The one suggested.
    pub chosen: bool,
    /// The runs under stress that checked it before it was suggested in place of the
    /// analysis's own (cheaper, not verified at the verification's length).
    pub checked: Option<Measured>,
}

impl FenceOutcome {
    /// The patched files, for `-o` and `--fix`: a verified fix only.
    pub fn patched(&self) -> &[FilePatch] {
        match self.verdict {
            FenceVerdict::Fixed => &self.patches,
            _ => &[],
        }
    }
}

/// The failure rate a clean verification bounds: with no failure in `runs` runs, the rate is
/// below `upper` with 95% confidence (the least p with (1 - p)^runs <= 0.05).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Bound {
    pub runs: u64,
    pub upper: f64,
}

impl Bound {
    /// The bound of `runs` runs without a failure; none without runs.
    pub fn of(runs: u64) -> Option<Bound> {
        (runs > 0).then(|| Bound {
            runs,
            upper: 1.0 - 0.05f64.powf(1.0 / runs as f64),
        })
    }

    /// "fewer than 1 run in 44,000 fails": one in this many runs, rounded down.
    pub fn one_in(&self) -> u64 {
        (1.0 / self.upper).floor() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::Bound;

    #[test]
    fn a_clean_verification_bounds_the_rate_by_the_rule_of_three() {
        let b = Bound::of(44_000).unwrap();
        // 1 - 0.05^(1/n) is close to 3/n.
        assert!((b.upper * 44_000.0 - 3.0).abs() < 0.01, "{}", b.upper);
        assert_eq!(b.one_in(), 14_688);
        assert!(((1.0 - b.upper).powi(44_000) - 0.05).abs() < 1e-9);
        assert_eq!(Bound::of(0), None);
        assert_eq!(Bound::of(1).unwrap().one_in(), 1);
    }
}
