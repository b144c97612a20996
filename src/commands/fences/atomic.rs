//! Fix kind 5b, when a barrier at every site still fails: make one variable atomic at a time
//! (`make_atomic_rmw`: every load and store atomic, each read-modify-write one atomic
//! operation), with a barrier at every site of the rewritten shader; the first variable that
//! passes is tried without barriers, and if it needs some, ddmin keeps the fewest.
//! Fix kind 5c, when no variable passes: the reasons, with what was measured.

use super::report::{AtomicTrial, Fix, Report, TrialRuns, Verdict};
use super::search::{ended_oracle, passes, Found, Step, Tracker};
use anyhow::Result;
use wgstress_instrument::atomic::{candidates_wgsl, AtomicError};
use wgstress_instrument::fences::Patched;
use wgstress_runtime::fences::gpu::{Fencing, Runs};
use wgstress_runtime::fences::shrink::{callees_first, shrink};
use wgstress_runtime::fences::{FailureRate, Trial};
use wgstress_runtime::run::runner::RunConfig;

/// Tries make-atomic on each candidate variable in declaration order (the plain read_write
/// storage integers, and arrays and structs of them, that an entry point accesses).
pub fn search(
    fencing: &Fencing,
    config: &RunConfig,
    rate: FailureRate,
    unfenced: &Patched,
    report: &mut Report,
    tracker: &mut Tracker,
) -> Result<Step> {
    let app = &fencing.app;
    let candidates = candidates_wgsl(&app.source, &app.shader_path)?;
    for candidate in &candidates {
        let atomic = fencing.with_atomic(&candidate.name);
        let patched = match atomic.patch(&[]) {
            Ok(patched) => patched,
            Err(wgstress_runtime::Error::MakeAtomic(refused))
                if !matches!(refused, AtomicError::Shader(_)) =>
            {
                report.atomic.push(AtomicTrial {
                    variable: candidate.name.clone(),
                    refused: Some(refused.to_string()),
                    fused: 0,
                    all_sites: None,
                    alone: None,
                });
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(step) = try_variable(&atomic, &patched, config, rate, report, tracker) {
            return Ok(step);
        }
    }
    Ok(Step::Over(Verdict::NotFixed {
        reasons: reasons(unfenced, report, &app.shader_path),
    }))
}

/// The trials of one variable made atomic: a step when it passed with all sites (or when
/// the trials ended early), none when it failed.
fn try_variable(
    atomic: &Fencing,
    patched: &Patched,
    config: &RunConfig,
    rate: FailureRate,
    report: &mut Report,
    tracker: &mut Tracker,
) -> Option<Step> {
    let variable = atomic.atomic.clone().unwrap_or_default();
    let runs_needed = rate.runs_needed();
    let all: Vec<usize> = (0..patched.sites.len()).collect();
    let mut on_trial = |sites: &[usize], trial: Trial| tracker.on_trial(sites, trial);
    let mut oracle = Runs::new(atomic, config.clone(), &mut on_trial);
    let (passed, runs) = passes(&mut oracle, &all, runs_needed);
    let mut trial = AtomicTrial {
        variable: variable.clone(),
        refused: None,
        fused: patched.fused.len(),
        all_sites: Some(TrialRuns { runs, passed }),
        alone: None,
    };
    if let Some(ended) = ended_oracle(&mut oracle) {
        report.atomic.push(trial);
        return Some(Step::Over(ended.verdict("the make-atomic trials")));
    }
    if !passed {
        report.atomic.push(trial);
        return None;
    }
    let (alone, runs) = passes(&mut oracle, &[], runs_needed);
    trial.alone = Some(TrialRuns {
        runs,
        passed: alone,
    });
    report.atomic.push(trial);
    // ddmin takes the empty set as failing: it is tried only when it did.
    let sites = if alone {
        Vec::new()
    } else {
        shrink(&callees_first(&patched.sites), &[], rate, &mut oracle).sites
    };
    let ended = ended_oracle(&mut oracle);
    Some(Step::Found(Box::new(Found {
        fencing: atomic.clone(),
        sites,
        fix: Fix::MakeAtomic {
            variable,
            fused: patched.fused.iter().map(ToString::to_string).collect(),
            sites: patched.sites.len(),
        },
        ended,
        pace: oracle.take_pace(),
    })))
}

/// Why nothing fixed it: what each attempt measured, and the cause when the site analysis
/// knows it (storage accesses in loops where no barrier may go).
fn reasons(unfenced: &Patched, report: &Report, file: &str) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(all) = &report.all_sites {
        reasons.push(format!(
            "fences: with a storageBarrier() at all {} candidate sites, {} of {} runs failed",
            report.sites, all.failures, all.runs
        ));
    }
    if report.atomic.is_empty() {
        reasons.push(
            "make-atomic: no candidate variable (it rewrites plain var<storage, read_write> \
             u32 and i32, and arrays and structs of them)"
                .into(),
        );
    }
    for trial in &report.atomic {
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
    for access in &unfenced.in_loops {
        reasons.push(format!(
            "{file}:{}:{} (in {}): storage accesses inside a loop that invocations leave at \
             different times (per-invocation control flow), where WGSL allows no barrier: no \
             fence can order them; if they race, the data they exchange must live in the \
             atomic itself (one atomic operation on the data, such as atomicAdd or \
             atomicCompareExchangeWeak, rather than plain data behind an atomic flag)",
            access.line, access.column, access.function
        ));
    }
    if unfenced.in_loops.is_empty() {
        reasons.push(
            "cause not known: no storage access lies where a barrier may not go; the race \
             may need an atomic operation make-atomic does not derive (a compare-exchange \
             loop, or several variables updated together)"
                .into(),
        );
    }
    reasons
}
