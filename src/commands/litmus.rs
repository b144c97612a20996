//! `wgstress litmus`: one parallel litmus test in one environment, counted.

use crate::notes::{emit, Notes};
use crate::options::{LitmusEnvOptions, LogOptions};
use crate::plan::paths;
use crate::status::Status;
use anyhow::{anyhow, bail, Result};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wgstress_litmus::{catalog, env::Env, runner::Counts, runner::Litmus, test};
use wgstress_runtime::run::log::JsonLog;
use wgstress_runtime::run::stats::reproducibility;
use wgstress_runtime::run::stop::Stop;

#[derive(clap::Args)]
pub struct Args {
    /// The test: mp, sb, lb, corr, coww, cowr, corw, 2+2w, or one of the MC Mutants suite
    /// (--list)
    #[arg(required_unless_present = "list")]
    test: Option<String>,
    /// List every test: its kind (classic, conformance or mutant) and the behaviour it
    /// looks for
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    env: LitmusEnvOptions,
    /// storageBarrier() between each thread's accesses: weak behaviour should vanish, and
    /// the exit status is 1 if it does not (as it is for any run that breaks coherence)
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

/// A validated `litmus`: the list, or a run.
pub enum Plan {
    List,
    Run(Box<RunPlan>),
}

/// A validated run; the environment is checked against the adapter when it opens.
pub struct RunPlan {
    test: test::Test,
    /// The options' environment; --env FILE's replaces it when found on the adapter.
    env: Env,
    env_file: Option<PathBuf>,
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
    let name = match (&args.test, args.list) {
        (_, true) => return Ok(Plan::List),
        (Some(name), false) => name,
        (None, false) => bail!("give a test's name, or --list"),
    };
    let test = catalog::find(name).ok_or_else(|| {
        let names: Vec<_> = test::classics().iter().map(|t| t.name.clone()).collect();
        anyhow!(
            "unknown litmus test `{name}` (known: {}, and the MC Mutants suite's: wgstress litmus --list)",
            names.join(", ")
        )
    })?;
    let time = args.time;
    let log = crate::plan::log_path(&args.log)?;
    let env_file = crate::plan::env_file(args.env.env_file.as_deref())?;
    if let (Some(log), Some(file)) = (&log, &env_file) {
        paths::distinct(&[("--env", file), ("--log", log)])?;
    }
    Ok(Plan::Run(Box::new(RunPlan {
        test,
        env: args.env.env(args.fence),
        env_file,
        adapter: args.env.adapter.clone(),
        fence: args.fence,
        iterations: match (args.iterations, time) {
            (None, None) => Some(100),
            (n, _) => n,
        },
        time,
        batch: args.batch,
        json: args.json,
        log,
    })))
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    match plan {
        Plan::List => {
            emit(&crate::present::litmus::list(&catalog::all()))?;
            Ok(Status::Passed)
        }
        Plan::Run(plan) => run(*plan, notes),
    }
}

fn run(mut plan: RunPlan, notes: Notes) -> Result<Status> {
    let gpu = wgstress_runtime::gpu::device::open(plan.adapter.as_deref())?;
    plan.env = super::resolve_env(plan.env, plan.env_file.as_deref(), &gpu.info.name, notes)?;
    // The seed of the runner's permutations: fixed, so that the log says all there is.
    const SEED: u64 = 1;
    let mut litmus = Litmus::new(&gpu, plan.test.clone(), plan.env.clone(), 0, SEED)?;
    let adapter = wgstress_runtime::gpu::device::describe(&gpu.info);
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
            "kind": plan.test.kind,
            "weak_behaviour": plan.test.weak,
            "adapter": adapter,
            "env": plan.env,
            "iterations": done,
            "instances": u64::from(plan.env.instances()) * done,
            "counts": counts,
            "seconds": seconds,
            "weak_per_second": counts.weak as f64 / seconds,
            "reproducibility": reproducibility(crate::present::litmus::looked_for(&plan.test, &counts) as f64),
            "interrupted": interrupted,
    });
    if let Some(log) = log.as_mut() {
        log.summary(report.clone())?;
    }
    if plan.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&crate::present::litmus::report(
            &plan.test, &adapter, &plan.env, &counts, done, seconds,
        ))?;
    }
    Ok(status(plan.fence, &counts, interrupted))
}

/// Unfenced, weak behaviour is what relaxed WGSL atomics allow; fenced, it is a failure. A
/// broken coherence promise is a failure either way: a bug by WGSL's own rules (in the
/// driver or in naga).
fn status(fence: bool, counts: &Counts, interrupted: bool) -> Status {
    Status::of(
        interrupted.then_some(&Stop::Interrupted),
        (fence && counts.weak > 0) || counts.incoherent > 0,
    )
}

#[cfg(test)]
mod tests {
    use super::{status, Counts, Status};

    fn counts(weak: u64, incoherent: u64) -> Counts {
        Counts {
            weak,
            incoherent,
            ..Counts::default()
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
