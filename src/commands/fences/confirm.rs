//! Step (a) of the search: confirm the failure under the stress that shows it. The user's
//! strategy gets the whole budget; without one, systematic stress gets half, and only if it
//! shows no failure do cache, random and no stress share the other half (a short compare).
//! The search then runs under the strategy that failed most, and the fix is verified under
//! every strategy that failed.

use crate::notes::Notes;
use crate::plan::SessionPlan;
use anyhow::Result;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wgstress_runtime::fences::gpu::{measure, Measured};
use wgstress_runtime::gpu::engine::Engine;
use wgstress_runtime::run::runner::{Budget, RunConfig};
use wgstress_runtime::stress::strategy::{run_seed, Strategy, StressShape};

/// One strategy's runs of the application as is, and the configuration they ran under.
pub struct Confirmed {
    pub config: RunConfig,
    pub measured: Measured,
}

/// The strategies to try, each with its share of the budget's time, in order.
pub fn schedule(given: Option<Strategy>, budget: Duration) -> Vec<(Strategy, Duration)> {
    match given {
        Some(strategy) => vec![(strategy, budget)],
        None => {
            let others = [Strategy::Cache, Strategy::Random, Strategy::None];
            let mut order = vec![(Strategy::Systematic, budget / 2)];
            order.extend(others.map(|s| (s, budget / 2 / others.len() as u32)));
            order
        }
    }
}

/// Runs the application under each strategy of the schedule until one that is not the
/// first fails (the first failing ends the compare at once), or an error or Ctrl-C ends it.
pub fn confirm(
    session: &SessionPlan,
    given: Option<Strategy>,
    engine: &mut Engine,
    shape: &StressShape,
    stop: &Arc<AtomicBool>,
    notes: Notes,
) -> Result<Vec<Confirmed>> {
    let total = session.budget.time.unwrap_or_default();
    let mut tried: Vec<Confirmed> = Vec::new();
    for (i, (strategy, share)) in schedule(given, total).into_iter().enumerate() {
        let done = tried
            .iter()
            .any(|c| c.measured.failures > 0 || c.measured.aborted.is_some());
        if done || stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        if i == 1 {
            notes.note(
                "no failure under systematic stress: trying cache, random and no stress in the \
                 other half of the budget",
            );
        }
        let budget = Budget {
            runs: None,
            time: Some(share),
            failures: None,
        };
        let (settings, calibration) = session
            .stress
            .settings(engine, strategy, true, shape, &budget)?;
        if let Some(c) = &calibration {
            super::super::note_measured(&settings, c, session, notes);
        }
        let spent = calibration
            .as_ref()
            .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds));
        let config = RunConfig {
            settings,
            budget: budget.less(spent),
            master_seed: session.master_seed,
            replay: None,
            adaptive: session.stress.adaptive(),
            calibration,
            stop: stop.clone(),
        };
        notes.note(&format!(
            "confirming the failure: {:.0} s of {strategy} stress",
            config.budget.time.unwrap_or_default().as_secs_f64(),
        ));
        let seed = run_seed(session.master_seed, 16 * i as u64);
        let measured = measure(engine, &config, &config.budget, seed)?;
        tried.push(Confirmed { config, measured });
    }
    Ok(tried)
}

/// The strategy the search runs under: the one that failed most (the first of equals).
pub fn chosen(tried: &[Confirmed]) -> Option<&Confirmed> {
    let measured: Vec<&Measured> = tried.iter().map(|c| &c.measured).collect();
    most_failing(&measured).map(|i| &tried[i])
}

/// The index of the highest failure rate among runs with a failure (the first of equals).
fn most_failing(measured: &[&Measured]) -> Option<usize> {
    let rate = |m: &Measured| m.failures as f64 / m.runs.max(1) as f64;
    (0..measured.len())
        .filter(|&i| measured[i].failures > 0)
        .fold(None, |best: Option<usize>, i| match best {
            Some(b) if rate(measured[b]) >= rate(measured[i]) => Some(b),
            _ => Some(i),
        })
}

/// The strategies whose runs failed: the verification runs under each.
pub fn exposing(tried: &[Confirmed]) -> Vec<&Confirmed> {
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
