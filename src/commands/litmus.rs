//! `wgstress litmus`: one parallel litmus test in one environment, counted.

use crate::notes::{emit, Notes};
use crate::options::{LitmusEnvOptions, LogOptions};
use crate::status::Status;
use anyhow::{anyhow, Result};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wgstress_runtime::litmus::{env::Env, runner::Counts, runner::Litmus, test};
use wgstress_runtime::log::JsonLog;
use wgstress_runtime::stats::reproducibility;

#[derive(clap::Args)]
pub struct Args {
    /// mp, sb, lb, corr, coww, cowr, corw or 2+2w
    test: String,
    #[command(flatten)]
    env: LitmusEnvOptions,
    /// storageBarrier() between each thread's accesses: weak behaviour should vanish, and
    /// the exit status is 1 if it does not
    #[arg(long)]
    fence: bool,
    /// Iterations (dispatches of every instance); 100 when neither this nor --time is given
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: Option<u64>,
    /// Time budget in seconds
    #[arg(long, value_parser = crate::options::seconds, allow_negative_numbers = true)]
    time: Option<Duration>,
    /// Iterations per submission
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    batch: u32,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    log: LogOptions,
}

/// A validated `litmus`; the environment is checked against the adapter when it opens.
pub struct Plan {
    test: test::Test,
    env: Env,
    adapter: Option<String>,
    fence: bool,
    /// At most this many iterations, and at most this long; at least one of them is set.
    iterations: Option<u64>,
    time: Option<Duration>,
    batch: u32,
    json: bool,
    log: Option<PathBuf>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let test = test::find(&args.test).ok_or_else(|| {
        let names: Vec<_> = test::all().iter().map(|t| t.name.clone()).collect();
        anyhow!(
            "unknown litmus test `{}` (known: {})",
            args.test,
            names.join(", ")
        )
    })?;
    let time = args.time;
    Ok(Plan {
        test,
        env: args.env.env(args.fence),
        adapter: args.env.adapter.clone(),
        fence: args.fence,
        iterations: match (args.iterations, time) {
            (None, None) => Some(100),
            (n, _) => n,
        },
        time,
        batch: args.batch,
        json: args.json,
        log: crate::plan::log_path(&args.log)?,
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let gpu = wgstress_runtime::device::open(plan.adapter.as_deref())?;
    // The seed of the runner's permutations: fixed, so that the log says all there is.
    const SEED: u64 = 1;
    let mut litmus = Litmus::new(&gpu, plan.test.clone(), plan.env.clone(), 0, SEED)?;
    let adapter = wgstress_runtime::device::describe(&gpu.info);
    let mut log = plan.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.write(&serde_json::json!({
            "type": "start",
            "command": "litmus",
            "test": plan.test.name,
            "adapter": adapter,
            "env": plan.env,
            "iterations": plan.iterations,
            "seconds": plan.time.map(|t| t.as_secs_f64()),
            "batch": plan.batch,
            "seed": SEED,
        }))?;
    }
    let stop = crate::interrupt::stop_flag(notes.on);
    let (mut counts, mut done, start) = (Counts::default(), 0u64, Instant::now());
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
    let report = serde_json::json!({
            "test": plan.test.name,
            "weak_behaviour": plan.test.weak,
            "adapter": adapter,
            "env": plan.env,
            "iterations": done,
            "instances": u64::from(plan.env.instances()) * done,
            "counts": counts,
            "seconds": seconds,
            "weak_per_second": counts.weak as f64 / seconds,
            "reproducibility": reproducibility(counts.weak as f64),
            "interrupted": interrupted,
    });
    if let Some(log) = log.as_mut() {
        let mut line = report.clone();
        line["type"] = "summary".into();
        log.write(&line)?;
    }
    if plan.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&crate::present::litmus::report(
            &plan.test, &adapter, &plan.env, &counts, done, seconds,
        ))?;
    }
    Ok(status(plan.fence, counts.weak, interrupted))
}

/// Unfenced, weak behaviour is what relaxed WGSL atomics allow; fenced, it is a failure.
fn status(fence: bool, weak: u64, interrupted: bool) -> Status {
    Status::of(false, interrupted, fence && weak > 0)
}

#[cfg(test)]
mod tests {
    use super::{status, Status};

    #[test]
    fn only_a_fenced_test_with_weak_behaviour_fails() {
        assert_eq!(status(false, 12, false), Status::Passed);
        assert_eq!(status(true, 0, false), Status::Passed);
        assert_eq!(status(true, 1, false), Status::Failed);
        assert_eq!(status(true, 1, true), Status::Interrupted);
    }
}
