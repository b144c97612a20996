//! The human-readable summary of `wgstress run`.

use std::fmt::Write;
use wgstress_model::run::stop::Stop;
use wgstress_model::run::summary::{Ran, RunSummary};
use wgstress_model::run::tally::{Failure, RunCounts, Stats};
use wgstress_model::stress::strategy::Strategy;

/// Shapes listed in the summary (the most failing first).
const SHAPES_SHOWN: usize = 5;

use crate::present::numbers::{count, percent};
use crate::present::style;

pub fn table(s: &RunSummary) -> String {
    let st = &s.stats;
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("app", s.app.clone());
    row("adapter", s.adapter.clone());
    let on = |b: bool| if b { "on" } else { "off" };
    let shuffles = format!(
        "workgroup shuffle {}, buffer shuffle {}",
        on(s.shuffle),
        on(s.buffer_shuffle)
    );
    row(
        "strategy",
        match s.strategy {
            Ran::Stressed(Strategy::None) => format!("no stress, {shuffles}"),
            ran => format!(
                "{ran}, {shuffles}, {}",
                count(s.iterations, "stress iteration", "stress iterations")
            ),
        },
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
    row("outcomes", outcomes(&st.counts));
    if st.slow_waits > 0 {
        row("slow waits", slow_waits(st.slow_waits));
    }
    row("failure rate", failure_rate(st));
    if let Some(seed) = &s.replay {
        // A replay fixes the stress, the shuffles and the layout, not the GPU's scheduling:
        // how often the failure comes back is the measure of it.
        row(
            "replayed",
            format!(
                "seed {seed}: failed in {} of {} ({})",
                st.failures,
                count(st.runs, "run", "runs"),
                percent(st.failure_rate)
            ),
        );
    }
    match &st.first_failure {
        Some(f) => {
            row("first failure", first_failure(f));
            row("replay", replay(f));
        }
        None => row("first failure", style::pass("none")),
    }
    if s.shapes.len() > 1 {
        for (i, shape) in s.shapes.iter().take(SHAPES_SHOWN).enumerate() {
            row(
                if i == 0 { "stress shapes" } else { "" },
                format!(
                    "{} of {:>8} failed: {}",
                    style::verdict(shape.failures > 0, format!("{:>6}", shape.failures)),
                    shape.runs,
                    shape.shape
                ),
            );
        }
    }
    row(
        "reproducibility",
        format!(
            "{} that another {} at least once (1 - e^-{})",
            percent(st.reproducibility),
            match st.runs {
                1 => "run fails".to_string(),
                n => format!("{n} runs fail"),
            },
            st.failures
        ),
    );
    match &s.stopped {
        Some(Stop::Interrupted) => row(
            "note",
            style::doubt("interrupted: the numbers cover the runs that finished"),
        ),
        Some(Stop::Aborted(reason)) => row("aborted", style::fail(reason)),
        None => {}
    }
    out
}

/// "pass 95, postcondition 5": every outcome, the passes (if any) green and the failures that
/// occurred red.
pub(crate) fn outcomes(counts: &RunCounts) -> String {
    let pass = format!("pass {}", counts.pass);
    let mut text = if counts.pass > 0 {
        style::pass(pass)
    } else {
        pass
    };
    for (kind, n) in counts.failing_kinds() {
        let kind = format!("{kind} {n}");
        text.push_str(", ");
        text.push_str(&if n > 0 { style::fail(kind) } else { kind });
    }
    text
}

/// "5 of 100 = 5.000% (95% interval ...)", red when some run failed, green when none did.
pub(crate) fn failure_rate(st: &Stats) -> String {
    style::verdict(
        st.failures > 0,
        format!(
            "{} of {} = {} (95% interval {} .. {})",
            st.failures,
            st.runs,
            percent(st.failure_rate),
            percent(st.interval_95[0]),
            percent(st.interval_95[1])
        ),
    )
}

/// The first failing run: which, when, and what failed.
pub(crate) fn first_failure(f: &Failure) -> String {
    format!(
        "run {} after {:.3} s: {}",
        f.run,
        f.seconds,
        style::fail(&f.detail)
    )
}

/// The options that, added to the command's application options, replay `f` with `run`.
pub(crate) fn replay(f: &Failure) -> String {
    format!(
        "--seed {} {}",
        f.seed,
        crate::present::replay::options(&f.replay)
    )
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
