//! The fence search's report: the verdict, the barriers of the suggested fix with their roles,
//! what it relies on, the evidence and what a clean verification bounds, the cost of each fix,
//! the patch as a unified diff of the user's file (fix.rs); and its progress bar (search_bar.rs).

pub use super::search_bar::Progress;

use crate::present::numbers::count;
use crate::present::style;
use std::fmt::Write;
use wgstress_model::fences::measured::Measured;
use wgstress_model::fences::outcome::{
    quoted, FenceOutcome, FenceVerdict, Fix, StrategyRuns, TrialRuns,
};
use wgstress_model::stress::strategy::Strategy;

/// The report; `written`: where the patched files were written; `edited`: the files `--fix`
/// edited in place.
pub fn text(report: &FenceOutcome, written: &[String], edited: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {}: {}, {}",
        report.app,
        report.adapter,
        report.strategy.unwrap_or(Strategy::None).stress(),
        count(
            report.iterations.unwrap_or_default(),
            "iteration",
            "iterations"
        )
    );
    let _ = writeln!(out, "{}", headline(report));
    if let FenceVerdict::NotFixed { reasons } = &report.verdict {
        for reason in reasons {
            let _ = writeln!(out, "  - {reason}");
        }
    }
    if !report.kept.is_empty() {
        let numbered = match &report.fix {
            Some(Fix::MakeAtomic { sites, .. }) => {
                format!(" (numbered among the rewritten shader's {sites})")
            }
            _ => String::new(),
        };
        let _ = writeln!(out, "\nkept sites{numbered}:");
        super::fix::kept(&mut out, report);
    }
    if let Some(fix) = &report.fix {
        let _ = writeln!(out, "\nfix: {}", fix_text(fix, report.kept.len()));
        if let Some(relies_on) = &report.relies_on {
            let _ = writeln!(out, "relies on: {relies_on}");
        }
    }
    evidence(&mut out, report);
    super::fix::cost(&mut out, report);
    super::fix::patch(&mut out, report);
    for path in written {
        let _ = writeln!(out, "patched shader written to {path}");
    }
    for path in edited {
        let _ = writeln!(out, "{path} edited in place");
    }
    out
}

fn fix_text(fix: &Fix, barriers: usize) -> String {
    match fix {
        Fix::Barriers => "storageBarrier() at the kept sites".into(),
        Fix::MakeAtomic {
            variables, fused, ..
        } => {
            let mut text = match variables.as_slice() {
                [one] => format!("make `{one}` atomic (its loads and stores atomic"),
                _ => format!(
                    "make {} atomic together (the evidence says what each set of them did; \
                     their loads and stores atomic",
                    quoted(variables)
                ),
            };
            if !fused.is_empty() {
                let _ = write!(
                    text,
                    "; read-modify-writes made one atomic operation at {}",
                    fused.join(", ")
                );
            }
            text.push(')');
            if barriers > 0 {
                text.push_str(", plus storageBarrier() at the kept sites");
            }
            text
        }
    }
}

fn evidence(out: &mut String, report: &FenceOutcome) {
    let _ = writeln!(out, "\nevidence:");
    for before in &report.before {
        let _ = writeln!(out, "  no fix ({}): {}", label(before), rate(&before.runs));
    }
    if let Some(all) = &report.all_sites {
        let sites = match report.sites.unwrap_or_default() {
            1 => "the one site".to_string(),
            n => format!("all {n} sites"),
        };
        let _ = writeln!(out, "  {sites}: {}", rate(all));
    }
    for trial in &report.atomic {
        let outcome = match (&trial.refused, trial.all_sites, trial.alone) {
            (Some(why), _, _) => format!("refused: {why}"),
            (None, Some(all), alone) => {
                let mut text = format!("with all sites {}", passed(&all));
                if let Some(alone) = alone {
                    let _ = write!(text, "; alone {}", passed(&alone));
                }
                text
            }
            (None, None, Some(alone)) => format!(
                "the fewest that passed with all sites; alone {}",
                passed(&alone)
            ),
            (None, None, None) => "not run".into(),
        };
        let _ = writeln!(out, "  make-atomic {}: {outcome}", quoted(&trial.variables));
    }
    for (i, round) in report.refined.iter().enumerate() {
        let sites: Vec<String> = round.kept.iter().map(u32::to_string).collect();
        for verified in &round.verified {
            let _ = writeln!(
                out,
                "  round {} ({}) kept sites [{}]; its fix ({}): {}",
                i + 1,
                count(round.runs_per_trial, "run per trial", "runs per trial"),
                sites.join(", "),
                label(verified),
                rate(&verified.runs)
            );
        }
    }
    if report.trials > 0 {
        let _ = writeln!(
            out,
            "  search: {}, {} ({} per trial)",
            count(report.trials, "trial", "trials"),
            count(report.search_runs, "run", "runs"),
            report.runs_per_trial.unwrap_or_default()
        );
    }
    if report.search_out_of_time {
        let _ = writeln!(
            out,
            "  search: stopped at its time bound (--search-time): the sites it had not tried \
             to drop are kept, so the fix may not be the smallest"
        );
    }
    for verified in &report.verified {
        let _ = writeln!(out, "  fix ({}): {}", label(verified), rate(&verified.runs));
    }
    super::fix::bound(out, report);
    times(out, report);
}

/// Where the time went, when the search measured it.
fn times(out: &mut String, report: &FenceOutcome) {
    let t = &report.times;
    if t.to_verdict() <= 0.0 {
        return;
    }
    let _ = write!(
        out,
        "  time: {:.1} s to the verdict: confirming {:.1} s, trials {:.1} s (their runs {:.1} s), \
         verification {:.1} s",
        t.to_verdict(),
        t.confirm,
        t.trials,
        t.trial_runs,
        t.verify
    );
    if t.cost > 0.0 {
        let _ = write!(out, "; then the cost {:.1} s", t.cost);
    }
    let _ = writeln!(out);
}

fn label(runs: &StrategyRuns) -> String {
    format!(
        "{}, {}",
        runs.strategy.stress(),
        count(runs.iterations, "iteration", "iterations")
    )
}

fn passed(trials: &TrialRuns) -> String {
    let runs = count(trials.runs, "run", "runs");
    match (trials.passed, trials.cut_short, trials.trials) {
        (true, _, 1) => format!("passed ({runs})"),
        (true, _, _) => format!("passed twice ({runs})"),
        (false, true, _) => format!("cut short by the time bound, kept ({runs})"),
        (false, false, _) => format!("failed ({runs})"),
    }
}

/// The verdict in a line: green where the application passes (fixed, or no failure to fix),
/// red where it still fails, yellow where the search was cut short.
fn headline(report: &FenceOutcome) -> String {
    match &report.verdict {
        FenceVerdict::DoesNotFail => style::pass(format!(
            "does not fail: {} under {}; `wgstress compare` tries every strategy, with and \
             without shuffling",
            count(
                report.before.iter().map(|b| b.runs.runs).sum::<u64>(),
                "run passed",
                "runs passed"
            ),
            stresses(report.before.iter().map(|b| b.strategy))
        )),
        FenceVerdict::WatchdogStops { why } => style::fail(format!("not searched: {why}")),
        FenceVerdict::NotFixed { .. } => {
            style::fail("not fixed: neither barriers nor make-atomic stopped the failures")
        }
        FenceVerdict::Fixed => style::pass(format!(
            "fixed: {}, verified without a failure",
            fix_summary(report)
        )),
        FenceVerdict::Unverified { why } => style::fail(format!(
            "no verified fix: the search found {}, but {why}",
            fix_summary(report)
        )),
        FenceVerdict::Interrupted { during } if report.fix.is_none() => {
            style::doubt(format!("interrupted during {during}: no fix found yet"))
        }
        FenceVerdict::Interrupted { during } => style::doubt(format!(
            "interrupted during {during}: the smallest fix that passed its trials so far is {} \
             (not verified: interrupted)",
            fix_summary(report)
        )),
        FenceVerdict::Aborted { why } => style::fail(format!("the search ended early: {why}")),
    }
}

/// "systematic and cache stress, and without stress": the strategies tried, in order.
fn stresses(tried: impl Iterator<Item = Strategy>) -> String {
    let (none, stressed): (Vec<Strategy>, Vec<Strategy>) =
        tried.partition(|s| *s == Strategy::None);
    let names: Vec<&str> = stressed.iter().map(|s| s.name()).collect();
    let stressed = match names.as_slice() {
        [] => String::new(),
        [one] => format!("{one} stress"),
        [rest @ .., last] => format!("{} and {last} stress", rest.join(", ")),
    };
    match (stressed.is_empty(), none.is_empty()) {
        (true, _) => "no stress".into(),
        (false, true) => stressed,
        (false, false) => format!("{stressed}, and without stress"),
    }
}

/// The fix in a few words: the barriers kept, and the variable made atomic. The sites of a
/// rewritten shader are not those `--sites` lists (a fused read-modify-write is one access
/// where the shader as written has two): the text gives both counts.
fn fix_summary(report: &FenceOutcome) -> String {
    let written = report.sites.unwrap_or_default();
    let barriers = format!(
        "{} of {}",
        report.kept.len(),
        count(written, "site", "sites")
    );
    match &report.fix {
        Some(Fix::MakeAtomic { variables, .. }) if report.kept.is_empty() => {
            format!("make-atomic of {}, no barriers", quoted(variables))
        }
        Some(Fix::MakeAtomic {
            variables, sites, ..
        }) => format!(
            "make-atomic of {} plus barriers at {} of the rewritten shader's {} (the shader \
             as written has {written}, as `--sites` lists them: a fused read-modify-write is \
             one access)",
            quoted(variables),
            report.kept.len(),
            count(*sites, "site", "sites")
        ),
        Some(Fix::Barriers) => barriers,
        None => "none".into(),
    }
}

fn rate(m: &Measured) -> String {
    format!(
        "{} of {} failed (rate {}), {:.1} s",
        m.failures,
        count(m.runs, "run", "runs"),
        crate::present::numbers::rate(m.rate()),
        m.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgstress_model::fences::outcome::Kept;

    /// A make-atomic fix of `count` keeping site 2 of the rewritten shader's 5, where the
    /// shader as written has 6.
    fn make_atomic_fix() -> FenceOutcome {
        FenceOutcome {
            app: "tally".into(),
            adapter: "llvmpipe".into(),
            strategy: Some(Strategy::Systematic),
            iterations: Some(8),
            master_seed: "0x1".into(),
            verdict: FenceVerdict::Fixed,
            before: Vec::new(),
            sites: Some(6),
            all_sites: None,
            atomic: Vec::new(),
            trials: 0,
            search_runs: 0,
            asked: Vec::new(),
            search_out_of_time: false,
            runs_per_trial: None,
            fix: Some(Fix::MakeAtomic {
                variables: vec!["count".into()],
                fused: vec!["tally.wgsl:11:5".into()],
                sites: 5,
            }),
            kept: vec![Kept {
                site: 2,
                file: "tally.wgsl".into(),
                line: 14,
                column: 5,
                side: wgstress_model::fences::outcome::KeptSide::Before,
                function: "main".into(),
                source: "seen[lid] = flag[0];".into(),
                role: None,
                reason: None,
                needed: true,
            }],
            verified: Vec::new(),
            refined: Vec::new(),
            relies_on: None,
            choice: None,
            minimal: Vec::new(),
            missing: Vec::new(),
            patches: Vec::new(),
            unexpressed: Vec::new(),
            cost: Vec::new(),
            cost_error: None,
            bound: None,
            times: Default::default(),
            placements: Vec::new(),
        }
    }

    #[test]
    fn a_make_atomic_fix_gives_both_site_counts() {
        let text = text(&make_atomic_fix(), &[], &[]);
        assert!(
            text.contains("barriers at 1 of the rewritten shader's 5 sites (the shader as written has 6, as `--sites` lists them"),
            "{text}"
        );
        assert!(
            text.contains("kept sites (numbered among the rewritten shader's 5):"),
            "{text}"
        );
    }

    #[test]
    fn the_time_to_the_verdict_is_given_step_by_step_and_none_when_unmeasured() {
        let mut report = make_atomic_fix();
        assert!(!text(&report, &[], &[]).contains("time:"));
        report.times = wgstress_model::fences::outcome::SearchTimes {
            confirm: 10.04,
            trials: 20.0,
            trial_runs: 15.5,
            verify: 30.0,
            cost: 9.96,
        };
        let text = text(&report, &[], &[]);
        assert!(
            text.contains(
                "time: 60.0 s to the verdict: confirming 10.0 s, trials 20.0 s (their runs \
                 15.5 s), verification 30.0 s; then the cost 10.0 s"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_placement_suggested_is_named_with_its_cost_and_its_check() {
        use wgstress_model::fences::cost::Cost;
        use wgstress_model::fences::outcome::Placement;
        let mut report = make_atomic_fix();
        let cost = |of: &str, percent: f64| Cost {
            of: of.into(),
            seconds_per_run: 1e-3 * (1.0 + percent / 100.0),
            low: 1e-3,
            high: 1e-3,
            batches: 8,
            percent,
        };
        let at_sites = "placement at sites 1, 6";
        report.cost = vec![
            cost("original", 0.0),
            cost(at_sites, 30.0),
            cost("portable fix", 10.0),
        ];
        let placement =
            |sites: Vec<u32>, of: &str, first: bool, checked: Option<Measured>| Placement {
                sites,
                of: of.into(),
                first,
                chosen: !first && checked.as_ref().is_some_and(|m| m.failures == 0),
                checked,
            };
        let passed = Measured {
            runs: 16,
            ..Measured::default()
        };
        report.placements = vec![
            placement(vec![1, 6], at_sites, true, None),
            placement(vec![1, 5], "portable fix", false, Some(passed)),
        ];
        let shown = text(&report, &[], &[]);
        assert!(shown.contains("  placement at sites 1, 6 "), "{shown}");
        assert!(
            shown.contains(
                "suggested: sites 1, 5 (+10.0%), cheaper than the analysis's own, sites 1, 6 \
                 (+30.0%); it passed 16 runs under stress"
            ),
            "{shown}"
        );
        // A cheaper placement that failed its check leaves the analysis's own suggested.
        report.placements[1].chosen = false;
        report.placements[0].chosen = true;
        report.placements[1].checked = Some(Measured {
            runs: 5,
            failures: 1,
            ..Measured::default()
        });
        let shown = text(&report, &[], &[]);
        assert!(
            shown.contains("sites 1, 5 were cheaper, but they failed 1 of 5 runs under stress"),
            "{shown}"
        );
        report.placements[1].checked = None;
        assert!(text(&report, &[], &[]).contains("none is cheaper than the analysis's own"));
    }

    #[test]
    fn a_rate_of_one_in_many_runs_is_not_zero() {
        let m = Measured {
            runs: 27_767,
            failures: 1,
            ..Measured::default()
        };
        assert!(rate(&m).contains("(rate 0.000036)"), "{}", rate(&m));
    }

    #[test]
    fn a_trial_says_how_many_passes_it_took_and_whether_the_bound_cut_it() {
        let trials = |passed, trials, cut_short| TrialRuns {
            runs: 10,
            passed,
            trials,
            cut_short,
        };
        assert_eq!(passed(&trials(true, 2, false)), "passed twice (10 runs)");
        assert_eq!(passed(&trials(true, 1, false)), "passed (10 runs)");
        // A log from before `trials` was written: every pass then took two.
        assert_eq!(passed(&trials(true, 0, false)), "passed twice (10 runs)");
        assert_eq!(passed(&trials(false, 1, false)), "failed (10 runs)");
        assert!(passed(&trials(false, 1, true)).starts_with("cut short by the time bound"));
    }
}
