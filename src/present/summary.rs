//! The human-readable summary of `wgstress run`.

use std::fmt::Write;
use wgstress_runtime::runner::Summary;

fn percent(x: f64) -> String {
    format!("{:.3}%", x * 100.0)
}

pub fn table(s: &Summary) -> String {
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
    row(
        "runs",
        format!(
            "{} in {:.2} s ({:.1} runs/s, {} per batch)",
            st.runs, st.seconds, st.runs_per_second, s.batch
        ),
    );
    row("outcomes", st.counts.to_string());
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
            row("replay", format!("--seed {} {}", f.seed, s.replay_options));
        }
        None => row("first failure", "none".into()),
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
    if s.interrupted {
        row(
            "note",
            "interrupted: the numbers cover the runs that finished".into(),
        );
    }
    if let Some(reason) = &s.aborted {
        row("aborted", reason.clone());
    }
    out
}
