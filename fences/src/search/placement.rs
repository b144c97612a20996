//! Which placement of the portable fix is suggested: where a barrier the portable completion
//! adds could go at several sites of its window, the cost step times each placement
//! (`Suggestion::placements`), and the cheapest beyond the spread of the analysis's own is
//! suggested once it passes a trial's runs under stress. Its check is a trial's length, not
//! the verification's: both placements hold the barriers this adapter needed.

use super::round::Found;
use crate::lab::{Lab, Subject};
use std::time::Duration;
use wgstress_model::fences::cost::Cost;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::Placement;
use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::stress::params::run_seed;

/// How a placement cheaper than the analysis's own is checked before it is suggested: runs
/// under the strategy that failed most, as many as a trial.
pub(super) struct Check {
    pub config: RunConfig,
    pub runs: u64,
}

/// The placements timed, from `costs` (the suggested fix's at 1, the other placements' right
/// after it), the cheapest suggested in `found` once its check passes (and named so in
/// `costs`); none where the fix has one placement. The check runs for `time` at most.
pub(super) fn choose<L: Lab + ?Sized>(
    costs: &mut [Cost],
    found: &mut Found,
    lab: &mut L,
    time: Duration,
    check: &Check,
) -> Vec<Placement> {
    let count = found.suggestion.placements.len();
    if count == 0 {
        return Vec::new();
    }
    let timed = &costs[1..2 + count];
    // Cheaper beyond the spread: three quarters of its batches below the first's median.
    let cheapest = (1..timed.len())
        .filter(|&i| timed[i].high < timed[0].seconds_per_run)
        .min_by(|&a, &b| {
            timed[a]
                .seconds_per_run
                .total_cmp(&timed[b].seconds_per_run)
        });
    let checked = cheapest.map(|i| {
        let fix = &found.suggestion.placements[i - 1].fix;
        let budget = Budget {
            runs: Some(check.runs),
            time: Some(time),
            failures: Some(1),
        };
        let seed = run_seed(check.config.master_seed, 5);
        let subject = Subject::Patched(&fix.fix, &fix.app);
        let runs = lab.measure(subject, &check.config, &budget, seed);
        (i, Measured::or_stopped(runs))
    });
    let passed = checked
        .as_ref()
        .filter(|(_, m)| m.stopped.is_none() && m.failures == 0 && m.runs >= check.runs)
        .map(|(i, _)| *i);
    let mut placements: Vec<Placement> = std::iter::once(&found.suggestion.suggested)
        .chain(found.suggestion.placements.iter().map(|p| &p.fix))
        .enumerate()
        .map(|(i, fix)| Placement {
            sites: fix.fix.sites.iter().map(|&s| s as u32).collect(),
            of: costs[1 + i].of.clone(),
            first: i == 0,
            chosen: i == passed.unwrap_or(0),
            checked: checked
                .as_ref()
                .filter(|(c, _)| *c == i)
                .map(|(_, m)| m.clone()),
        })
        .collect();
    if let Some(i) = passed {
        found.suggestion.choose(i - 1);
        // The suggested fix is the one called so; the analysis's own is a placement.
        let first = placement_label(&found.suggestion.placements[i - 1].fix.fix.sites);
        costs[1 + i].of = costs[1].of.clone();
        costs[1].of = first.clone();
        placements[i].of = costs[1 + i].of.clone();
        placements[0].of = first;
    }
    placements
}

/// A placement's name in the costs: its sites.
pub(super) fn placement_label(sites: &[usize]) -> String {
    let sites: Vec<String> = sites.iter().map(ToString::to_string).collect();
    format!("placement at sites {}", sites.join(", "))
}
