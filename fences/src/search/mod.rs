//! `wgstress fences`: the search for the fix that stops an application's failures.
//! (a) Confirm the failure and measure its rate (confirm.rs); (b) a barrier at every
//! candidate site must stop it, else make-atomic is tried (atomic.rs), unless a first round's
//! first sites, asked alone first, pass (a fix of one site); (c) shrink the set of barriers
//! with delta debugging; (d) verify the fix under every strategy that failed
//! (verify.rs); (b) to (d) are a round (round.rs), and a fix that fails its verification
//! starts another (rounds.rs). Everything the search asks of a device goes through a `Lab`,
//! so the whole search runs on a simulated GPU in the tests.

mod atomic;
mod config;
mod confirm;
mod placement;
mod round;
mod rounds;
mod step;
mod verify;

#[cfg(test)]
pub(crate) mod tests;

use super::cost;
use super::lab::{Confirmed, Lab};
use super::lab::{FixSet, Subject};
use super::shrink::first_guesses;
use super::source::AppSource;
use super::trials::Asked;
use crate::error::Result;
use config::Context;
pub use config::FenceSearchConfig;
use placement::{placement_label, Check};
use round::{End, Found, RoundResult};
use std::time::Instant;
use wgstress_model::fences::cost::Cost;
use wgstress_model::fences::outcome::{
    AskedTrial, Bound, FenceOutcome, FenceVerdict, Placement, Round, SearchTimes, StrategyRuns,
};
use wgstress_model::fences::patch::Choice;
use wgstress_model::reporter::Reporter;
use wgstress_model::run::tally::seed_text;
use wgstress_model::stress::strategy::Strategy;

/// Searches for the fix of `shader`'s application, running on `lab`.
pub fn search<L: Lab + ?Sized>(
    config: &FenceSearchConfig,
    shader: &AppSource,
    lab: &mut L,
    reporter: &mut dyn Reporter,
) -> Result<FenceOutcome, L::Error> {
    let started = Instant::now();
    // A first round's first trials are its guesses, then a barrier at every site: built
    // while the failure is confirmed.
    let unfenced = shader.tables(&[])?;
    let every_site: Vec<usize> = (0..unfenced.len()).collect();
    let mut first: Vec<FixSet> = first_guesses(unfenced.order())
        .iter()
        .map(|sites| FixSet::barriers(sites))
        .collect();
    first.push(FixSet::barriers(&every_site));
    lab.prepare(&first);
    let tried = confirm::confirm(config, lab, reporter)?;
    let confirmed = started.elapsed().as_secs_f64();
    let (app, adapter) = lab.names();
    let shown = confirm::chosen(&tried).or(tried.first());
    let before: Vec<StrategyRuns> = tried.iter().map(strategy_runs).collect();
    let stopped = tried.last().and_then(|c| c.measured.stopped.clone());
    let watchdog = confirm::watchdog_stops(&tried, lab.loop_limit());
    let (mut rounds, verdict) = match (stopped, watchdog, confirm::chosen(&tried)) {
        (Some(stop), _, _) => (
            Vec::new(),
            FenceVerdict::stopped(stop, "confirming the failure"),
        ),
        (None, Some(why), _) => (Vec::new(), FenceVerdict::WatchdogStops { why }),
        (None, None, None) => (Vec::new(), FenceVerdict::DoesNotFail),
        (None, None, Some(chosen)) => {
            let chosen = chosen.clone();
            let mut cx = Context {
                config,
                shader,
                lab,
                reporter,
                tried: &tried,
                deadline: std::time::Instant::now() + config.search,
                pace: chosen.measured.seconds / chosen.measured.runs.max(1) as f64,
            };
            let rounds = rounds::run(&mut cx, &chosen)?;
            let verdict = match &rounds.last().expect("one round at least").end {
                End::Over(verdict) => verdict.clone(),
                End::Found(found) => found.verdict.clone(),
            };
            (rounds, verdict)
        }
    };
    let costing = Instant::now();
    let check = confirm::chosen(&tried).map(|c| c.config.clone());
    let costs = match (rounds.last_mut(), check) {
        (Some(round), Some(check)) if verdict == FenceVerdict::Fixed => match &mut round.end {
            End::Found(found) => {
                let check = Check {
                    config: check,
                    runs: round.pass_runs,
                };
                Some(cost(config, shader, lab, found, &check))
            }
            End::Over(_) => None,
        },
        _ => None,
    };
    // Folded from zero: a sum of no f64s is -0.0.
    let total =
        |each: &dyn Fn(&RoundResult) -> f64| rounds.iter().map(each).fold(0.0, |a, b| a + b);
    let times = SearchTimes {
        confirm: confirmed,
        trials: total(&|r| r.trial_seconds),
        trial_runs: total(&|r| r.run_seconds),
        verify: total(&|r| match &r.end {
            End::Found(found) => found.verify_seconds,
            End::Over(_) => 0.0,
        }),
        cost: costs
            .as_ref()
            .map_or(0.0, |_| costing.elapsed().as_secs_f64()),
    };
    Ok(assemble(
        Head {
            app,
            adapter,
            strategy: shown.map(|c| c.config.settings.strategy),
            iterations: shown.map(|c| c.config.settings.iterations),
            master_seed: seed_text(config.master_seed),
            before,
        },
        verdict,
        rounds,
        costs,
        times,
    ))
}

/// What the cost step measured (each variant's cost, and the portable fix's placements
/// timed), or why it could not.
type Costed = std::result::Result<(Vec<Cost>, Vec<Placement>), String>;

/// What the verified fix costs against the application as is, the other choice's fix, a
/// barrier at every site and the reference build, if any; and, where the portable fix has
/// several placements, each one's, the cheapest suggested once it passes a trial's runs.
fn cost<L: Lab + ?Sized>(
    config: &FenceSearchConfig,
    shader: &AppSource,
    lab: &mut L,
    found: &mut Found,
    check: &Check,
) -> Costed {
    let label = |choice| match choice {
        Choice::Portable => "portable fix",
        Choice::Minimal => "minimal fix",
    };
    let suggestion = &found.suggestion;
    let suggested = &suggestion.suggested;
    let mut variants = vec![
        ("original".to_string(), Subject::AsIs),
        (
            label(config.choice).to_string(),
            Subject::Patched(&suggested.fix, &suggested.app),
        ),
    ];
    for placed in &suggestion.placements {
        let fix = &placed.fix;
        variants.push((
            placement_label(&fix.fix.sites),
            Subject::Patched(&fix.fix, &fix.app),
        ));
    }
    if let Some(other) = &suggestion.other {
        let choice = match config.choice {
            Choice::Portable => Choice::Minimal,
            Choice::Minimal => Choice::Portable,
        };
        variants.push((
            label(choice).to_string(),
            Subject::Patched(&other.fix, &other.app),
        ));
    }
    let sites = shader.tables(&[]).map_err(|e| e.to_string())?.len();
    let every = FixSet::barriers(&(0..sites).collect::<Vec<_>>());
    variants.push(("every site".to_string(), Subject::Fix(&every)));
    if lab.has_reference() {
        variants.push(("fixed variant".to_string(), Subject::Reference));
    }
    let named: Vec<(&str, Subject)> = variants.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let mut costs = cost::measure(lab, &named, config.cost).map_err(|e| e.to_string())?;
    let placements = placement::choose(&mut costs, found, lab, config.cost, check);
    Ok((costs, placements))
}

/// What the outcome says before any round: where it ran, and the confirming runs.
struct Head {
    app: String,
    adapter: String,
    strategy: Option<Strategy>,
    iterations: Option<u32>,
    master_seed: String,
    before: Vec<StrategyRuns>,
}

fn strategy_runs(c: &Confirmed) -> StrategyRuns {
    StrategyRuns {
        strategy: c.config.settings.strategy,
        iterations: c.config.settings.iterations,
        runs: c.measured.clone(),
    }
}

/// A trial as the report gives it.
fn asked(round: u32, a: &Asked) -> AskedTrial {
    AskedTrial {
        round,
        sites: a.sites.iter().map(|&s| s as u32).collect(),
        atomic: a.atomic.clone(),
        runs: a.trial.runs(),
        passed: a.trial.passed(),
        cut_short: !a.trial.passed() && !a.run_failed,
    }
}

/// The outcome: the confirming runs, the last round's fix and evidence, the earlier rounds'
/// fixes that failed their verification, and the trials of all.
fn assemble(
    head: Head,
    verdict: FenceVerdict,
    mut rounds: Vec<RoundResult>,
    costs: Option<Costed>,
    times: SearchTimes,
) -> FenceOutcome {
    let trials = rounds.iter().map(|r| r.trials).sum();
    let search_runs = rounds.iter().map(|r| r.runs).sum();
    let search_out_of_time = rounds.iter().any(|r| r.out_of_time);
    let asked = rounds
        .iter()
        .zip(0u32..)
        .flat_map(|(r, round)| r.asked.iter().map(move |a| asked(round, a)))
        .collect();
    let atomic = rounds.iter_mut().flat_map(|r| r.atomic.drain(..)).collect();
    let last = rounds.pop();
    // Every round but the last found a fix that failed its verification (rounds.rs).
    let refined = rounds
        .into_iter()
        .filter_map(|round| match round.end {
            End::Found(found) => Some(Round {
                runs_per_trial: round.runs_per_trial,
                kept: found.suggestion.kept.iter().map(|k| k.site).collect(),
                verified: found.verified,
            }),
            End::Over(_) => None,
        })
        .collect();
    let (sites, all_sites, runs_per_trial, found) = match last {
        Some(round) => (
            Some(round.sites),
            round.all_sites,
            Some(round.runs_per_trial),
            match round.end {
                End::Found(found) => Some(*found),
                End::Over(_) => None,
            },
        ),
        None => (None, None, None, None),
    };
    let fixed = verdict == FenceVerdict::Fixed;
    let verified_runs = found
        .as_ref()
        .map_or(0, |f| f.verified.iter().map(|v| v.runs.runs).sum());
    let (cost, placements, cost_error) = match costs {
        Some(Ok((cost, placements))) => (cost, placements, None),
        Some(Err(why)) => (Vec::new(), Vec::new(), Some(why)),
        None => (Vec::new(), Vec::new(), None),
    };
    FenceOutcome {
        app: head.app,
        adapter: head.adapter,
        strategy: head.strategy,
        iterations: head.iterations,
        master_seed: head.master_seed,
        verdict,
        before: head.before,
        sites,
        all_sites,
        atomic,
        trials,
        search_runs,
        asked,
        search_out_of_time,
        runs_per_trial,
        relies_on: found
            .as_ref()
            .map(|f| f.kind.relies_on(!f.fix.sites.is_empty())),
        fix: found.as_ref().map(|f| f.kind.clone()),
        choice: found.as_ref().map(|f| f.suggestion.choice),
        minimal: found
            .as_ref()
            .map_or(Vec::new(), |f| f.suggestion.minimal.clone()),
        missing: found
            .as_ref()
            .map_or(Vec::new(), |f| f.suggestion.missing.clone()),
        patches: found
            .as_ref()
            .map_or(Vec::new(), |f| f.suggestion.suggested.files.clone()),
        unexpressed: found
            .as_ref()
            .map_or(Vec::new(), |f| f.suggestion.suggested.unexpressed.clone()),
        kept: found
            .as_ref()
            .map_or(Vec::new(), |f| f.suggestion.kept.clone()),
        verified: found.map_or(Vec::new(), |f| f.verified),
        refined,
        cost,
        cost_error,
        bound: fixed.then(|| Bound::of(verified_runs)).flatten(),
        times,
        placements,
    }
}
