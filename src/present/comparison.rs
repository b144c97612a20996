//! The comparison table.

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
    let mut out = format!("{} on {} ({} rounds)\n", c.app, c.adapter, c.rounds);
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
        let _ = writeln!(
            out,
            "{:<20} {:>9} {:>9} {:>10} {:>10.1} {:>8} {:>11} {:>15.3}%  {}",
            label(row),
            s.failures,
            s.runs,
            super::numbers::percent(s.failure_rate),
            s.runs_per_second,
            row.iterations,
            first,
            s.reproducibility * 100.0,
            s.counts.failing()
        );
    }
    match &c.stopped {
        Some(Stop::Interrupted) => {
            let _ = writeln!(
                out,
                "note: interrupted: the numbers cover the runs that finished"
            );
        }
        Some(Stop::Aborted(reason)) => {
            let _ = writeln!(out, "aborted: {reason}");
        }
        None => {}
    }
    out
}
