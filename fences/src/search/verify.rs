//! Step (d): the fix runs for the verification's time, shared by the strategies that showed
//! the failure, each stopping at its first failure; it is a fix only when no run failed and
//! each strategy ran at least a trial's runs.

use super::config::Context;
use super::confirm::exposing;
use crate::error::Result;
use crate::lab::Lab;
use crate::lab::Subject;
use std::time::Duration;
use wgstress_model::event::SearchEvent;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::{FenceVerdict, StrategyRuns};
use wgstress_model::plural::count;
use wgstress_model::run::run_config::Budget;
use wgstress_model::run::stop::Stop;
use wgstress_model::stress::params::run_seed;
use wgstress_model::stress::strategy::Strategy;

/// The verification's runs of `fix` under each exposing strategy, up to the first that does
/// not verify it, and the verdict.
pub(crate) fn verify<L: Lab + ?Sized>(
    cx: &mut Context<L>,
    subject: Subject,
    sites: usize,
    runs_needed: u64,
) -> Result<(Vec<StrategyRuns>, FenceVerdict), L::Error> {
    let exposing = exposing(cx.tried);
    let share = share(cx);
    let mut verified = Vec::new();
    for (i, c) in exposing.iter().enumerate() {
        let strategy = c.config.settings.strategy;
        cx.report(SearchEvent::Verifying {
            sites,
            time: share,
            strategy,
        })?;
        let budget = Budget {
            runs: None,
            time: Some(share),
            failures: Some(1),
        };
        let seed = run_seed(c.config.master_seed, 3 + 16 * i as u64);
        let runs = Measured::or_stopped(cx.lab.measure(subject, &c.config, &budget, seed));
        let verdict = verdict(&runs, runs_needed, strategy);
        verified.push(StrategyRuns {
            strategy,
            iterations: c.config.settings.iterations,
            runs,
        });
        if verdict != FenceVerdict::Fixed {
            return Ok((verified, verdict));
        }
    }
    Ok((verified, FenceVerdict::Fixed))
}

/// The verification's time under each strategy that showed the failure.
pub(crate) fn share<L: Lab + ?Sized>(cx: &Context<L>) -> Duration {
    cx.config.verify / exposing(cx.tried).len().max(1) as u32
}

/// A fix only when the verification ran at least a trial's runs, all passing.
fn verdict(verified: &Measured, runs_needed: u64, strategy: Strategy) -> FenceVerdict {
    match &verified.stopped {
        Some(Stop::Interrupted) => FenceVerdict::Interrupted {
            during: "the verification".into(),
        },
        Some(Stop::Aborted(why)) => FenceVerdict::Unverified { why: why.clone() },
        None if verified.failures > 0 => FenceVerdict::Unverified {
            why: format!(
                "{} of {} failed with the fix under {}",
                verified.failures,
                count(verified.runs, "run", "runs"),
                strategy.stress()
            ),
        },
        None if verified.runs < runs_needed => FenceVerdict::Unverified {
            why: format!(
                "only {} with {} in the verification time; {runs_needed} show the failure with \
                 99% confidence",
                count(verified.runs, "run", "runs"),
                strategy.stress()
            ),
        },
        None => FenceVerdict::Fixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(runs: u64, failures: u64, stopped: Option<Stop>) -> Measured {
        Measured {
            runs,
            failures,
            watchdog: 0,
            seconds: 1.0,
            stopped,
        }
    }

    #[test]
    fn only_enough_passing_runs_verify_a_fix() {
        let s = Strategy::Systematic;
        assert_eq!(verdict(&runs(50, 0, None), 44, s), FenceVerdict::Fixed);
        assert_eq!(verdict(&runs(44, 0, None), 44, s), FenceVerdict::Fixed);
        for unverified in [
            verdict(&runs(50, 1, None), 44, s),
            verdict(&runs(43, 0, None), 44, s),
            verdict(&runs(50, 0, Some(Stop::Aborted("hang".into()))), 44, s),
        ] {
            assert!(
                matches!(unverified, FenceVerdict::Unverified { .. }),
                "{unverified:?}"
            );
        }
        let interrupted = verdict(&runs(50, 0, Some(Stop::Interrupted)), 44, s);
        assert!(matches!(interrupted, FenceVerdict::Interrupted { .. }));
    }
}
