//! `wgstress fences APP`: plans the search for the fix that stops an application's
//! failures, runs it on the device (wgstress_runtime::fences::search) and shows its outcome.

use crate::notes::Notes;
use crate::options::{AppOptions, BudgetOptions, SessionOptions, StressOptions};
use crate::plan::{paths, SessionPlan};
use crate::present::fences::Progress;
use crate::status::Status;
use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;
use wgstress_runtime::fences::gpu::GpuLab;
use wgstress_runtime::fences::outcome::{Outcome, Verdict};
use wgstress_runtime::fences::source::Shader;
use wgstress_runtime::fences::{search, SearchConfig};
use wgstress_runtime::run::log::JsonLog;
use wgstress_runtime::run::tally::seed_text;
use wgstress_runtime::Strategy;

#[derive(clap::Args)]
pub struct SearchOptions {
    #[command(flatten)]
    stress: StressOptions,
    #[command(flatten)]
    session: SessionOptions,
    /// Stress strategy of every run of the search; when left out, systematic, and if it shows
    /// no failure in half the budget, cache, random and none share the other half and the
    /// one that fails most is used
    #[arg(long, value_parser = crate::options::strategies())]
    strategy: Option<Strategy>,
    /// Seconds to confirm the failure and measure its rate (calibration's share included)
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    budget: Duration,
    /// Seconds to run the fix found, shared by the strategies that showed the failure; one
    /// failure and it is not reported as a fix
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    verify: Duration,
    /// Runs per batch
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// Seconds a batch may run before it counts as hung. Longer than `run`'s 10: barriers in
    /// a spinning loop lengthen the runs the watchdog stops, and a trial meets its first such
    /// run before its batches can be sized for it
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    timeout: Duration,
}

/// A validated search.
pub struct Plan {
    session: SessionPlan,
    /// The user's strategy; none: systematic, then a short compare if it shows nothing.
    strategy: Option<Strategy>,
    verify: Duration,
    /// Where the patched shader goes, checked writable and distinct from the inputs.
    output: Option<PathBuf>,
}

pub fn plan(app: &AppOptions, args: &SearchOptions, output: Option<&Path>) -> Result<Plan> {
    let budget = BudgetOptions {
        runs: None,
        time: Some(args.budget),
        batch: args.batch,
        timeout: args.timeout,
        until_failures: None,
    };
    let session = SessionPlan::new(app, &budget, &args.stress, &args.session)?;
    super::single_kernel(&session.app)?;
    if let Some(out) = output {
        paths::writable(out, "--output")?;
        let mut all: Vec<(&str, &Path)> = session
            .inputs
            .iter()
            .map(|(f, p)| (*f, p.as_path()))
            .collect();
        if let Some(log) = &session.log {
            all.push(("--log", log));
        }
        all.push(("--output", out));
        paths::distinct(&all)?;
    }
    Ok(Plan {
        session,
        strategy: args.strategy,
        verify: args.verify,
        output: output.map(Path::to_path_buf),
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    let shader = Shader {
        app: session.app.clone(),
    };
    let engine = session.engine()?;
    super::super::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategy.is_none_or(|s| s == Strategy::Systematic) {
        notes.note(&format!("systematic stress from {source}"));
    }
    let config = SearchConfig {
        strategy: plan.strategy,
        budget: session.budget.time.unwrap_or_default(),
        verify: plan.verify,
        master_seed: session.master_seed,
        adaptive: session.stress.adaptive(),
        stop: crate::interrupt::stop_flag(notes.on),
    };
    let mut log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.write(&json!({
            "type": "start",
            "command": "fences",
            "app": engine.app().name,
            "adapter": engine.gpu().describe(),
            "strategy": config.strategy,
            "budget_seconds": config.budget.as_secs_f64(),
            "verify_seconds": config.verify.as_secs_f64(),
            "master_seed": seed_text(config.master_seed),
        }))?;
    }
    let mut lab = GpuLab::with_engine(
        shader.clone(),
        session.engine_config(),
        session.stress.clone(),
        shape,
        engine,
    );
    let mut progress = Progress::new(session, notes);
    let outcome = search(&config, &shader, &mut lab, &mut |e| progress.on_event(e))?;
    progress.finish();
    show(&plan, &outcome, log.as_mut())
}

/// Writes the verified fix to `-o`, logs the outcome and prints it.
fn show(plan: &Plan, outcome: &Outcome, log: Option<&mut JsonLog>) -> Result<Status> {
    let output = match (&plan.output, &outcome.patched) {
        (Some(out), Some(patched)) => {
            std::fs::write(out, patched).with_context(|| format!("{}", out.display()))?;
            Some(out.display().to_string())
        }
        _ => None,
    };
    let shown = json!({ "output": output });
    let mut value = serde_json::to_value(outcome)?;
    value
        .as_object_mut()
        .expect("an outcome is an object")
        .extend(shown.as_object().expect("an object").clone());
    if let Some(log) = log {
        log.summary(value.clone())?;
    }
    if plan.session.json {
        crate::notes::emit(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        crate::notes::emit(&crate::present::fences::text(outcome, output.as_deref()))?;
    }
    Ok(status(&outcome.verdict))
}

/// 0 for a fix or no failure, 1 for no fix, 2 for an error, 130 for Ctrl-C.
pub fn status(verdict: &Verdict) -> Status {
    match verdict {
        Verdict::DoesNotFail | Verdict::Fixed => Status::Passed,
        Verdict::NotFixed { .. } | Verdict::Unverified { .. } | Verdict::WatchdogStops { .. } => {
            Status::Failed
        }
        Verdict::Interrupted { .. } => Status::Interrupted,
        Verdict::Aborted { .. } => Status::Aborted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_or_no_failure_exits_0_no_fix_1_an_error_2_an_interruption_130() {
        assert_eq!(status(&Verdict::Fixed).number(), 0);
        assert_eq!(status(&Verdict::DoesNotFail).number(), 0);
        let reasons = Vec::new();
        assert_eq!(status(&Verdict::NotFixed { reasons }).number(), 1);
        let why = String::from("w");
        assert_eq!(status(&Verdict::Unverified { why }).number(), 1);
        let why = String::from("lost");
        assert_eq!(status(&Verdict::Aborted { why }).number(), 2);
        let during = String::from("the search");
        assert_eq!(status(&Verdict::Interrupted { during }).number(), 130);
    }
}
