//! The table of `wgstress progress APP`.

use crate::present::style;
use wgstress_model::run::progress_verdict::{ModelResult, ProgressReport, ProgressVerdict};
use wgstress_model::run::stop::Stop;

pub fn table(report: &ProgressReport) -> String {
    let mut out = format!(
        "app       {}\nadapter   {}\n\n{:<14} {:<13} {:>6} {:>8} {:>8}  the wait that starves\n",
        report.app, report.adapter, "model", "verdict", "runs", "starved", "failed"
    );
    for r in report.models.iter().chain(&report.occupancy) {
        out.push_str(&row(r));
    }
    out.push_str(&format!("\nneeds     {}\n", report.needs.meaning));
    match &report.stopped {
        Some(Stop::Aborted(why)) => out.push_str(&format!(
            "aborted   {}\n",
            style::fail(format!("{why}; the models after it did not run"))
        )),
        Some(Stop::Interrupted) => out.push_str(&format!(
            "{}\n",
            style::doubt("interrupted: the models after it did not run")
        )),
        None => {}
    }
    if let Some(n) = report.needs_occupancy {
        out.push_str(&format!(
            "          and room for at least {} at once: it starved with fewer\n",
            crate::present::numbers::count(n, "workgroup", "workgroups")
        ));
    }
    let replays: Vec<&ModelResult> = report
        .models
        .iter()
        .chain(&report.occupancy)
        .filter(|r| r.replay.is_some())
        .collect();
    if !replays.is_empty() {
        out.push_str("\nreplay\n");
        for r in replays {
            out.push_str(&format!(
                "  {:<12} {}\n",
                name(r),
                r.replay.as_deref().unwrap_or_default()
            ));
        }
    }
    out
}

fn name(r: &ModelResult) -> String {
    match r.occupancy {
        Some(n) => format!("occupancy {n}"),
        None => r.model.to_string(),
    }
}

fn row(r: &ModelResult) -> String {
    let verdict = format!("{:<13}", r.verdict.name());
    let mut out = format!(
        "{:<14} {} {:>6} {:>8} {:>8}  {}\n",
        name(r),
        match r.verdict {
            ProgressVerdict::Terminates => style::pass(verdict),
            ProgressVerdict::Starves => style::fail(verdict),
            ProgressVerdict::Inconclusive => style::doubt(verdict),
        },
        r.runs,
        r.starved_runs,
        r.other_failures,
        r.wait.as_deref().unwrap_or("-")
    );
    if let Some(why) = &r.unsettled {
        out.push_str(&format!("{:<14} why: {why}\n", ""));
    } else if let Some(holds) = &r.holds {
        out.push_str(&format!("{:<14} holds: {holds}\n", ""));
    }
    out
}
