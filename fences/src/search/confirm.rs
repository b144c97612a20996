//! Step (a) of the search: confirm the failure under the stress that shows it. The user's
//! strategy gets the whole budget; without one, systematic stress gets half, and only if it
//! shows no failure do the other strategies share the other half (a short compare). The
//! search then runs under the strategy that failed most, and the fix is verified under every
//! strategy that failed.

use super::config::{report, FenceSearchConfig};
use crate::error::Result;
use crate::lab::{Confirmed, Lab, Subject};
use std::sync::atomic::Ordering;
use std::time::Duration;
use wgstress_model::event::SearchEvent;
use wgstress_model::fences::measured::Measured;
use wgstress_model::plural::count;
use wgstress_model::reporter::Reporter;
use wgstress_model::run::loop_limit::LoopLimit;
use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::stress::params::run_seed;
use wgstress_model::stress::strategy::Strategy;

/// Failures after which a strategy's confirming runs stop: the rate is then known to about
/// ±36% (95%), which sizes trials well enough (a rate 36% too high still shows a failure in
/// 96.6% of trials, and a pass takes two); more runs would only spend the budget, and where
/// stressed runs are slow (tens a second) 100 failures take the whole half budget.
pub(crate) const RATE_FAILURES: u64 = 30;

/// The strategies to try, each with its share of the budget's time, in order.
pub(crate) fn schedule(given: Option<Strategy>, budget: Duration) -> Vec<(Strategy, Duration)> {
    match given {
        Some(strategy) => vec![(strategy, budget)],
        None => {
            let others = Strategy::FALLBACKS;
            let mut order = vec![(Strategy::Systematic, budget / 2)];
            order.extend(others.map(|s| (s, budget / 2 / others.len() as u32)));
            order
        }
    }
}

/// Runs the application under each strategy of the schedule until one fails (the first
/// failing ends the compare at once), or an error or Ctrl-C ends it.
pub(crate) fn confirm<L: Lab + ?Sized>(
    config: &FenceSearchConfig,
    lab: &mut L,
    reporter: &mut dyn Reporter,
) -> Result<Vec<Confirmed>, L::Error> {
    let mut tried: Vec<Confirmed> = Vec::new();
    for (i, (strategy, share)) in schedule(config.strategy, config.budget)
        .into_iter()
        .enumerate()
    {
        let done = tried
            .iter()
            .any(|c| c.measured.failures > 0 || c.measured.stopped.is_some());
        if done || config.stop.load(Ordering::SeqCst) {
            break;
        }
        if i == 1 {
            report::<L>(reporter, SearchEvent::TryingOthers)?;
        }
        let budget = Budget {
            runs: None,
            time: Some(share),
            failures: Some(RATE_FAILURES),
        };
        let (settings, calibration) = lab.settings(strategy, &budget)?;
        if let Some(c) = &calibration {
            report::<L>(
                reporter,
                SearchEvent::Calibrated {
                    settings: &settings,
                    calibration: c,
                },
            )?;
        }
        let spent = calibration
            .as_ref()
            .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds));
        let run = RunConfig {
            settings,
            budget: budget.less(spent),
            master_seed: config.master_seed,
            replay: None,
            adaptive: config.adaptive,
            calibration,
            stop: config.stop.clone(),
        };
        report::<L>(
            reporter,
            SearchEvent::Confirming {
                strategy,
                time: run.budget.time.unwrap_or_default(),
            },
        )?;
        let seed = run_seed(config.master_seed, 16 * i as u64);
        let measured = Measured::or_stopped(lab.measure(Subject::AsIs, &run, &run.budget, seed));
        tried.push(Confirmed {
            config: run,
            measured,
        });
    }
    Ok(tried)
}

/// The strategy the search runs under: the one that failed most (the first of equals).
pub(crate) fn chosen(tried: &[Confirmed]) -> Option<&Confirmed> {
    let measured: Vec<&Measured> = tried.iter().map(|c| &c.measured).collect();
    most_failing(&measured).map(|i| &tried[i])
}

/// The index of the highest failure rate among runs with a failure (the first of equals).
fn most_failing(measured: &[&Measured]) -> Option<usize> {
    (0..measured.len())
        .filter(|&i| measured[i].failures > 0)
        .fold(None, |best: Option<usize>, i| match best {
            Some(b) if measured[b].rate() >= measured[i].rate() => Some(b),
            _ => Some(i),
        })
}

/// Why there is nothing to search for, when every failure was a watchdog stop and passing
/// runs looped within 2x of the limit: long but legitimate waits cut by the watchdog (on a
/// busy CPU, llvmpipe's spin-waits passed at 27,590 polls against its fixed 30,000). A lost
/// wake-up also ends at the watchdog, but its passing runs wait far below a learned limit.
pub(crate) fn watchdog_stops(tried: &[Confirmed], limit: Option<&LoopLimit>) -> Option<String> {
    let (runs, failures, stops) = tried.iter().fold((0, 0, 0), |(r, f, w), c| {
        let m = &c.measured;
        (r + m.runs, f + m.failures, w + m.watchdog)
    });
    let limit = limit.filter(|l| l.near_limit())?;
    if failures == 0 || stops < failures {
        return None;
    }
    Some(format!(
        "{failures} of {} failed, every one a watchdog stop, while passing runs looped up to {} \
         times against the limit of {}: the waits look legitimate but longer than the \
         limit allows, which no barrier or atomic shortens; run again with a higher \
         --watchdog-limit",
        count(runs, "run", "runs"),
        limit.seen.unwrap_or_default(),
        limit.limit()
    ))
}

/// The strategies whose runs failed: the verification runs under each.
pub(crate) fn exposing(tried: &[Confirmed]) -> Vec<&Confirmed> {
    tried.iter().filter(|c| c.measured.failures > 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_strategy_gets_the_budget_else_systematic_half_and_the_others_the_rest() {
        let minute = Duration::from_secs(60);
        assert_eq!(
            schedule(Some(Strategy::Cache), minute),
            vec![(Strategy::Cache, minute)]
        );
        let order = schedule(None, minute);
        let strategies: Vec<Strategy> = order.iter().map(|(s, _)| *s).collect();
        assert_eq!(
            strategies,
            [
                Strategy::Systematic,
                Strategy::Cache,
                Strategy::Random,
                Strategy::None
            ]
        );
        assert_eq!(order[0].1, Duration::from_secs(30));
        assert_eq!(order[1].1, Duration::from_secs(10));
        let total: Duration = order.iter().map(|(_, t)| *t).sum();
        assert!(total <= minute);
    }

    #[test]
    fn watchdog_stops_near_the_limit_are_not_searched() {
        let confirmed = |failures, watchdog| Confirmed {
            config: crate::search::tests::run_config(),
            measured: Measured {
                runs: 100,
                failures,
                watchdog,
                ..Measured::default()
            },
        };
        let mut near = LoopLimit::fixed(1000);
        near.observe_pass(600);
        let why = watchdog_stops(&[confirmed(5, 5)], Some(&near)).unwrap();
        assert!(why.contains("--watchdog-limit"), "{why}");
        // A lost wake-up: passing runs wait far below the limit; search it.
        let mut far = LoopLimit::fixed(1000);
        far.observe_pass(20);
        assert!(watchdog_stops(&[confirmed(5, 5)], Some(&far)).is_none());
        // Some failure that is not a watchdog stop; no failure at all; no watchdog.
        assert!(watchdog_stops(&[confirmed(5, 4)], Some(&near)).is_none());
        assert!(watchdog_stops(&[confirmed(0, 0)], Some(&near)).is_none());
        assert!(watchdog_stops(&[confirmed(5, 5)], None).is_none());
    }

    #[test]
    fn the_search_takes_the_strategy_that_failed_most() {
        let m = |runs, failures| Measured {
            runs,
            failures,
            ..Measured::default()
        };
        let (none, some, more, equal) = (m(100, 0), m(100, 3), m(10, 5), m(20, 10));
        assert_eq!(most_failing(&[&none, &some, &more]), Some(2));
        assert_eq!(most_failing(&[&more, &equal]), Some(0));
        assert_eq!(most_failing(&[&none, &m(0, 0)]), None);
        assert_eq!(most_failing(&[]), None);
    }
}
