//! Fix kind 5b, when a barrier at every site still fails: make the candidate variables
//! atomic (`make_atomic_rmw`: every load and store atomic, each read-modify-write one atomic
//! operation), all of them together, with a barrier at every site of the rewritten shader;
//! if that passes, ddmin keeps the fewest variables that still pass (a lock that guards
//! several plain variables needs them all: a global barrier's count, poll flag and
//! participant count), then tries them without barriers, and if they need some, ddmin keeps
//! the fewest barriers.
//! Fix kind 5c, when even all of them fail: the reasons, with what was measured.
//!
//! A later round (the last round's make-atomic fix failed its verification) keeps what the
//! earlier ones learned: every variable together passed (it is not run again at the larger
//! size), and each variable of the failed fix was kept because the set without it failed,
//! certain evidence. It looks among the other variables first, the fix's always atomic, each
//! set with a barrier at every site: across workgroups the specification orders plain data
//! only through atomics (barriers order it on the platform), and barriers beside one variable
//! made atomic can leave a failure too rare for a round's trials to see, where the variables
//! together fix it (the poll example; bench/results/fences-searches.md). ddmin's premise that the
//! fix's variables fail with a barrier at every site is taken, not run: where barriers would
//! have done, the round makes one more variable atomic. A later round the deadline cut short
//! keeps every variable and every site (`try_variables`).

use super::config::Context;
use super::step::{Count, Step};
use crate::ddmin::ddmin;
use crate::error::{FenceError, Result};
use crate::lab::FixSet;
use crate::lab::Lab;
use crate::shrink::shrink;
use crate::source::{AppSource, SiteTables};
use crate::trial::{passes, Oracle, Passes, Sizing, Trial};
use crate::trials::Trials;
use wgstress_instrument::atomic::AtomicError;
use wgstress_instrument::placement::InLoop;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::{quoted, AtomicTrial, FenceVerdict, Fix, TrialRuns};
use wgstress_model::plural::count;
use wgstress_model::run::run_config::RunConfig;

/// What barriers alone could not fix: the application as is and its all-sites runs.
pub(crate) struct Unfixed<'a> {
    pub unfenced: &'a SiteTables,
    pub all_sites: &'a Measured,
}

/// What an earlier round of make-atomic learned.
pub(crate) struct Earlier<'a> {
    /// The last round's fix, which failed its verification.
    pub failed: &'a FixSet,
    /// The variables that passed together, with a barrier at every site.
    pub together: &'a [String],
}

/// Tries make-atomic on every candidate variable it can rewrite, together, then on the
/// fewest of them that pass, recording the trials in `tried`.
pub(crate) fn search<L: Lab + ?Sized>(
    cx: &mut Context<L>,
    config: &RunConfig,
    sizing: Sizing,
    unfixed: &Unfixed,
    earlier: Option<Earlier>,
    tried: &mut Vec<AtomicTrial>,
    count: &mut Count,
) -> Result<Step, L::Error> {
    let mut usable = Vec::new();
    for variable in cx.shader.atomic_candidates() {
        match cx.shader.tables(std::slice::from_ref(&variable)) {
            Ok(_) => usable.push(variable),
            Err(FenceError::MakeAtomic(refused)) if !matches!(refused, AtomicError::Shader(_)) => {
                tried.push(AtomicTrial {
                    variables: vec![variable],
                    refused: Some(refused.to_string()),
                    fused: 0,
                    all_sites: None,
                    alone: None,
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    let step = match usable.is_empty() {
        true => None,
        false => {
            // The earlier round's premise holds only for the same candidates.
            let earlier = earlier.filter(|e| e.together == usable.as_slice());
            try_variables(cx, config, sizing, usable, earlier, tried, count)?
        }
    };
    Ok(step.unwrap_or_else(|| {
        Step::Over(FenceVerdict::NotFixed {
            reasons: reasons(unfixed, tried, cx.shader),
        })
    }))
}

/// ddmin's oracle over variables: a set of candidate indices passes when those variables
/// and the `base` made atomic, with a barrier at every site of the rewritten shader, pass.
struct ByVariables<'t, 'a, L: Lab + ?Sized> {
    trials: &'t mut Trials<'a, L>,
    shader: &'t AppSource,
    candidates: &'t [String],
    base: &'t [usize],
}

impl<L: Lab + ?Sized> ByVariables<'_, '_, L> {
    /// The variables at `chosen` and the base's, in the candidates' order.
    fn variables(&self, chosen: &[usize]) -> Vec<String> {
        (0..self.candidates.len())
            .filter(|i| chosen.contains(i) || self.base.contains(i))
            .map(|i| self.candidates[i].clone())
            .collect()
    }
}

impl<L: Lab + ?Sized> Oracle for ByVariables<'_, '_, L> {
    fn trial(&mut self, chosen: &[usize], runs_needed: u64) -> Trial {
        let atomic = self.variables(chosen);
        let Ok(tables) = self.shader.tables(&atomic) else {
            return Trial::Fail { runs: 0 };
        };
        self.trials.set_atomic(atomic);
        let all: Vec<usize> = (0..tables.len()).collect();
        self.trials.trial(&all, runs_needed)
    }

    fn stopped(&self) -> bool {
        self.trials.stopped()
    }
}

/// The trials of `usable` made atomic together, then of the fewest of them: a step when they
/// passed with all sites (or when the trials ended early), none when all of them failed.
fn try_variables<L: Lab + ?Sized>(
    cx: &mut Context<L>,
    config: &RunConfig,
    sizing: Sizing,
    usable: Vec<String>,
    earlier: Option<Earlier>,
    tried: &mut Vec<AtomicTrial>,
    count: &mut Count,
) -> Result<Option<Step>, L::Error> {
    let together = cx.shader.tables(&usable)?;
    let shader = cx.shader;
    let mut trials = Trials::new(
        &mut *cx.lab,
        usable.clone(),
        config,
        &mut *cx.reporter,
        cx.deadline,
        cx.pace,
    );
    if earlier.is_none() {
        let all: Vec<usize> = (0..together.len()).collect();
        let with_all = passes(&mut trials, &all, sizing);
        tried.push(AtomicTrial {
            variables: usable.clone(),
            refused: None,
            fused: together.fused().len(),
            all_sites: Some(reported(with_all, &trials)),
            alone: None,
        });
        if let Some(stop) = trials.stopped.take() {
            count.add(&mut trials);
            return Ok(Some(Step::Over(FenceVerdict::stopped(
                stop,
                "the make-atomic trials",
            ))));
        }
        // A trial the search's deadline cut short says nothing against the set: as with
        // barriers, everything is kept and verified (a later round's trials, sized for a
        // rare failure, may not finish one in the time left).
        if !with_all.passed && !trials.out_of_time {
            count.add(&mut trials);
            return Ok(None);
        }
    }
    let kept = match &earlier {
        Some(earlier) => again(&mut trials, shader, &usable, earlier, sizing),
        None => Kept {
            variables: fewest(&mut trials, shader, &usable, sizing),
            barriers: Barriers::Unknown,
        },
    };
    if let Some(stop) = trials.stopped.take() {
        count.add(&mut trials);
        return Ok(Some(Step::Over(FenceVerdict::stopped(
            stop,
            "the make-atomic trials",
        ))));
    }
    let variables = kept.variables;
    let patched = shader.tables(&variables)?;
    trials.set_atomic(variables.clone());
    let sites = match kept.barriers {
        Barriers::Unknown => {
            let alone = reported(passes(&mut trials, &[], sizing), &trials);
            match tried.last_mut() {
                Some(trial) if trial.variables == variables && trial.alone.is_none() => {
                    trial.alone = Some(alone);
                }
                _ => tried.push(AtomicTrial {
                    variables: variables.clone(),
                    refused: None,
                    fused: patched.fused().len(),
                    all_sites: None,
                    alone: Some(alone),
                }),
            }
            // ddmin takes the empty set as failing: it is tried only when it did.
            match alone.passed {
                true => Vec::new(),
                false => shrink(patched.order(), &[], sizing, &mut trials).sites,
            }
        }
        Barriers::Failed(sites) => shrink(patched.order(), &sites, sizing, &mut trials).sites,
    };
    // A later round the deadline cut short keeps every variable and every site: the failed
    // fix showed that sets which passed smaller trials can still fail, and this set is the
    // only one every round's trials passed; a round cut short while shrinking barriers keeps
    // a subset that has passed only smaller trials, which can fail its verification.
    let (variables, patched, sites) = match earlier.is_some() && trials.out_of_time {
        true => {
            let every = (0..together.len()).collect();
            (usable, together, every)
        }
        false => (variables, patched, sites),
    };
    count.add(&mut trials);
    Ok(Some(Step::Passed {
        fix: FixSet {
            atomic: variables.clone(),
            sites,
        },
        kind: Fix::MakeAtomic {
            variables,
            fused: patched.fused().iter().map(ToString::to_string).collect(),
            sites: patched.len(),
        },
        stopped: trials.stopped,
    }))
}

/// The variables a round keeps, and what is known of the barriers they need.
struct Kept {
    variables: Vec<String>,
    barriers: Barriers,
}

enum Barriers {
    /// Nothing yet: the variables are asked alone first.
    Unknown,
    /// The variables with these barriers failed (the last round's fix): they are kept while
    /// the other sites are searched for what they lack.
    Failed(Vec<usize>),
}

/// The fewest of `usable` that pass together (all of them passed; none failed).
fn fewest<L: Lab + ?Sized>(
    trials: &mut Trials<L>,
    shader: &AppSource,
    usable: &[String],
    sizing: Sizing,
) -> Vec<String> {
    if usable.len() == 1 {
        return usable.to_vec();
    }
    let indices: Vec<usize> = (0..usable.len()).collect();
    let mut by = ByVariables {
        trials,
        shader,
        candidates: usable,
        base: &[],
    };
    let kept = ddmin(&indices, sizing, &mut by);
    by.variables(&kept.sites)
}

/// A later round's variables: the failed fix's with the fewest others that make them pass
/// with a barrier at every site (the module says why not barriers first); where the fix
/// held every variable, its own, keeping its barriers while the others are searched.
fn again<L: Lab + ?Sized>(
    trials: &mut Trials<L>,
    shader: &AppSource,
    usable: &[String],
    earlier: &Earlier,
    sizing: Sizing,
) -> Kept {
    let base: Vec<usize> = (0..usable.len())
        .filter(|&i| earlier.failed.atomic.contains(&usable[i]))
        .collect();
    if base.len() == usable.len() {
        return Kept {
            variables: usable.to_vec(),
            barriers: Barriers::Failed(earlier.failed.sites.clone()),
        };
    }
    let rest: Vec<usize> = (0..usable.len()).filter(|i| !base.contains(i)).collect();
    let mut by = ByVariables {
        trials,
        shader,
        candidates: usable,
        base: &base,
    };
    // The rest with the fix's variables is every variable, which passed.
    let added = ddmin(&rest, sizing, &mut by);
    Kept {
        variables: by.variables(&added.sites),
        barriers: Barriers::Unknown,
    }
}

/// The accesses in loops where no barrier may go, one reason per function with its places
/// listed: the same explanation once, where it once came again for every access.
fn loop_reasons(in_loops: &[(String, InLoop)]) -> Vec<String> {
    let mut functions: Vec<(&str, Vec<String>)> = Vec::new();
    for (file, access) in in_loops {
        let place = format!("{file}:{}:{}", access.line, access.column);
        match functions.iter_mut().find(|(f, _)| *f == access.function) {
            Some((_, places)) => places.push(place),
            None => functions.push((&access.function, vec![place])),
        }
    }
    functions
        .into_iter()
        .map(|(function, places)| {
            format!(
                "{} (in {function}): storage accesses inside a loop that invocations leave at \
                 different times (per-invocation control flow), where WGSL allows no barrier: \
                 no fence can order them; if they race, the data they exchange must live in \
                 the atomic itself (one atomic operation on the data, such as atomicAdd or \
                 atomicCompareExchangeWeak, rather than plain data behind an atomic flag)",
                places.join(", ")
            )
        })
        .collect()
}

/// Why nothing fixed it: what each attempt measured, and the cause when the site analysis
/// knows it (storage accesses in loops where no barrier may go).
fn reasons(unfixed: &Unfixed, tried: &[AtomicTrial], shader: &AppSource) -> Vec<String> {
    let all = unfixed.all_sites;
    let sites = match unfixed.unfenced.len() {
        1 => "the one candidate site".to_string(),
        n => format!("all {n} candidate sites"),
    };
    let mut reasons = vec![format!(
        "fences: with a storageBarrier() at {sites}, {} of {} failed",
        all.failures,
        count(all.runs, "run", "runs")
    )];
    if tried.is_empty() {
        reasons.push(
            "make-atomic: no candidate variable (it rewrites plain var<storage, read_write> \
             u32 and i32, and arrays and structs of them)"
                .into(),
        );
    }
    for trial in tried {
        let variables = match trial.variables.len() {
            1 => quoted(&trial.variables),
            _ => format!("{} together", quoted(&trial.variables)),
        };
        reasons.push(match (&trial.refused, trial.all_sites) {
            (Some(why), _) => format!("make-atomic of {variables}: refused: {why}"),
            (None, Some(runs)) => format!(
                "make-atomic of {variables} ({} made atomic operations), with a barrier at \
                 every site: a run failed within {}",
                count(trial.fused, "read-modify-write", "read-modify-writes"),
                count(runs.runs, "run", "runs")
            ),
            (None, None) => format!("make-atomic of {variables}: not run"),
        });
    }
    let in_loops = unfixed.unfenced.in_loops(shader);
    reasons.extend(loop_reasons(&in_loops));
    if in_loops.is_empty() {
        reasons.push(
            "cause not known: no storage access lies where a barrier may not go; the race \
             may need an atomic operation make-atomic does not derive (a compare-exchange \
             loop, or several variables updated together)"
                .into(),
        );
    }
    reasons
}

/// What a set's trials saw, as the report gives it: a set that did not pass while the search's
/// deadline had cut its trials short was cut short, not failed.
fn reported<L: Lab + ?Sized>(asked: Passes, trials: &Trials<L>) -> TrialRuns {
    TrialRuns {
        runs: asked.runs,
        passed: asked.passed,
        trials: asked.trials,
        cut_short: !asked.passed && trials.out_of_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_in_loops_of_one_function_share_one_reason() {
        let at = |function: &str, line| {
            (
                "lock.wgsl".to_string(),
                InLoop {
                    function: function.into(),
                    line,
                    column: 5,
                },
            )
        };
        let in_loops: Vec<_> = (1..=6)
            .map(|l| at("acquire", l))
            .chain([at("main", 9)])
            .collect();
        let reasons = loop_reasons(&in_loops);
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(
            reasons[0].starts_with(
                "lock.wgsl:1:5, lock.wgsl:2:5, lock.wgsl:3:5, lock.wgsl:4:5, lock.wgsl:5:5, \
                 lock.wgsl:6:5 (in acquire): storage accesses inside a loop"
            ),
            "{}",
            reasons[0]
        );
        assert!(reasons[1].starts_with("lock.wgsl:9:5 (in main): "));
    }
}
