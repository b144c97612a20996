//! The live progress bar: fed by the runtime's events, drawn on stderr unless messages are off.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::stress::params::Settings;
use wgstress_runtime::run::runner::{Budget, RunEvent};
use wgstress_runtime::run::stress_plan::Iterations;

/// What calibration measured, as a note, when the iterations were measured rather than given.
pub fn calibrated(
    settings: &Settings,
    calibration: &Calibration,
    iterations: Iterations,
) -> Option<String> {
    if let Some(why) = &calibration.aborted {
        return Some(format!(
            "calibration stopped after {:.2} s: {why}",
            calibration.seconds
        ));
    }
    let Iterations::Measured { ratio } = iterations else {
        return None;
    };
    Some(format!(
        "{} stress: {} iterations per thread, calibrated in {:.2} s to last {ratio}x the application{}",
        settings.strategy,
        settings.iterations,
        calibration.seconds,
        if calibration.app_seconds.is_none() {
            " (no passing run of the application in time: the default count)"
        } else {
            ""
        }
    ))
}

pub struct Progress {
    bar: ProgressBar,
    /// Whether notes (a lost device) are printed.
    notes: bool,
    /// Whether the bar counts runs (a run budget) or seconds (a time budget).
    by_runs: bool,
    runs: u64,
    failures: u64,
    elapsed: Duration,
}

impl Progress {
    /// A bar over `budget`, or a hidden one when `shown` is false; `notes` says whether
    /// events worth a line (a lost device) get one.
    pub fn runs(budget: &Budget, shown: bool, notes: bool) -> Progress {
        let (len, template) = match (budget.runs, budget.time) {
            (Some(n), _) => (n, "{bar:40} {pos}/{len} runs, {per_sec}, eta {eta} {msg}"),
            (None, Some(t)) => (t.as_secs().max(1), "{bar:40} {pos}/{len} s, {msg}"),
            (None, None) => (0, "{pos} runs {msg}"),
        };
        Progress {
            bar: bar(len, template, shown),
            notes,
            by_runs: budget.runs.is_some(),
            runs: 0,
            failures: 0,
            elapsed: Duration::ZERO,
        }
    }

    /// A bar over the `cells` of a tune.
    pub fn cells(cells: u64, shown: bool) -> Progress {
        let template = "{bar:40} {pos}/{len} cells, {elapsed} so far, about {eta} left";
        Progress {
            bar: bar(cells, template, shown),
            notes: shown,
            by_runs: true,
            runs: 0,
            failures: 0,
            elapsed: Duration::ZERO,
        }
    }

    pub fn on_event(&mut self, event: RunEvent) {
        match event {
            RunEvent::Batch {
                runs,
                failures,
                elapsed,
            } => {
                self.runs += runs;
                self.failures += failures;
                self.elapsed += elapsed;
                self.bar.set_position(if self.by_runs {
                    self.runs
                } else {
                    self.elapsed.as_secs()
                });
                self.bar.set_message(format!("failures: {}", self.failures));
            }
            RunEvent::DeviceLost(message) => {
                if self.notes {
                    let line = format!("wgstress: device lost ({message}); recreating it");
                    self.bar.suspend(|| eprintln!("{line}"));
                }
            }
        }
    }

    /// One more tune cell done.
    pub fn cell(&mut self) {
        self.bar.inc(1);
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

fn bar(len: u64, template: &str, shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
    bar
}
