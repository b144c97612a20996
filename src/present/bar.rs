//! The live progress bar: fed by the run loop's events, drawn on stderr unless messages are off.

use super::numbers::count;
use crate::fanout::Subscriber;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;
use wgstress_model::event::{EventKind, RunEvent};
use wgstress_model::run::calibration::Calibration;
use wgstress_model::stress::params::Settings;
use wgstress_runtime::run::runner::Budget;
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
        "{}: {} per thread, calibrated in {:.2} s to last {ratio}x the application{}{}",
        settings.strategy.stress(),
        super::numbers::count(settings.iterations, "iteration", "iterations"),
        calibration.seconds,
        if calibration.app_seconds.is_none() {
            " (no passing run of the application in time: the default count)"
        } else {
            ""
        },
        match calibration.timeout_seconds {
            Some(t) => format!(
                "; hang timeout {t:.0} s, four times its longest stressed run (--timeout fixes it)"
            ),
            None => String::new(),
        }
    ))
}

pub struct Progress {
    bar: ProgressBar,
    /// Whether notes (a lost device) are printed.
    notes: bool,
    /// What the bar's position counts.
    measure: Measure,
    runs: u64,
    failures: u64,
}

/// A bar over a run budget counts runs; one over a time budget the seconds since the runs
/// began, by the clock, so that it ends at its length when the budget does (the runs' own
/// time leaves out what the host does between batches, and fell short of it).
enum Measure {
    Runs,
    Time {
        started: Instant,
        seconds: u64,
    },
    /// A budget of failures alone: runs are counted, with no end in sight.
    Open,
}

impl Progress {
    /// A bar over `budget`, or a hidden one when `shown` is false; `notes` says whether
    /// events worth a line (a lost device) get one.
    pub fn runs(budget: &Budget, shown: bool, notes: bool) -> Progress {
        let (len, template, measure) = match (budget.runs, budget.time) {
            (Some(n), _) => (
                n,
                "{bar:40} {pos}/{len} runs, {per_sec}, eta {eta} {msg}",
                Measure::Runs,
            ),
            (None, Some(t)) => {
                // Rounded up: a budget of 0.5 s is a bar of 1 s, which its end fills.
                let seconds = t.as_secs_f64().ceil().max(1.0) as u64;
                let measure = Measure::Time {
                    started: Instant::now(),
                    seconds,
                };
                (seconds, "{bar:40} {pos}/{len} s, {msg}", measure)
            }
            (None, None) => (0, "{pos} runs {msg}", Measure::Open),
        };
        Progress {
            bar: bar(len, template, shown),
            notes,
            measure,
            runs: 0,
            failures: 0,
        }
    }

    /// A bar over the `cells` of a tune.
    pub fn cells(cells: u64, shown: bool) -> Progress {
        let template = "{bar:40} {pos}/{len} cells, {elapsed} so far, about {eta} left";
        Progress {
            bar: bar(cells, template, shown),
            notes: shown,
            measure: Measure::Runs,
            runs: 0,
            failures: 0,
        }
    }

    pub fn on_event(&mut self, event: RunEvent) {
        match event {
            RunEvent::Batch(batch) => {
                self.runs += batch.runs as u64;
                self.failures += batch.failures.len() as u64;
                self.bar.set_position(self.position());
                self.bar.set_message(self.message());
            }
            RunEvent::DeviceLost(message) => {
                if self.notes {
                    let line = format!("wgstress: device lost ({message}); recreating it");
                    self.bar.suspend(|| eprintln!("{line}"));
                }
            }
            // The log's other lines: the command shows its summary once the bar is cleared.
            RunEvent::Start(_)
            | RunEvent::CompareStart(_)
            | RunEvent::Summary(_)
            | RunEvent::CompareSummary(_) => {}
        }
    }

    /// The bar's position: runs, or whole seconds since the runs began (rounded, as the
    /// runner stops short of the budget's end by less than a run), at most the budget's.
    fn position(&self) -> u64 {
        match self.measure {
            Measure::Runs | Measure::Open => self.runs,
            Measure::Time { started, seconds } => {
                (started.elapsed().as_secs_f64().round() as u64).min(seconds)
            }
        }
    }

    /// "failures: 3" after a run budget's bar (which counts the runs), "120 runs, 3
    /// failures" after a time budget's; the failures red once there are some.
    fn message(&self) -> String {
        let failures = match self.measure {
            Measure::Time { .. } => format!(
                "{}, {}",
                count(self.runs, "run", "runs"),
                count(self.failures, "failure", "failures")
            ),
            Measure::Runs | Measure::Open => format!("failures: {}", self.failures),
        };
        if self.failures > 0 && crate::colour::stderr() {
            super::style::fail(failures)
        } else {
            failures
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

impl Subscriber for Progress {
    fn notice(&mut self, event: EventKind<'_>) {
        if let EventKind::Run(event) = event {
            self.on_event(event);
        }
    }

    fn finish(&mut self) {
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
