//! `wgstress fences APP`: the search for the fix that stops an application's failures.
//! (a) Confirm the failure and measure its rate (confirm.rs); (b) a barrier at every
//! candidate site must stop it, else make-atomic is tried (atomic.rs); (c) shrink the set of
//! barriers with delta debugging; (d) verify the fix under every strategy that failed.

use super::confirm::{self, Confirmed};
use super::report::{kept, Fix, Report, StrategyRuns, Verdict};
use crate::notes::Notes;
use crate::options::{AppOptions, BudgetOptions, SessionOptions, StrategyArg, StressOptions};
use crate::plan::{paths, SessionPlan};
use crate::present::fences::SearchBar;
use crate::status::Status;
use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;
use wgstress_runtime::fences::gpu::{measure, measure_paced, Fencing, Measured, Runs};
use wgstress_runtime::fences::shrink::{callees_first, shrink};
use wgstress_runtime::fences::{FailureRate, Oracle, Trial};
use wgstress_runtime::log::JsonLog;
use wgstress_runtime::loop_limit::LoopLimit;
use wgstress_runtime::pace::Pace;
use wgstress_runtime::runner::{Budget, RunConfig};
use wgstress_runtime::strategy::{run_seed, Strategy};
use wgstress_runtime::tally::seed_text;

#[derive(clap::Args)]
pub struct SearchOptions {
    #[command(flatten)]
    stress: StressOptions,
    #[command(flatten)]
    session: SessionOptions,
    /// Stress strategy of every run of the search; when left out, systematic, and if it shows
    /// no failure in half the budget, cache, random and none share the other half and the
    /// one that fails most is used
    #[arg(long, value_enum)]
    strategy: Option<StrategyArg>,
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
        strategy: args.strategy.map(Strategy::from),
        verify: args.verify,
        output: output.map(Path::to_path_buf),
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    let mut engine = session.engine()?;
    super::super::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategy.is_none_or(|s| s == Strategy::Systematic) {
        notes.note(&format!("systematic stress from {source}"));
    }
    let stop = crate::interrupt::stop_flag(notes.on);
    let mut log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.write(&json!({
            "type": "start",
            "command": "fences",
            "app": engine.app.name,
            "adapter": engine.gpu.describe(),
            "strategy": plan.strategy.map(|s| s.to_string()),
            "budget_seconds": session.budget.time.map(|t| t.as_secs_f64()),
            "verify_seconds": plan.verify.as_secs_f64(),
            "master_seed": seed_text(session.master_seed),
        }))?;
    }
    let tried = confirm::confirm(session, plan.strategy, &mut engine, &shape, &stop, notes)?;
    let fencing = Fencing {
        app: session.app.clone(),
        adapter: session.adapter.clone(),
        batch: session.batch,
        scratch_words: session.scratch_words(),
        timeout: session.timeout,
        watchdog_limit: session.stress.watchdog_limit,
        learned: Some(engine.loop_limit.clone()),
        atomic: None,
    };
    let searched = confirm::chosen(&tried).or(tried.first());
    let mut report = Report {
        app: engine.app.name.clone(),
        adapter: engine.gpu.describe(),
        strategy: searched.map_or(String::new(), |c| c.config.settings.strategy.to_string()),
        iterations: searched.map_or(0, |c| c.config.settings.iterations),
        master_seed: seed_text(session.master_seed),
        verdict: Verdict::DoesNotFail,
        before: tried.iter().map(strategy_runs).collect(),
        sites: 0,
        all_sites: None,
        atomic: Vec::new(),
        trials: 0,
        search_runs: 0,
        runs_per_trial: None,
        fix: None,
        kept: Vec::new(),
        verified: Vec::new(),
        refined: Vec::new(),
        relies_on: None,
        diff: None,
        output: None,
    };
    drop(engine);
    let found = search(&plan, &fencing, &tried, &mut report, notes)?;
    if let (Verdict::Fixed, Some(out), Some(fencing)) = (&report.verdict, &plan.output, &found) {
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

fn strategy_runs(c: &Confirmed) -> StrategyRuns {
    StrategyRuns {
        strategy: c.config.settings.strategy.to_string(),
        iterations: c.config.settings.iterations,
        runs: c.measured.clone(),
    }
}

/// How runs ended early, if they did.
pub enum Ended {
    Error(String),
    Interrupted,
}

impl Ended {
    fn of(measured: &Measured, config: &RunConfig) -> Option<Ended> {
        match &measured.aborted {
            Some(why) => Some(Ended::Error(why.clone())),
            None if config.stop.load(Ordering::SeqCst) => Some(Ended::Interrupted),
            None => None,
        }
    }

    /// The verdict of a search that ended here, `during` what.
    pub fn verdict(self, during: &str) -> Verdict {
        match self {
            Ended::Error(why) => Verdict::Aborted { why },
            Ended::Interrupted => Verdict::Interrupted {
                during: during.to_string(),
            },
        }
    }
}

/// The search's trials so far, shown on the progress bar.
pub struct Tracker {
    pub trials: u64,
    pub runs: u64,
    bar: SearchBar,
}

impl Tracker {
    pub fn on_trial(&mut self, sites: &[usize], trial: Trial) {
        self.trials += 1;
        self.runs += trial.runs();
        self.bar.trial(sites.len(), trial);
    }
}

/// Steps (b) to (d), after the failure's runs. Returns the fencing of the fix found (with
/// its variable made atomic, for make-atomic) for `-o`.
fn search(
    plan: &Plan,
    fencing: &Fencing,
    tried: &[Confirmed],
    report: &mut Report,
    notes: Notes,
) -> Result<Option<Fencing>> {
    if let Some(ended) = tried.last().and_then(|c| Ended::of(&c.measured, &c.config)) {
        report.verdict = ended.verdict("confirming the failure");
        return Ok(None);
    }
    if let Some(why) = watchdog_stops(tried, fencing.learned.as_ref()) {
        report.verdict = Verdict::WatchdogStops { why };
        return Ok(None);
    }
    let Some(chosen) = confirm::chosen(tried) else {
        return Ok(None);
    };
    let config = &chosen.config;
    let mut rate = FailureRate::measured(chosen.measured.failures, chosen.measured.runs)
        .context("a failing strategy has a failure rate")?;
    let mut round = 1;
    loop {
        let found = search_round(plan, fencing, tried, config, rate, report, notes)?;
        let lower = super::refine::lower_rate(report, rate).filter(|_| round < ROUNDS);
        let Some(lower) = lower else {
            return Ok(found);
        };
        notes.note(&format!(
            "the fix kept {} sites and failed its verification: searching again with trials \
             sized for a failure rate of {}",
            report.kept.len(),
            crate::present::numbers::rate(lower.get())
        ));
        super::refine::start_round(report);
        rate = lower;
        round += 1;
    }
}

/// Why there is nothing to search for, when every failure was a watchdog stop and passing
/// runs looped within 2x of the limit: long but legitimate waits cut by the watchdog (on a
/// busy CPU, llvmpipe's spin-waits passed at 27,590 polls against its fixed 30,000). A lost
/// wake-up also ends at the watchdog, but its passing runs wait far below a learned limit.
fn watchdog_stops(tried: &[Confirmed], limit: Option<&LoopLimit>) -> Option<String> {
    let (runs, failures, stops) = tried.iter().fold((0, 0, 0), |(r, f, w), c| {
        let m = &c.measured;
        (r + m.runs, f + m.failures, w + m.watchdog)
    });
    let limit = limit.filter(|l| l.near_limit())?;
    if failures == 0 || stops < failures {
        return None;
    }
    Some(format!(
        "{failures} of {runs} runs failed, every one a watchdog stop, while passing runs looped \
         up to {} times against the limit of {}: the waits look legitimate but longer than the \
         limit allows, which no barrier or atomic shortens; run again with a higher \
         --watchdog-limit",
        limit.seen.unwrap_or_default(),
        limit.limit()
    ))
}

/// Rounds of the search: a fix that fails its verification lowered the failure rate below
/// what the trials were sized for, so the next round sizes them for the rate it left (at
/// least four times lower each round: the fifth is sized for 256 times below the first). On
/// the H100, ct-octree's third round kept three barriers in push that still failed 2 of 2,560
/// verification runs.
const ROUNDS: u32 = 5;

/// Steps (b) to (d) with trials sized for `rate`.
fn search_round(
    plan: &Plan,
    fencing: &Fencing,
    tried: &[Confirmed],
    config: &RunConfig,
    rate: FailureRate,
    report: &mut Report,
    notes: Notes,
) -> Result<Option<Fencing>> {
    let runs_needed = rate.runs_needed();
    report.runs_per_trial = Some(runs_needed);
    let unfenced = fencing.patch(&[])?;
    report.sites = unfenced.sites.len();
    let all: Vec<usize> = (0..report.sites).collect();
    notes.note(&format!(
        "failure rate {} ({} stress): {runs_needed} runs per trial; {} candidate sites",
        crate::present::numbers::rate(rate.get()),
        config.settings.strategy,
        report.sites
    ));
    let trial_budget = Budget {
        runs: Some(runs_needed),
        time: None,
        failures: Some(1),
    };
    let seed = |i| run_seed(config.master_seed, i + 64 * report.refined.len() as u64);
    let all_sites = measure(&mut fencing.engine(&all)?, config, &trial_budget, seed(1))?;
    report.all_sites = Some(all_sites.clone());
    if let Some(ended) = Ended::of(&all_sites, config) {
        report.verdict = ended.verdict("the trial of all sites");
        return Ok(None);
    }
    let mut tracker = Tracker {
        trials: 0,
        runs: 0,
        bar: SearchBar::new(report.sites, notes.on),
    };
    let search_config = RunConfig {
        master_seed: seed(2),
        ..config.clone()
    };
    let found = if all_sites.failures == 0 {
        // The last round's fix, which failed its verification.
        let failed: Vec<usize> = report
            .refined
            .last()
            .map_or(Vec::new(), |r| r.kept.iter().map(|&s| s as usize).collect());
        let order = callees_first(&unfenced.sites);
        barriers(fencing, &order, &failed, &search_config, rate, &mut tracker)
    } else {
        notes.note(
            "a barrier at every site still fails: trying make-atomic, one variable at a time",
        );
        super::atomic::search(
            fencing,
            &search_config,
            rate,
            &unfenced,
            report,
            &mut tracker,
        )?
    };
    tracker.bar.finish();
    report.trials += tracker.trials;
    report.search_runs += tracker.runs;
    let Some(found) = found.settled(report) else {
        return Ok(None);
    };
    let patched = found.fencing.patch(&found.sites)?;
    report.kept = kept(&fencing.app, &patched.sites, &found.sites);
    report.relies_on = Some(found.fix.relies_on(!found.sites.is_empty()));
    report.fix = Some(found.fix.clone());
    report.diff = Some(crate::present::fences::diff(
        &patched.original_wgsl,
        &patched.wgsl,
    ));
    if let Some(ended) = found.ended {
        report.verdict = ended.verdict("the search");
        return Ok(None);
    }
    report.verdict = verify(plan, &found, tried, runs_needed, report, notes)?;
    Ok(Some(found.fencing))
}

/// What a search step found: a set that passed its trials, under a fencing, as what fix.
pub struct Found {
    pub fencing: Fencing,
    pub sites: Vec<usize>,
    pub fix: Fix,
    /// Set when an interruption or an error ended the step: `sites` is then the smallest set
    /// that had passed its trials.
    pub ended: Option<Ended>,
    /// Batch sizes the trials learned: the verification starts from them (starting over,
    /// tpo-tm's verification on the H100 drew several stalled runs into an early batch and
    /// outlasted the hang timeout).
    pub pace: Option<Pace>,
}

/// A step's outcome: a fix, or the verdict that ends the search.
pub enum Step {
    Found(Box<Found>),
    Over(Verdict),
}

impl Step {
    /// The fix found, or none with the report's verdict set.
    fn settled(self, report: &mut Report) -> Option<Found> {
        match self {
            Step::Found(found) => Some(*found),
            Step::Over(verdict) => {
                report.verdict = verdict;
                None
            }
        }
    }
}

/// Step (c) for barriers: ddmin over the sites, all of which passed, in the order of
/// preference `order`, keeping the last round's `failed` fix while it looks for what the
/// fix lacks (shrink.rs).
fn barriers(
    fencing: &Fencing,
    order: &[usize],
    failed: &[usize],
    config: &RunConfig,
    rate: FailureRate,
    tracker: &mut Tracker,
) -> Step {
    let mut on_trial = |sites: &[usize], trial: Trial| tracker.on_trial(sites, trial);
    let mut oracle = Runs::new(fencing, config.clone(), &mut on_trial);
    let found = shrink(order, failed, rate, &mut oracle);
    Step::Found(Box::new(Found {
        fencing: fencing.clone(),
        sites: found.sites,
        fix: Fix::Barriers,
        ended: ended_oracle(&mut oracle),
        pace: oracle.take_pace(),
    }))
}

/// How the oracle's trials ended early, if they did: Ctrl-C sets the stop flag, an error
/// does not.
pub fn ended_oracle(oracle: &mut Runs) -> Option<Ended> {
    let interrupted = oracle.config.stop.load(Ordering::SeqCst);
    oracle.aborted.take().map(|why| {
        if interrupted {
            Ended::Interrupted
        } else {
            Ended::Error(why)
        }
    })
}

/// Whether `sites` passes two trials in a row, as ddmin counts a pass.
pub fn passes(oracle: &mut dyn Oracle, sites: &[usize], runs_needed: u64) -> (bool, u64) {
    let first = oracle.trial(sites, runs_needed);
    if !first.passed() {
        return (false, first.runs());
    }
    let second = oracle.trial(sites, runs_needed);
    (second.passed(), first.runs() + second.runs())
}

/// Step (d): the fix runs for `--verify` seconds, shared by the strategies that showed the
/// failure, each stopping at its first failure; it is a fix only when no run failed and
/// each strategy ran at least a trial's runs.
fn verify(
    plan: &Plan,
    found: &Found,
    tried: &[Confirmed],
    runs_needed: u64,
    report: &mut Report,
    notes: Notes,
) -> Result<Verdict> {
    let exposing = confirm::exposing(tried);
    let share = plan.verify / exposing.len().max(1) as u32;
    for (i, c) in exposing.iter().enumerate() {
        notes.note(&format!(
            "verifying the fix ({} sites) for {:.0} s of {} stress",
            found.sites.len(),
            share.as_secs_f64(),
            c.config.settings.strategy
        ));
        let budget = Budget {
            runs: None,
            time: Some(share),
            failures: Some(1),
        };
        let mut engine = found.fencing.engine(&found.sites)?;
        let seed = run_seed(c.config.master_seed, 3 + 16 * i as u64);
        let (verified, _) =
            measure_paced(&mut engine, &c.config, &budget, seed, found.pace.clone())?;
        report.verified.push(StrategyRuns {
            strategy: c.config.settings.strategy.to_string(),
            iterations: c.config.settings.iterations,
            runs: verified.clone(),
        });
        let verdict = verdict(&verified, runs_needed, &c.config);
        if !matches!(verdict, Verdict::Fixed) {
            return Ok(verdict);
        }
    }
    Ok(Verdict::Fixed)
}

/// A fix only when the verification ran at least a trial's runs, all passing.
fn verdict(verified: &Measured, runs_needed: u64, config: &RunConfig) -> Verdict {
    let strategy = config.settings.strategy;
    match Ended::of(verified, config) {
        Some(Ended::Interrupted) => Verdict::Interrupted {
            during: "the verification".into(),
        },
        Some(Ended::Error(why)) => Verdict::Unverified { why },
        None if verified.failures > 0 => Verdict::Unverified {
            why: format!(
                "{} of {} runs failed with the fix under {strategy} stress",
                verified.failures, verified.runs
            ),
        },
        None if verified.runs < runs_needed => Verdict::Unverified {
            why: format!(
                "only {} runs of {strategy} stress in the verification time; {runs_needed} show \
                 the failure with 99% confidence",
                verified.runs
            ),
        },
        None => Verdict::Fixed,
    }
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
            ..Measured::default()
        }
    }

    #[test]
    fn watchdog_stops_near_the_limit_are_not_searched() {
        let confirmed = |failures, watchdog| Confirmed {
            config: config(false),
            measured: Measured {
                watchdog,
                ..runs(100, failures, None)
            },
        };
        let mut near = LoopLimit::fixed(1000);
        near.observe_pass(600);
        let why = watchdog_stops(&[confirmed(5, 5)], Some(&near)).unwrap();
        assert!(why.contains("--watchdog-limit"), "{why}");
        // A lost wake-up: passing runs wait far below the limit; search it.
        let mut far = LoopLimit::fixed(1000);
        far.observe_pass(20);
        assert!(watchdog_stops(&[confirmed(5, 5)], Some(&far)).is_none());
        // Some failure that is not a watchdog stop; no failure at all.
        assert!(watchdog_stops(&[confirmed(5, 4)], Some(&near)).is_none());
        assert!(watchdog_stops(&[confirmed(0, 0)], Some(&near)).is_none());
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
        ] {
            assert!(
                matches!(unverified, Verdict::Unverified { .. }),
                "{unverified:?}"
            );
            assert_eq!(unverified.status(), Status::Failed);
        }
        let interrupted = verdict(&runs(50, 0, None), 44, &config(true));
        assert!(matches!(interrupted, Verdict::Interrupted { .. }));
        assert_eq!(interrupted.status(), Status::Interrupted);
    }
}
