//! The parts of the report about the fix itself: each barrier with its role and whether this
//! adapter needed it, the pairs without a legal site, what a clean verification bounds, the
//! cost of each fix, and the patch.

use crate::present::numbers::count;
use std::fmt::Write;
use wgstress_model::fences::outcome::{FenceOutcome, FenceVerdict, Placement};
use wgstress_model::fences::patch::{Choice, Patch};

/// The kept barriers, each with its role and reason, then what the portable fix adds and why.
pub fn kept(out: &mut String, report: &FenceOutcome) {
    for k in &report.kept {
        let _ = writeln!(
            out,
            "  {}:{}:{}  site {} {} (in {})  {}",
            k.file, k.line, k.column, k.site, k.side, k.function, k.source
        );
        let mut why = Vec::new();
        if let Some(reason) = &k.reason {
            why.push(reason.clone());
        }
        if report.choice == Some(Choice::Portable) {
            why.push(if k.needed {
                "this adapter needed it".to_string()
            } else {
                "not needed on this adapter; for GPUs that cache or reorder loads".to_string()
            });
        }
        if !why.is_empty() {
            let _ = writeln!(out, "      {}", why.join("; "));
        }
    }
    let added = report.kept.iter().filter(|k| !k.needed).count();
    if report.choice == Some(Choice::Portable) && added > 0 {
        let _ = writeln!(
            out,
            "  this adapter needed only {} of these {}; the other side of each pair is for GPUs \
             whose loads can be served from a non-coherent cache or reordered: the WGSL \
             specification promises neither (`--minimal` keeps what this adapter needed)",
            report.kept.len() - added,
            report.kept.len()
        );
    }
    for missing in &report.missing {
        let _ = writeln!(out, "  no legal site: {missing}");
    }
}

/// What a clean verification bounds, next to the rate before.
pub fn bound(out: &mut String, report: &FenceOutcome) {
    let Some(bound) = report.bound else {
        return;
    };
    let before: (u64, u64) = report
        .before
        .iter()
        .fold((0, 0), |(f, r), b| (f + b.runs.failures, r + b.runs.runs));
    let rate_before = match before {
        (0, _) => String::new(),
        (failures, runs) => format!(
            "; before the fix, 1 run in {:.0} failed",
            runs as f64 / failures as f64
        ),
    };
    let _ = writeln!(
        out,
        "  no failure in {}: fewer than 1 run in {} fails with the fix (95% \
         confidence){rate_before}",
        count(bound.runs, "verification run", "verification runs"),
        bound.one_in()
    );
}

/// Each fix's time per run against the original's.
pub fn cost(out: &mut String, report: &FenceOutcome) {
    if let Some(why) = &report.cost_error {
        let _ = writeln!(out, "\ncost: not measured: {why}");
    }
    if report.cost.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\ncost (the application alone, no stress; median time per run over {}, the \
         middle half of the batches in brackets):",
        count(report.cost[0].batches, "batch", "batches")
    );
    let width = report.cost.iter().map(|c| c.of.len()).max().unwrap_or(0);
    for c in &report.cost {
        let _ = writeln!(
            out,
            "  {:<width$} {:>10.1} us [{:.1}, {:.1}]  {:+.1}%",
            c.of,
            c.seconds_per_run * 1e6,
            c.low * 1e6,
            c.high * 1e6,
            c.percent
        );
    }
    placements(out, report);
}

/// Where the portable fix's added barriers could go at several sites: which placement is
/// suggested, and why.
fn placements(out: &mut String, report: &FenceOutcome) {
    let Some(first) = report.placements.iter().find(|p| p.first) else {
        return;
    };
    let percent = |of: &str| report.cost.iter().find(|c| c.of == of).map(|c| c.percent);
    let sites = |p: &Placement| {
        let s: Vec<String> = p.sites.iter().map(ToString::to_string).collect();
        s.join(", ")
    };
    let _ = writeln!(
        out,
        "placement: {} of the portable fix fence the same pairs (an added barrier at \
         another site of its window), timed above",
        count(report.placements.len(), "placement", "placements")
    );
    let checked = report.placements.iter().find(|p| p.checked.is_some());
    match (report.placements.iter().find(|p| p.chosen), checked) {
        (Some(chosen), Some(tried)) if !chosen.first => {
            let runs = count(tried.checked.as_ref().map_or(0, |m| m.runs), "run", "runs");
            let _ = writeln!(
                out,
                "  suggested: sites {} ({:+.1}%), cheaper than the analysis's own, sites {} \
                 ({:+.1}%); it passed {runs} under stress (a trial's, not the \
                 verification's: both hold the barriers this adapter needed)",
                sites(chosen),
                percent(&chosen.of).unwrap_or(f64::NAN),
                sites(first),
                percent(&first.of).unwrap_or(f64::NAN),
            );
        }
        (_, Some(tried)) => {
            let m = tried.checked.as_ref().expect("checked");
            let what = match m.failures {
                0 => format!(
                    "their check ended after {}, fewer than a trial's",
                    count(m.runs, "run", "runs")
                ),
                f => format!(
                    "they failed {f} of {} under stress",
                    count(m.runs, "run", "runs")
                ),
            };
            let _ = writeln!(
                out,
                "  sites {} were cheaper, but {what}: the analysis's own placement is suggested",
                sites(tried),
            );
        }
        (_, None) => {
            let _ = writeln!(
                out,
                "  none is cheaper than the analysis's own beyond the spread of its batches"
            );
        }
    }
}

/// The patches of a verified fix: an edit of each file it changes, or naga's rendering and
/// why.
pub fn patch(out: &mut String, report: &FenceOutcome) {
    if report.verdict != FenceVerdict::Fixed {
        return;
    }
    for file in &report.patches {
        match &file.patch {
            Patch::Source { changed_lines, .. } => {
                let _ = writeln!(
                    out,
                    "\npatch of {} ({}):",
                    file.file,
                    count(*changed_lines, "line changed", "lines changed")
                );
            }
            Patch::Rendered { why, .. } => {
                let _ = writeln!(
                    out,
                    "\npatch of {}: naga's rendering of the whole shader, as an edit of the \
                     file cannot express the fix: {why}",
                    file.file
                );
            }
        }
        let _ = writeln!(out, "{}", file.patch.diff());
    }
    for why in &report.unexpressed {
        let _ = writeln!(
            out,
            "\nno patch of {why} (the fix ran as naga writes each pass)"
        );
    }
}
