//! Rounds of the search. Trials are sized to catch the failure at the rate measured
//! without fences, but a partial fix lowers that rate, and a failure it leaves can pass
//! every trial sized for the rate before it and show only in the longer verification (as
//! sdk-red's first fix did; bench/results/fences-searches.md). A fix that fails its verification
//! therefore starts another round with trials sized for the rate the fix left (a quarter of the old
//! rate at most), then for the rate its own failing sets that hold the fix show (pool.rs), keeping
//! that fix while it looks for what the fix lacks (shrink.rs). A make-atomic fix that fails its
//! verification does the same: where a lock loses updates in every run (the poll example), trials
//! of one run keep the variable that loses them alone, and a stale flag the lock does not order
//! fails rarely in the verification; the next round searches the variables again with trials sized
//! for that rate.

use super::config::Context;
use super::round::{round, End, EverySite, Learned, RoundResult};
use crate::error::Result;
use crate::lab::Confirmed;
use crate::lab::Lab;
use crate::pool::Pool;
use crate::trial::FailureRate;
use crate::with_fix::Seen;
use wgstress_model::event::SearchEvent;
use wgstress_model::fences::outcome::{FenceVerdict, StrategyRuns};

/// Rounds at most: each later round's trials are sized for at least four times lower a rate
/// (the fifth for 256 times below the first): a search whose first rounds each keep a set
/// that only lowers the rate needs more than three.
pub(crate) const ROUNDS: u32 = 5;

/// The rounds of a search under `chosen` (the strategy that failed most), the last one's
/// fix the search's.
pub(crate) fn run<L: Lab + ?Sized>(
    cx: &mut Context<L>,
    chosen: &Confirmed,
) -> Result<Vec<RoundResult>, L::Error> {
    let mut rate = FailureRate::measured(chosen.measured.failures, chosen.measured.runs)
        .expect("the chosen strategy failed");
    let mut rounds: Vec<RoundResult> = Vec::new();
    let mut pool: Option<Pool> = None;
    loop {
        let learned = Learned {
            pool: pool.take(),
            ..learned(&rounds)
        };
        let done = round(cx, &chosen.config, rate, &learned, rounds.len() as u64)?;
        let lower = match &done.end {
            End::Found(found) => lower_rate(&found.verified, &found.verdict, rate),
            End::Over(_) => None,
        };
        rounds.push(done);
        let last = &rounds[rounds.len() - 1];
        pool = match (&last.end, lower) {
            (End::Found(found), Some(_))
                if found.fix.atomic.is_empty() && !found.fix.sites.is_empty() =>
            {
                let (failures, runs) = verification_runs(&found.verified);
                FailureRate::new(rate.get() / 4.0)
                    .and_then(|ceiling| Pool::new(&found.fix.sites, failures, runs, ceiling))
                    .map(|pool| pool.counting(&barrier_trials(&rounds)))
            }
            _ => None,
        };
        let time_left = std::time::Instant::now() < cx.deadline;
        match lower.filter(|_| rounds.len() < ROUNDS as usize && time_left) {
            Some(lower) => {
                let kept = rounds.last().map_or(0, |r| match &r.end {
                    End::Found(found) => found.fix.sites.len(),
                    End::Over(_) => 0,
                });
                cx.report(SearchEvent::Refining {
                    kept,
                    rate: lower.get(),
                    pooled: pool.is_some(),
                })?;
                rate = lower;
            }
            None => return Ok(rounds),
        }
    }
}

/// What the rounds so far learned: the last one's fix failed its verification (a next round
/// starts only then).
fn learned(rounds: &[RoundResult]) -> Learned<'_> {
    let failed = match rounds.last().map(|r| &r.end) {
        Some(End::Found(found)) => Some(&found.fix),
        _ => None,
    };
    // A make-atomic fix's sites are those of its rewritten shader, not the barriers'.
    let barriers = failed.filter(|f| f.atomic.is_empty() && !f.sites.is_empty());
    // A first round whose guess passed ran no trial of every site, but a site that passed
    // alone is a set that every site holds.
    let every_site =
        rounds
            .first()
            .filter(|_| barriers.is_some())
            .and_then(|r| match &r.all_sites {
                Some(all) if all.failures == 0 => Some(EverySite::Passed(all)),
                Some(_) => None,
                None => Some(EverySite::Held),
            });
    let together = rounds
        .iter()
        .flat_map(|r| &r.atomic)
        .find(|t| t.refused.is_none() && t.all_sites.is_some())
        .filter(|t| t.all_sites.is_some_and(|r| r.passed && !r.cut_short))
        .map(|t| t.variables.as_slice());
    let seen = match barriers {
        Some(_) => barrier_trials(rounds),
        None => Vec::new(),
    };
    Learned {
        failed,
        every_site,
        together,
        seen,
        pool: None,
    }
}

/// Every trial of barriers alone the rounds ran to a failing run or a pass. What failed a
/// run is failing at any trial size; the sites of a make-atomic trial are those of its
/// rewritten shader; a trial cut short saw nothing.
fn barrier_trials(rounds: &[RoundResult]) -> Vec<Seen<'_>> {
    rounds
        .iter()
        .flat_map(|r| &r.asked)
        .filter(|a| a.atomic.is_empty() && (a.run_failed || a.trial.passed()))
        .map(|a| Seen {
            sites: &a.sites,
            runs: a.trial.runs(),
            failed: a.run_failed,
        })
        .collect()
}

/// The failure rate the next round's trials are sized for, when the fix found failed its
/// verification (not an error, an interruption or too few runs).
pub(crate) fn lower_rate(
    verified: &[StrategyRuns],
    verdict: &FenceVerdict,
    rate: FailureRate,
) -> Option<FailureRate> {
    let failed_verification = matches!(verdict, FenceVerdict::Unverified { .. })
        && verified.iter().all(|v| v.runs.stopped.is_none())
        && verified.iter().any(|v| v.runs.failures > 0);
    if !failed_verification {
        return None;
    }
    let (failures, runs) = verification_runs(verified);
    let left = FailureRate::measured(failures, runs)?.get();
    FailureRate::new(left.min(rate.get() / 4.0))
}

/// The failures and runs of a verification, over its strategies.
fn verification_runs(verified: &[StrategyRuns]) -> (u64, u64) {
    verified
        .iter()
        .fold((0, 0), |(f, r), v| (f + v.runs.failures, r + v.runs.runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgstress_model::fences::measured::Measured;
    use wgstress_model::fences::outcome::StrategyRuns;
    use wgstress_model::run::stop::Stop;
    use wgstress_model::stress::strategy::Strategy;

    /// A fix whose verification ran `verified` (runs, failures, stop), unverified.
    fn lower(verified: &[(u64, u64, Option<Stop>)], rate: FailureRate) -> Option<FailureRate> {
        let verified: Vec<StrategyRuns> = verified
            .iter()
            .map(|(runs, failures, stopped)| StrategyRuns {
                strategy: Strategy::Systematic,
                iterations: 8,
                runs: Measured {
                    runs: *runs,
                    failures: *failures,
                    watchdog: 0,
                    seconds: 1.0,
                    stopped: stopped.clone(),
                },
            })
            .collect();
        let verdict = FenceVerdict::Unverified { why: "w".into() };
        lower_rate(&verified, &verdict, rate)
    }

    fn rate(p: f64) -> FailureRate {
        FailureRate::new(p).unwrap()
    }

    #[test]
    fn a_failed_verification_sizes_the_next_trials_for_the_rate_left() {
        // As sdk-red's first search: 2.9%, then 1 failure in 201 runs with the fix.
        let left = lower(&[(201, 1, None)], rate(0.029));
        assert_eq!(left.map(FailureRate::get), Some(1.0 / 201.0));
        assert!(left.unwrap().runs_needed() > rate(0.029).runs_needed() * 5);
        // A fix that failed often still takes trials four times the size.
        let often = lower(&[(4, 2, None)], rate(0.8));
        assert_eq!(often.map(FailureRate::get), Some(0.2));
    }

    #[test]
    fn no_new_round_without_a_failed_verification() {
        let hang = Some(Stop::Aborted("hang".into()));
        for verified in [vec![(500, 0, None)], vec![(10, 1, hang)], vec![]] {
            assert!(lower(&verified, rate(0.03)).is_none(), "{verified:?}");
        }
    }

    #[test]
    fn a_fix_that_failed_one_run_in_many_sizes_trials_for_that_rate() {
        // As the poll example's totals made atomic: 1 failure in 328 runs.
        let left = lower(&[(328, 1, None)], rate(1.0));
        assert_eq!(left.map(FailureRate::get), Some(1.0 / 328.0));
    }
}
