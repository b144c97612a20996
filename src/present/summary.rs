//! The human-readable summary of `wgstress run`.

use std::fmt::Write;
use wgstress_model::run::stop::Stop;
use wgstress_model::run::summary::{Ran, RunSummary};

/// Shapes listed in the summary (the most failing first).
const SHAPES_SHOWN: usize = 5;

use super::numbers::percent;

pub fn table(s: &RunSummary) -> String {
    let st = &s.stats;
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("app", s.app.clone());
    row("adapter", s.adapter.clone());
    let on = |b: bool| if b { "on" } else { "off" };
    row(
        "strategy",
        format!(
            "{}, workgroup shuffle {}, buffer shuffle {}, {} stress iterations",
            s.strategy,
            on(s.shuffle),
            on(s.buffer_shuffle),
            s.iterations
        ),
    );
    if let Some(c) = &s.calibration {
        let app = c.app_seconds.map_or("no passing run in time".into(), |t| {
            format!("{:.3} ms a run", t * 1e3)
        });
        row(
            "calibration",
            format!("{:.2} s (application alone: {app})", c.seconds),
        );
    }
    let longest = s.longest_passing_loop.map_or(String::new(), |n| {
        format!("; the longest loop of a passing run: {n}")
    });
    row(
        "loop limit",
        if s.strategy == Ran::Raw {
            "none: a raw run has no watchdog".to_string()
        } else {
            format!(
                "{} iterations ({}{longest})",
                s.loop_limit,
                if s.loop_limit_learned {
                    "learned from passing runs"
                } else {
                    "not learned"
                }
            )
        },
    );
    if let Some(warning) = &s.loop_limit_warning {
        row("warning", warning.clone());
    }
    row(
        "runs",
        format!(
            "{} in {:.2} s ({:.1} runs/s, up to {} per batch)",
            st.runs, st.seconds, st.runs_per_second, s.batch
        ),
    );
    row("outcomes", st.counts.to_string());
    if st.slow_waits > 0 {
        row("slow waits", slow_waits(st.slow_waits));
    }
    row(
        "failure rate",
        format!(
            "{} of {} = {} (95% interval {} .. {})",
            st.failures,
            st.runs,
            percent(st.failure_rate),
            percent(st.interval_95[0]),
            percent(st.interval_95[1])
        ),
    );
    if let Some(seed) = &s.replay {
        // A replay fixes the stress, the shuffles and the layout, not the GPU's scheduling:
        // how often the failure comes back is the measure of it.
        row(
            "replayed",
            format!(
                "seed {seed}: failed in {} of {} runs ({})",
                st.failures,
                st.runs,
                percent(st.failure_rate)
            ),
        );
    }
    match &st.first_failure {
        Some(f) => {
            row(
                "first failure",
                format!("run {} after {:.3} s: {}", f.run, f.seconds, f.detail),
            );
            let options = super::replay::options(&f.replay);
            row("replay", format!("--seed {} {options}", f.seed));
        }
        None => row("first failure", "none".into()),
    }
    if s.shapes.len() > 1 {
        for (i, shape) in s.shapes.iter().take(SHAPES_SHOWN).enumerate() {
            row(
                if i == 0 { "stress shapes" } else { "" },
                format!(
                    "{:>6} failures in {:>8} runs: {}",
                    shape.failures, shape.runs, shape.shape
                ),
            );
        }
    }
    row(
        "reproducibility",
        format!(
            "{} that another {} runs fail at least once (1 - e^-{})",
            percent(st.reproducibility),
            st.runs,
            st.failures
        ),
    );
    match &s.stopped {
        Some(Stop::Interrupted) => row(
            "note",
            "interrupted: the numbers cover the runs that finished".into(),
        ),
        Some(Stop::Aborted(reason)) => row("aborted", reason.clone()),
        None => {}
    }
    out
}

/// The summary's line for runs whose suspected hang the host did not confirm.
pub(crate) fn slow_waits(n: u64) -> String {
    let runs = if n == 1 {
        "1 run"
    } else {
        &format!("{n} runs")
    };
    format!(
        "{runs} stalled or had a loop ended by the driver, then ended by {} when run again: \
         a wait the device did not give the time it needed (on a CPU driver, a thread the \
         operating system did not run), counted by that run's outcome, not as a hang",
        if n == 1 { "itself" } else { "themselves" }
    )
}
