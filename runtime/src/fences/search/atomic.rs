//! Fix kind 5b, when a barrier at every site still fails: make one variable atomic at a time
//! (`make_atomic_rmw`: every load and store atomic, each read-modify-write one atomic
//! operation), with a barrier at every site of the rewritten shader; the first variable that
//! passes is tried without barriers, and if it needs some, ddmin keeps the fewest.
//! Fix kind 5c, when no variable passes: the reasons, with what was measured.

use super::config::Context;
use super::step::{Count, Step};
use crate::error::{Error, Result};
use crate::fences::lab::{FixSet, Measured};
use crate::fences::outcome::{AtomicTrial, Fix, TrialRuns, Verdict};
use crate::fences::shrink::shrink;
use crate::fences::source::{Patched, Shader};
use crate::fences::trial::{passes, FailureRate};
use crate::fences::trials::Trials;
use crate::run::runner::RunConfig;
use wgstress_instrument::atomic::AtomicError;
use wgstress_instrument::fences::InLoop;

/// What barriers alone could not fix: the application as is and its all-sites runs.
pub struct Unfixed<'a> {
    pub unfenced: &'a Patched,
    pub all_sites: &'a Measured,
}

/// Tries make-atomic on each candidate variable in declaration order, recording each in
/// `tried`.
pub fn search(
    cx: &mut Context,
    config: &RunConfig,
    rate: FailureRate,
    unfixed: &Unfixed,
    tried: &mut Vec<AtomicTrial>,
    count: &mut Count,
) -> Result<Step> {
    for variable in cx.shader.atomic_candidates()? {
        let atomic = FixSet {
            atomic: Some(variable.clone()),
            sites: Vec::new(),
        };
        let patched = match cx.shader.patch(&atomic) {
            Ok(patched) => patched,
            Err(Error::MakeAtomic(refused)) if !matches!(refused, AtomicError::Shader(_)) => {
                tried.push(AtomicTrial {
                    variable,
                    refused: Some(refused.to_string()),
                    fused: 0,
                    all_sites: None,
                    alone: None,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if let Some(step) = try_variable(cx, config, rate, &variable, &patched, tried, count) {
            return Ok(step);
        }
    }
    Ok(Step::Over(Verdict::NotFixed {
        reasons: reasons(unfixed, tried, cx.shader),
    }))
}

/// The trials of one variable made atomic: a step when it passed with all sites (or when
/// the trials ended early), none when it failed.
fn try_variable(
    cx: &mut Context,
    config: &RunConfig,
    rate: FailureRate,
    variable: &str,
    patched: &Patched,
    tried: &mut Vec<AtomicTrial>,
    count: &mut Count,
) -> Option<Step> {
    let runs_needed = rate.runs_needed();
    let all: Vec<usize> = (0..patched.sites.len()).collect();
    let mut trials = Trials::new(
        &mut *cx.lab,
        Some(variable.to_string()),
        config,
        &mut *cx.on_event,
        cx.deadline,
    );
    let with_all = passes(&mut trials, &all, runs_needed);
    let mut trial = AtomicTrial {
        variable: variable.to_string(),
        refused: None,
        fused: patched.fused().len(),
        all_sites: Some(TrialRuns {
            runs: with_all.runs,
            passed: with_all.passed,
        }),
        alone: None,
    };
    if let Some(stop) = trials.stopped.take() {
        count.add(&trials);
        tried.push(trial);
        return Some(Step::Over(Verdict::stopped(stop, "the make-atomic trials")));
    }
    if !with_all.passed {
        count.add(&trials);
        tried.push(trial);
        return None;
    }
    let alone = passes(&mut trials, &[], runs_needed);
    trial.alone = Some(TrialRuns {
        runs: alone.runs,
        passed: alone.passed,
    });
    tried.push(trial);
    // ddmin takes the empty set as failing: it is tried only when it did.
    let sites = if alone.passed {
        Vec::new()
    } else {
        shrink(&patched.order(), &[], rate, &mut trials).sites
    };
    count.add(&trials);
    Some(Step::Passed {
        fix: FixSet {
            atomic: Some(variable.to_string()),
            sites,
        },
        kind: Fix::MakeAtomic {
            variable: variable.to_string(),
            fused: patched.fused().iter().map(ToString::to_string).collect(),
            sites: patched.sites.len(),
        },
        stopped: trials.stopped,
    })
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
fn reasons(unfixed: &Unfixed, tried: &[AtomicTrial], shader: &Shader) -> Vec<String> {
    let all = unfixed.all_sites;
    let mut reasons = vec![format!(
        "fences: with a storageBarrier() at all {} candidate sites, {} of {} runs failed",
        unfixed.unfenced.sites.len(),
        all.failures,
        all.runs
    )];
    if tried.is_empty() {
        reasons.push(
            "make-atomic: no candidate variable (it rewrites plain var<storage, read_write> \
             u32 and i32, and arrays and structs of them)"
                .into(),
        );
    }
    for trial in tried {
        reasons.push(match (&trial.refused, trial.all_sites) {
            (Some(why), _) => format!("make-atomic of `{}`: refused: {why}", trial.variable),
            (None, Some(runs)) => format!(
                "make-atomic of `{}` ({} read-modify-writes made atomic operations), with a \
                 barrier at every site: a run failed within {} runs",
                trial.variable, trial.fused, runs.runs
            ),
            (None, None) => format!("make-atomic of `{}`: not run", trial.variable),
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
