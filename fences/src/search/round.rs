//! One round of the search, steps (b) to (d), with trials sized for a failure rate: a
//! barrier at every candidate site must stop the failures (else make-atomic is tried,
//! atomic.rs); ddmin shrinks the set in an order of preference (shrink.rs); the fix found is
//! verified under every strategy that showed the failure (verify.rs).

use super::config::Context;
use super::step::{Count, Step};
use super::{atomic, verify};
use crate::error::Result;
use crate::lab::Lab;
use crate::lab::{FixSet, Subject};
use crate::pool::{Pool, Pooled};
use crate::shrink::{guess_first, shrink_guessed, shrink_knowing};
use crate::suggest::{suggest, Suggestion};
use crate::trial::{FailureRate, Sizing};
use crate::trials::{Asked, Trials};
use crate::with_fix::Seen;
use std::time::Instant;
use wgstress_model::event::SearchEvent;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::{AtomicTrial, FenceVerdict, Fix, StrategyRuns};
use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::stress::params::run_seed;

/// What one round found and measured.
pub(crate) struct RoundResult {
    /// Runs a trial of the round started with.
    pub runs_per_trial: u64,
    /// Runs a pass needed when the round ended: `runs_per_trial` but where the round's
    /// failing sets resized its trials (pool.rs). A cheaper placement's check is as long.
    pub pass_runs: u64,
    /// Candidate sites of the application as is.
    pub sites: usize,
    /// Runs with a barrier at every site; none where a first round's guess passed first.
    pub all_sites: Option<Measured>,
    pub atomic: Vec<AtomicTrial>,
    pub trials: u64,
    pub runs: u64,
    /// Every trial of delta debugging and make-atomic, in order.
    pub asked: Vec<Asked>,
    /// The search's deadline kept a trial from its runs: the set kept may not be minimal.
    pub out_of_time: bool,
    /// Seconds the round's trials took, building their programs included, and the runs'
    /// share of them.
    pub trial_seconds: f64,
    pub run_seconds: f64,
    pub end: End,
}

/// How a round ended.
pub(crate) enum End {
    /// No fix: Ctrl-C or an error stopped it first, or nothing fixed it.
    Over(FenceVerdict),
    /// A set that passed its trials, verified or not (its verdict says).
    Found(Box<Found>),
}

/// A fix that passed its trials, the fix suggested from it, and the suggestion's
/// verification.
pub(crate) struct Found {
    /// The set the trials kept: what this adapter needed.
    pub fix: FixSet,
    pub kind: Fix,
    pub suggestion: Suggestion,
    pub verified: Vec<StrategyRuns>,
    pub verdict: FenceVerdict,
    /// Seconds the verification took.
    pub verify_seconds: f64,
}

/// What earlier rounds learned, which a later one keeps.
#[derive(Default)]
pub(crate) struct Learned<'a> {
    /// The last round's fix, which failed its verification: kept while the round looks for
    /// what it lacks.
    pub failed: Option<&'a FixSet>,
    /// What an earlier round showed of a barrier at every site: it is not run again.
    pub every_site: Option<EverySite<'a>>,
    /// The variables an earlier round made atomic together, which passed with a barrier at
    /// every site: not run again.
    pub together: Option<&'a [String]>,
    /// Trials of barriers alone (no variable atomic) of earlier rounds: no set within one a
    /// run failed is asked again, and they tell which site of the failed fix did least.
    pub seen: Vec<Seen<'a>>,
    /// The failed fix's verification, where the fix was barriers alone: the round's trials
    /// are sized from it and from its own failing sets that hold the fix (pool.rs).
    pub pool: Option<Pool>,
}

/// What an earlier round showed of a barrier at every site.
#[derive(Clone, Copy)]
pub(crate) enum EverySite<'a> {
    /// Its trial passed.
    Passed(&'a Measured),
    /// A set of fewer sites passed (a first round's guess), which every site holds.
    Held,
}

/// Round `index` (from 0): trials sized for `rate`, keeping what earlier rounds `learned`.
pub(crate) fn round<L: Lab + ?std::marker::Sized>(
    cx: &mut Context<L>,
    chosen: &RunConfig,
    rate: FailureRate,
    learned: &Learned,
    index: u64,
) -> Result<RoundResult, L::Error> {
    let failed: &[usize] = match learned.failed {
        Some(fix) if fix.atomic.is_empty() => &fix.sites,
        _ => &[],
    };
    let passed = learned.every_site;
    let started = Instant::now();
    let sizing = match index {
        0 => Sizing::first(rate),
        _ => Sizing::later(rate),
    };
    let runs_per_trial = rate.runs_needed();
    let unfenced = cx.shader.tables(&[])?;
    let sites = unfenced.len();
    cx.report(SearchEvent::Round {
        rate: rate.get(),
        strategy: chosen.settings.strategy,
        runs_per_trial,
        sites,
    })?;
    let seed = |i| run_seed(chosen.master_seed, i + 64 * index);
    let order = unfenced.order();
    let mut count = Count::default();
    // A first round asks the first sites of its order alone before a barrier at every site:
    // a passing guess is a fix of one site, which needs no trial of every site.
    let guessed = match index {
        0 => {
            let guess_config = RunConfig {
                master_seed: seed(3),
                ..chosen.clone()
            };
            // Half the search's time at most: the trial of every site, on which every later
            // step rests, gets the rest (on lavapipe, guesses that took the whole time left it
            // none, and its trial of no runs passed for one).
            let now = Instant::now();
            let half = cx.deadline.saturating_duration_since(now) / 2;
            let sizing = Sizing::guesses(rate, cx.pace, verify::share(cx));
            let mut trials = Trials::new(
                &mut *cx.lab,
                Vec::new(),
                &guess_config,
                &mut *cx.reporter,
                now + half,
                cx.pace,
            );
            let (kept, guessed) = guess_first(order, sizing, &mut trials);
            // The guesses' own bound is not the search's: the guesses not asked are ddmin's.
            trials.out_of_time = false;
            count.add(&mut trials);
            let step = match (kept, trials.stopped.take()) {
                (_, Some(stop)) => Some(Step::Over(FenceVerdict::stopped(
                    stop,
                    "the first sites asked alone",
                ))),
                (Some(kept), None) => Some(Step::Passed {
                    fix: FixSet::barriers(&kept),
                    kind: Fix::Barriers,
                    stopped: None,
                }),
                (None, None) => None,
            };
            if let Some(step) = step {
                let trials = Tally::new(count, started, 0.0);
                return finish(
                    cx,
                    step,
                    None,
                    Vec::new(),
                    trials,
                    Sized::at(runs_per_trial),
                    sites,
                );
            }
            Some(guessed)
        }
        _ => None,
    };
    let all: Vec<usize> = (0..sites).collect();
    let budget = Budget {
        runs: Some(runs_per_trial),
        time: Some(
            cx.deadline
                .saturating_duration_since(std::time::Instant::now()),
        ),
        failures: Some(1),
    };
    // A later round's trials are larger, but its search keeps the failed fix and adds sites
    // to it: every site passing is its premise, which the first round showed (its trial of
    // every site, or a guess that passed alone, a set every site holds); run
    // again at the larger size, that trial would cost more than the whole first round.
    let all_sites = match passed {
        Some(EverySite::Passed(passed)) => Some(passed.clone()),
        Some(EverySite::Held) => None,
        None => Some(Measured::or_stopped(cx.lab.measure(
            Subject::Fix(&FixSet::barriers(&all)),
            chosen,
            &budget,
            seed(1),
        ))),
    };
    // The trial of every site counts among the trials unless an earlier round ran it.
    let all_seconds = match (passed, &all_sites) {
        (None, Some(all_sites)) => all_sites.seconds,
        _ => 0.0,
    };
    if let Some(stop) = all_sites.as_ref().and_then(|all| all.stopped.clone()) {
        let step = Step::Over(FenceVerdict::stopped(stop, "the trial of all sites"));
        let trials = Tally::new(count, started, all_seconds);
        return finish(
            cx,
            step,
            all_sites,
            Vec::new(),
            trials,
            Sized::at(runs_per_trial),
            sites,
        );
    }
    let trials_config = RunConfig {
        master_seed: seed(2),
        ..chosen.clone()
    };
    let mut tried = Vec::new();
    // A pooled round's trials end at another size than they started (pool.rs).
    let mut pass_runs = runs_per_trial;
    let failing = all_sites.as_ref().filter(|all| all.failures > 0);
    let step = if let Some(all_sites) = failing {
        let unfixed = atomic::Unfixed {
            unfenced: &unfenced,
            all_sites,
        };
        let earlier = match (learned.failed, learned.together) {
            (Some(failed), Some(together)) if !failed.atomic.is_empty() => {
                Some(atomic::Earlier { failed, together })
            }
            _ => None,
        };
        cx.report(SearchEvent::MakeAtomic {
            kept: earlier.as_ref().map_or(&[], |e| e.failed.atomic.as_slice()),
        })?;
        atomic::search(
            cx,
            &trials_config,
            sizing,
            &unfixed,
            earlier,
            &mut tried,
            &mut count,
        )?
    } else {
        let mut trials = Trials::new(
            &mut *cx.lab,
            Vec::new(),
            &trials_config,
            &mut *cx.reporter,
            cx.deadline,
            cx.pace,
        );
        let found = match (&guessed, &learned.pool) {
            (Some(guessed), _) => shrink_guessed(order, guessed, sizing, &mut trials),
            (None, Some(pool)) => {
                let mut pooled = Pooled::new(&mut trials, pool.clone());
                let found = shrink_knowing(order, failed, &learned.seen, sizing, &mut pooled);
                pass_runs = pooled.pool.rate().runs_needed();
                found
            }
            (None, None) => shrink_knowing(order, failed, &learned.seen, sizing, &mut trials),
        };
        count.add(&mut trials);
        Step::Passed {
            fix: FixSet::barriers(&found.sites),
            kind: Fix::Barriers,
            stopped: trials.stopped,
        }
    };
    let trials = Tally::new(count, started, all_seconds);
    let runs = Sized {
        per_trial: runs_per_trial,
        pass: pass_runs,
    };
    finish(cx, step, all_sites, tried, trials, runs, sites)
}

/// A round's trials: what they counted, when the round started, and the seconds of a trial
/// of every site run outside them.
struct Tally {
    count: Count,
    started: Instant,
    all_seconds: f64,
}

impl Tally {
    fn new(count: Count, started: Instant, all_seconds: f64) -> Tally {
        Tally {
            count,
            started,
            all_seconds,
        }
    }
}

/// A round's trial sizes: where it started, and what a pass needed at its end.
#[derive(Clone, Copy)]
struct Sized {
    per_trial: u64,
    pass: u64,
}

impl Sized {
    /// Trials that kept their size.
    fn at(runs: u64) -> Sized {
        Sized {
            per_trial: runs,
            pass: runs,
        }
    }
}

/// The round's result once its trials ended in `step`: the fix found settled (suggested
/// and verified), or the verdict that ended it.
fn finish<L: Lab + ?std::marker::Sized>(
    cx: &mut Context<L>,
    step: Step,
    all_sites: Option<Measured>,
    atomic: Vec<AtomicTrial>,
    trials: Tally,
    runs: Sized,
    sites: usize,
) -> Result<RoundResult, L::Error> {
    cx.report(SearchEvent::TrialsDone)?;
    let trial_seconds = trials.started.elapsed().as_secs_f64();
    let end = match step {
        Step::Over(verdict) => End::Over(verdict),
        Step::Passed { fix, kind, stopped } => {
            End::Found(Box::new(settle(cx, fix, kind, stopped, runs.pass)?))
        }
    };
    Ok(RoundResult {
        runs_per_trial: runs.per_trial,
        pass_runs: runs.pass,
        sites,
        all_sites,
        atomic,
        trials: trials.count.trials,
        runs: trials.count.runs,
        asked: trials.count.asked,
        out_of_time: trials.count.out_of_time,
        trial_seconds,
        run_seconds: trials.all_seconds + trials.count.seconds,
        end,
    })
}

/// The fix that passed its trials, the suggestion grown from it, and the suggestion's
/// verification (of the patched text itself, at least `runs_per_trial` runs) unless Ctrl-C
/// or an error ended the trials.
fn settle<L: Lab + ?std::marker::Sized>(
    cx: &mut Context<L>,
    fix: FixSet,
    kind: Fix,
    stopped: Option<wgstress_model::run::stop::Stop>,
    runs_per_trial: u64,
) -> Result<Found, L::Error> {
    let suggestion = suggest(cx.shader, &fix, cx.config.choice)?;
    let started = Instant::now();
    let (verified, verdict) = match stopped {
        Some(stop) => (Vec::new(), FenceVerdict::stopped(stop, "the search")),
        None => {
            let patched = &suggestion.suggested;
            let subject = Subject::Patched(&patched.fix, &patched.app);
            verify::verify(cx, subject, patched.fix.sites.len(), runs_per_trial)?
        }
    };
    Ok(Found {
        fix,
        kind,
        suggestion,
        verified,
        verdict,
        verify_seconds: started.elapsed().as_secs_f64(),
    })
}
