//! The fence search's report: the verdict, the kept sites, what the fix relies on, the
//! evidence, and the patch as a unified diff.

use crate::commands::fences::{Report, Verdict};
use std::fmt::Write;
use wgstress_runtime::fences::gpu::Measured;

pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {}: {} stress, {} iterations",
        report.app, report.adapter, report.strategy, report.iterations
    );
    let _ = writeln!(out, "{}", headline(report));
    if !report.kept.is_empty() {
        let _ = writeln!(out, "\nkept sites:");
        for k in &report.kept {
            let _ = writeln!(
                out,
                "  {}:{}:{}  site {} {} (in {})  {}",
                k.file, k.line, k.column, k.site, k.side, k.function, k.source
            );
        }
    }
    if matches!(report.verdict, Verdict::Fixed) {
        let _ = writeln!(out, "\nfix: storageBarrier() at the kept sites");
        let _ = writeln!(out, "relies on: {}", report.relies_on);
    }
    let _ = writeln!(out, "\nevidence:");
    let _ = writeln!(out, "  no added barriers: {}", rate(&report.before));
    if let Some(all) = &report.all_sites {
        let _ = writeln!(out, "  all {} sites:       {}", report.sites, rate(all));
    }
    if report.trials > 0 {
        let _ = writeln!(
            out,
            "  search:            {} trials, {} runs ({} per trial)",
            report.trials,
            report.search_runs,
            report.runs_per_trial.unwrap_or_default()
        );
    }
    if let Some(verified) = &report.verified {
        let _ = writeln!(out, "  kept sites:        {}", rate(verified));
    }
    if let (Verdict::Fixed, Some(diff)) = (&report.verdict, &report.diff) {
        let _ = writeln!(out, "\n{diff}");
    }
    if let Some(path) = &report.output {
        let _ = writeln!(out, "patched shader written to {path}");
    }
    out
}

fn headline(report: &Report) -> String {
    match &report.verdict {
        Verdict::DoesNotFail => format!(
            "does not fail: {} runs passed under {} stress; `wgstress compare` tries every \
             strategy",
            report.before.runs, report.strategy
        ),
        Verdict::FencesDoNotFix => format!(
            "fences alone do not fix it: it fails with a storageBarrier() at all {} candidate \
             sites",
            report.sites
        ),
        Verdict::Fixed => format!(
            "fixed: {} of {} sites, verified without a failure",
            report.kept.len(),
            report.sites
        ),
        Verdict::Unverified { why } => format!(
            "no verified fix: the search kept {} of {} sites, but {why}",
            report.kept.len(),
            report.sites
        ),
        Verdict::Aborted { why } => format!("the search ended early: {why}"),
    }
}

fn rate(m: &Measured) -> String {
    let p = if m.runs == 0 {
        0.0
    } else {
        m.failures as f64 / m.runs as f64
    };
    format!(
        "{} of {} runs failed (rate {p:.4}), {:.1} s",
        m.failures, m.runs, m.seconds
    )
}

/// A unified diff from naga's rendering of the original shader to the patched one.
pub fn diff(original: &str, patched: &str) -> String {
    similar::TextDiff::from_lines(original, patched)
        .unified_diff()
        .context_radius(3)
        .header("original (naga)", "patched")
        .to_string()
}
