//! The comparison table, then each failing configuration's failure rate with its interval, its
//! first failure and the options that replay it.

use crate::present::numbers::{count, percent};
use crate::present::style;
use std::fmt::Write;
use wgstress_model::run::stop::Stop;
use wgstress_model::run::summary::Comparison;
use wgstress_model::run::summary::RunSummary;

/// "systematic+shuffle": a configuration's name in the table and the chart.
pub fn label(row: &RunSummary) -> String {
    format!(
        "{}{}",
        row.strategy,
        if row.shuffle { "+shuffle" } else { "" }
    )
}

pub fn table(c: &Comparison) -> String {
    let mut out = format!(
        "{} on {} ({})\n",
        c.app,
        c.adapter,
        count(c.rounds, "round", "rounds")
    );
    let _ = writeln!(
        out,
        "{:<20} {:>9} {:>9} {:>10} {:>10} {:>8} {:>11} {:>16}  failing as",
        "strategy", "failures", "runs", "rate", "runs/s", "iters", "first fail", "reproducibility"
    );
    for row in &c.rows {
        let s = &row.stats;
        let first = s
            .time_to_first_failure
            .map_or("-".into(), |t| format!("{t:.2} s"));
        let failed = s.failures > 0;
        let failing = s.counts.failing();
        let _ = writeln!(
            out,
            "{:<20} {} {:>9} {:>10} {:>10.1} {:>8} {:>11} {:>16}  {}",
            label(row),
            style::verdict(failed, format!("{:>9}", s.failures)),
            s.runs,
            percent(s.failure_rate),
            s.runs_per_second,
            row.iterations,
            first,
            percent(s.reproducibility),
            if failed {
                style::fail(failing)
            } else {
                failing
            }
        );
    }
    failing_rows(&mut out, c);
    match &c.stopped {
        Some(Stop::Interrupted) => {
            let _ = writeln!(
                out,
                "{}",
                style::doubt("note: interrupted: the numbers cover the runs that finished")
            );
        }
        Some(Stop::Aborted(reason)) => {
            let _ = writeln!(out, "{}", style::fail(format!("aborted: {reason}")));
        }
        None => {}
    }
    out
}

/// Per configuration that failed: its rate and interval, its first failure, and the options
/// that replay it (with `wgstress run` and the application's own options).
fn failing_rows(out: &mut String, c: &Comparison) {
    let failing: Vec<&RunSummary> = c.rows.iter().filter(|r| r.stats.failures > 0).collect();
    if failing.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nfailing configurations (replay: `wgstress run` with the application's options and \
         these)"
    );
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "  {key:<18} {value}");
    };
    for r in failing {
        let s = &r.stats;
        row(&label(r), crate::run::run_summary::failure_rate(s));
        if let Some(f) = &s.first_failure {
            row("first failure", crate::run::run_summary::first_failure(f));
            row("replay", crate::run::run_summary::replay(f));
        }
    }
}
