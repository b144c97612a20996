//! `wgstress fences APP`: the search for the storage barriers that stop an application's
//! failures. Confirm the failure and measure its rate, check that a barrier at every
//! candidate site stops it, shrink the set with delta debugging, then verify the set found.

use crate::notes::Notes;
use crate::options::{AppOptions, BudgetOptions, SessionOptions, StrategyArg, StressOptions};
use crate::plan::{paths, SessionPlan};
use crate::status::Status;
use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;
use wgstress_runtime::fences::gpu::{measure, Fencing, Measured, Runs};
use wgstress_runtime::fences::{ddmin, FailureRate, Trial};
use wgstress_runtime::log::JsonLog;
use wgstress_runtime::runner::{Budget, RunConfig};
use wgstress_runtime::strategy::{run_seed, Strategy};
use wgstress_runtime::tally::seed_text;

#[derive(clap::Args)]
pub struct SearchOptions {
    #[command(flatten)]
    stress: StressOptions,
    #[command(flatten)]
    session: SessionOptions,
    /// Stress strategy of every run of the search
    #[arg(long, value_enum, default_value_t = StrategyArg::Systematic)]
    strategy: StrategyArg,
    /// Seconds to confirm the failure and measure its rate (calibration's share included)
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    budget: Duration,
    /// Seconds to run the set found; one failure and it is not reported as a fix
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    verify: Duration,
    /// Runs per batch
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// Seconds a batch may run before it counts as hung
    #[arg(long, default_value = "10", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    timeout: Duration,
}

/// A validated search.
pub struct Plan {
    session: SessionPlan,
    strategy: Strategy,
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
        strategy: args.strategy.into(),
        verify: args.verify,
        output: output.map(Path::to_path_buf),
    })
}

/// How the search ended.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// No run failed under the given stress: nothing to fix.
    DoesNotFail,
    /// A barrier at every candidate site did not stop the failures.
    FencesDoNotFix,
    /// The set found ran the verification time without a failure.
    Fixed,
    /// The set found failed or ran too few runs in the verification time.
    Unverified { why: String },
    /// An error or the user ended the search.
    Aborted { why: String },
}

impl Verdict {
    pub fn status(&self) -> Status {
        match self {
            Verdict::DoesNotFail | Verdict::Fixed => Status::Passed,
            Verdict::FencesDoNotFix | Verdict::Unverified { .. } => Status::Failed,
            Verdict::Aborted { .. } => Status::Aborted,
        }
    }
}

/// A site the search kept.
#[derive(Clone, Debug, Serialize)]
pub struct Kept {
    pub site: u32,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub side: &'static str,
    pub function: String,
    /// The access's source line, trimmed.
    pub source: String,
}

/// Everything the search measured, for the table, the JSON and the log's summary line.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub app: String,
    pub adapter: String,
    pub strategy: String,
    pub iterations: u32,
    pub master_seed: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Runs without added barriers.
    pub before: Measured,
    /// Candidate sites, and runs with a barrier at every one.
    pub sites: usize,
    pub all_sites: Option<Measured>,
    /// The search's trials and their runs.
    pub trials: u64,
    pub search_runs: u64,
    /// Runs needed per trial: a failure at the measured rate shows with 99% confidence.
    pub runs_per_trial: Option<u64>,
    pub kept: Vec<Kept>,
    /// Runs of the kept set for the verification time.
    pub verified: Option<Measured>,
    /// What a barrier fix relies on.
    pub relies_on: &'static str,
    /// A unified diff from naga's rendering of the original to the patched shader.
    pub diff: Option<String>,
    /// Where the patched shader was written.
    pub output: Option<String>,
}

/// Why a storage barrier fix holds, and what for.
pub const RELIES_ON: &str = "platform: storageBarrier orders device memory on this adapter; \
    the WGSL specification gives barriers workgroup scope";

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    let mut engine = session.engine()?;
    super::super::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategy == Strategy::Systematic {
        notes.note(&format!("systematic stress from {source}"));
    }
    let (settings, calibration) =
        session
            .stress
            .settings(&mut engine, plan.strategy, true, &shape, &session.budget)?;
    if let Some(c) = &calibration {
        super::super::note_measured(&settings, c, session, notes);
    }
    let spent = calibration
        .as_ref()
        .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds));
    let config = RunConfig {
        settings,
        budget: session.budget.less(spent),
        master_seed: session.master_seed,
        replay: None,
        adaptive: session.stress.adaptive(),
        calibration,
        stop: crate::interrupt::stop_flag(notes.on),
    };
    let mut log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.write(&json!({
            "type": "start",
            "command": "fences",
            "app": engine.app.name,
            "adapter": engine.gpu.describe(),
            "strategy": config.settings.strategy,
            "iterations": config.settings.iterations,
            "calibration": config.calibration,
            "budget_seconds": session.budget.time.map(|t| t.as_secs_f64()),
            "verify_seconds": plan.verify.as_secs_f64(),
            "master_seed": seed_text(config.master_seed),
        }))?;
    }
    let fencing = Fencing {
        app: session.app.clone(),
        adapter: session.adapter.clone(),
        batch: session.batch,
        scratch_words: session.scratch_words(),
        timeout: session.timeout,
        watchdog_limit: session.stress.watchdog_limit,
    };
    let mut report = Report {
        app: engine.app.name.clone(),
        adapter: engine.gpu.describe(),
        strategy: config.settings.strategy.to_string(),
        iterations: config.settings.iterations,
        master_seed: seed_text(config.master_seed),
        verdict: Verdict::DoesNotFail,
        before: Measured::default(),
        sites: 0,
        all_sites: None,
        trials: 0,
        search_runs: 0,
        runs_per_trial: None,
        kept: Vec::new(),
        verified: None,
        relies_on: RELIES_ON,
        diff: None,
        output: None,
    };
    notes.note(&format!(
        "confirming the failure: {:.0} s of {} stress",
        config.budget.time.unwrap_or_default().as_secs_f64(),
        config.settings.strategy
    ));
    report.before = measure(
        &mut engine,
        &config,
        &config.budget,
        run_seed(config.master_seed, 0),
    )?;
    drop(engine);
    report.verdict = search(&plan, &fencing, &config, &mut report, notes)?;
    if let (Verdict::Fixed, Some(out)) = (&report.verdict, &plan.output) {
        let sites: Vec<usize> = report.kept.iter().map(|k| k.site as usize).collect();
        std::fs::write(out, fencing.patch(&sites)?.wgsl)
            .with_context(|| format!("{}", out.display()))?;
        report.output = Some(out.display().to_string());
    }
    if let Some(log) = log.as_mut() {
        log.summary(serde_json::to_value(&report)?)?;
    }
    if session.json {
        crate::notes::emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        crate::notes::emit(&crate::present::fences::text(&report))?;
    }
    Ok(report.verdict.status())
}

/// Steps (b) to (d), after the failure's runs: all sites, the search, the verification.
fn search(
    plan: &Plan,
    fencing: &Fencing,
    config: &RunConfig,
    report: &mut Report,
    notes: Notes,
) -> Result<Verdict> {
    if let Some(why) = ended(&report.before, config) {
        return Ok(Verdict::Aborted { why });
    }
    let Some(rate) = FailureRate::measured(report.before.failures, report.before.runs) else {
        return Ok(Verdict::DoesNotFail);
    };
    let runs_needed = rate.runs_needed();
    report.runs_per_trial = Some(runs_needed);
    let unfenced = fencing.patch(&[])?;
    report.sites = unfenced.sites.len();
    let all: Vec<usize> = (0..report.sites).collect();
    notes.note(&format!(
        "failure rate {:.4} ({} of {} runs): {runs_needed} runs per trial; {} candidate sites",
        rate.get(),
        report.before.failures,
        report.before.runs,
        report.sites
    ));
    let trial_budget = Budget {
        runs: Some(runs_needed),
        time: None,
        failures: Some(1),
    };
    let seed = |i| run_seed(config.master_seed, i);
    let all_sites = measure(&mut fencing.engine(&all)?, config, &trial_budget, seed(1))?;
    report.all_sites = Some(all_sites.clone());
    if let Some(why) = ended(&all_sites, config) {
        return Ok(Verdict::Aborted { why });
    }
    if all_sites.failures > 0 {
        return Ok(Verdict::FencesDoNotFix);
    }
    let mut on_trial = |sites: &[usize], trial: Trial| {
        let (what, runs) = match trial {
            Trial::Pass { runs } => ("passed", runs),
            Trial::Fail { runs } => ("failed", runs),
        };
        notes.note(&format!("{} sites: {what} in {runs} runs", sites.len()));
    };
    let search_config = RunConfig {
        master_seed: seed(2),
        ..config.clone()
    };
    let mut oracle = Runs::new(fencing, search_config, &mut on_trial);
    let found = ddmin(&all, rate, &mut oracle);
    report.trials = found.trials;
    report.search_runs = found.runs;
    if let Some(why) = oracle.aborted.take() {
        return Ok(Verdict::Aborted { why });
    }
    report.kept = kept(&fencing.app, &unfenced.sites, &found.sites);
    notes.note(&format!(
        "verifying {} sites for {:.0} s",
        found.sites.len(),
        plan.verify.as_secs_f64()
    ));
    let verify_budget = Budget {
        runs: None,
        time: Some(plan.verify),
        failures: Some(1),
    };
    let mut engine = fencing.engine(&found.sites)?;
    let verified = measure(&mut engine, config, &verify_budget, seed(3))?;
    report.verified = Some(verified.clone());
    report.diff = Some(crate::present::fences::diff(
        &unfenced.original_wgsl,
        &fencing.patch(&found.sites)?.wgsl,
    ));
    Ok(verdict(&verified, runs_needed, config))
}

/// Why runs ended early, if an error or the user ended them.
fn ended(measured: &Measured, config: &RunConfig) -> Option<String> {
    let interrupted = config.stop.load(std::sync::atomic::Ordering::SeqCst);
    measured
        .aborted
        .clone()
        .or_else(|| interrupted.then(|| "interrupted".to_string()))
}

/// A fix only when the verification ran at least a trial's runs, all passing.
fn verdict(verified: &Measured, runs_needed: u64, config: &RunConfig) -> Verdict {
    if let Some(why) = ended(verified, config) {
        Verdict::Unverified { why }
    } else if verified.failures > 0 {
        Verdict::Unverified {
            why: format!(
                "{} of {} runs failed with the kept barriers",
                verified.failures, verified.runs
            ),
        }
    } else if verified.runs < runs_needed {
        Verdict::Unverified {
            why: format!(
                "only {} runs in the verification time; {runs_needed} show the failure with 99% confidence",
                verified.runs
            ),
        }
    } else {
        Verdict::Fixed
    }
}

fn kept(
    app: &wgstress_runtime::spec::App,
    sites: &[wgstress_instrument::fences::FenceSite],
    found: &[usize],
) -> Vec<Kept> {
    let lines: Vec<&str> = app.source.lines().collect();
    found
        .iter()
        .map(|&i| {
            let site = &sites[i];
            Kept {
                site: site.id,
                file: app.shader_path.clone(),
                line: site.line,
                column: site.column,
                side: super::side_name(site.side),
                function: site.function.clone(),
                source: lines
                    .get(site.line as usize - 1)
                    .map_or("", |l| l.trim())
                    .to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn config(stopped: bool) -> RunConfig {
        let settings = wgstress_runtime::strategy::Settings {
            strategy: Strategy::Systematic,
            shuffle: true,
            shape: Default::default(),
            iterations: 64,
            cache_words: 1 << 16,
            watchdog_limit: 4096,
            stress_fraction: (0.15, 0.5),
            placement: Default::default(),
            buffer_shuffle: true,
        };
        RunConfig {
            settings,
            budget: Budget {
                runs: None,
                time: None,
                failures: None,
            },
            master_seed: 1,
            replay: None,
            adaptive: true,
            calibration: None,
            stop: Arc::new(AtomicBool::new(stopped)),
        }
    }

    fn runs(runs: u64, failures: u64, aborted: Option<&str>) -> Measured {
        Measured {
            runs,
            failures,
            seconds: 1.0,
            aborted: aborted.map(str::to_string),
        }
    }

    #[test]
    fn only_enough_passing_runs_verify_a_fix() {
        let live = config(false);
        assert!(matches!(
            verdict(&runs(50, 0, None), 44, &live),
            Verdict::Fixed
        ));
        assert!(matches!(
            verdict(&runs(44, 0, None), 44, &live),
            Verdict::Fixed
        ));
        for unverified in [
            verdict(&runs(50, 1, None), 44, &live),
            verdict(&runs(43, 0, None), 44, &live),
            verdict(&runs(50, 0, Some("hang")), 44, &live),
            verdict(&runs(50, 0, None), 44, &config(true)),
        ] {
            assert!(
                matches!(unverified, Verdict::Unverified { .. }),
                "{unverified:?}"
            );
            assert_eq!(unverified.status(), Status::Failed);
        }
    }

    #[test]
    fn a_fix_or_no_failure_exits_0_no_fix_1_an_error_2() {
        assert_eq!(Verdict::Fixed.status().number(), 0);
        assert_eq!(Verdict::DoesNotFail.status().number(), 0);
        assert_eq!(Verdict::FencesDoNotFix.status().number(), 1);
        let why = String::from("lost");
        assert_eq!(Verdict::Aborted { why }.status().number(), 2);
    }
}
