//! `wgstress litmus TEST`: the runs of one test in one environment, counted, logged and
//! shown, and the exit status they give.

use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::Result;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wgstress_litmus::runner::Litmus;
use wgstress_litmus::test;
use wgstress_log::{JsonLog, LitmusStart, LitmusSummary, StartOf, Summary};
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::Env;
use wgstress_model::run::stats::reproducibility;
use wgstress_model::run::stop::Stop;

/// A validated run; the environment is checked against the adapter when it opens.
pub struct RunPlan {
    pub(super) test: test::Test,
    /// The options' environment; --env FILE's replaces it when found on the adapter.
    pub(super) env: Env,
    pub(super) env_file: Option<PathBuf>,
    pub(super) adapter: wgstress_runtime::gpu::device::AdapterChoice,
    pub(super) fence: bool,
    /// At most this many iterations, and at most this long; at least one of them is set.
    pub(super) iterations: Option<u64>,
    pub(super) time: Option<Duration>,
    pub(super) batch: u32,
    pub(super) json: bool,
    pub(super) log: Option<PathBuf>,
}

pub fn run(mut plan: RunPlan, notes: Notes) -> Result<Status> {
    let gpu = wgstress_runtime::gpu::device::open(&plan.adapter)?;
    plan.env = crate::session::announce::resolve_env(
        plan.env,
        plan.env_file.as_deref(),
        &gpu.info.name,
        notes,
    )?;
    // The seed of the runner's permutations: fixed, so that the log says all there is.
    const SEED: u64 = 1;
    let mut litmus = Litmus::new(&gpu, plan.test.clone(), plan.env.clone(), 0, SEED)?;
    let adapter = wgstress_runtime::gpu::device::describe(&gpu.info);
    let mut log = plan.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.start(StartOf::Litmus(LitmusStart {
            test: plan.test.name.clone(),
            adapter: adapter.clone(),
            env: plan.env.clone(),
            iterations: plan.iterations,
            seconds: plan.time.map(|t| t.as_secs_f64()),
            batch: plan.batch,
            seed: SEED,
        }))?;
    }
    let stop = crate::interrupt::stop_flag(notes.on);
    let (mut counts, mut done, start) = (LitmusCounts::default(), 0u64, Instant::now());
    while plan.iterations.is_none_or(|n| done < n)
        && plan.time.is_none_or(|t| start.elapsed() < t)
        && !stop.load(Ordering::SeqCst)
    {
        let n = plan.iterations.map_or(u64::from(plan.batch), |n| {
            (n - done).min(u64::from(plan.batch))
        });
        counts.add(&litmus.run(&gpu, n as u32)?);
        done += n;
    }
    let seconds = start.elapsed().as_secs_f64();
    let interrupted = stop.load(Ordering::SeqCst);
    let report = LitmusSummary {
        test: plan.test.name.clone(),
        kind: plan.test.kind,
        weak_behaviour: plan.test.weak.clone(),
        adapter: adapter.clone(),
        env: plan.env.clone(),
        iterations: done,
        instances: u64::from(plan.env.instances()) * done,
        counts: counts.clone(),
        seconds,
        weak_per_second: counts.weak as f64 / seconds,
        reproducibility: reproducibility(crate::litmus::litmus_report::looked_for(
            &plan.test, &counts,
        ) as f64),
        interrupted,
    };
    if let Some(log) = log.as_mut() {
        log.summary(Summary::Litmus(report.clone()))?;
    }
    if plan.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&crate::litmus::litmus_report::report(
            &plan.test, &adapter, &plan.env, &counts, done, seconds,
        ))?;
    }
    Ok(status(plan.fence, &counts, interrupted))
}

/// Unfenced, weak behaviour is what relaxed WGSL atomics allow; fenced, it is a failure. A
/// broken coherence promise is a failure either way: a bug by WGSL's own rules (in the
/// driver or in naga).
fn status(fence: bool, counts: &LitmusCounts, interrupted: bool) -> Status {
    Status::of(
        interrupted.then_some(&Stop::Interrupted),
        (fence && counts.weak > 0) || counts.incoherent > 0,
    )
}

#[cfg(test)]
mod tests {
    use super::{status, LitmusCounts, Status};

    fn counts(weak: u64, incoherent: u64) -> LitmusCounts {
        LitmusCounts {
            weak,
            incoherent,
            ..LitmusCounts::default()
        }
    }

    #[test]
    fn a_fenced_test_with_weak_behaviour_or_broken_coherence_fails() {
        assert_eq!(status(false, &counts(12, 0), false), Status::Passed);
        assert_eq!(status(true, &counts(0, 0), false), Status::Passed);
        assert_eq!(status(true, &counts(1, 0), false), Status::Failed);
        assert_eq!(status(false, &counts(0, 1), false), Status::Failed);
        assert_eq!(status(true, &counts(1, 0), true), Status::Interrupted);
    }
}
