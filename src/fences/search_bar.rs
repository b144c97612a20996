//! The fence search's progress: notes and a bar on stderr, fed by the search's events.

use crate::fanout::Subscriber;
use crate::notes::Notes;
use crate::present::numbers::count;
use crate::session::SessionPlan;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;
use wgstress_fences::Trial;
use wgstress_model::event::{EventKind, SearchEvent};
use wgstress_model::fences::outcome::quoted;

/// The search's notes and progress bar, from its events.
pub struct Progress {
    notes: Notes,
    /// Calibration's target ratio, when the iterations are measured.
    iterations: wgstress_runtime::run::stress_plan::Iterations,
    bar: Option<SearchBar>,
}

impl Progress {
    pub fn new(session: &SessionPlan, notes: Notes) -> Progress {
        Progress {
            notes,
            iterations: session.stress.iterations,
            bar: None,
        }
    }

    pub fn on_event(&mut self, event: SearchEvent) {
        let notes = self.notes;
        match event {
            SearchEvent::TryingOthers => notes.note(
                "no failure under systematic stress: trying cache, random and no stress in the \
                 other half of the budget",
            ),
            SearchEvent::Calibrated {
                settings,
                calibration,
            } => {
                if let Some(text) =
                    crate::present::bar::calibrated(settings, calibration, self.iterations)
                {
                    notes.note(&text);
                }
            }
            SearchEvent::Confirming { strategy, time } => notes.note(&format!(
                "confirming the failure: {:.0} s with {}",
                time.as_secs_f64(),
                strategy.stress()
            )),
            SearchEvent::Round {
                rate,
                strategy,
                runs_per_trial,
                sites,
            } => {
                notes.note(&format!(
                    "failure rate {} ({}): {}; {}",
                    crate::present::numbers::rate(rate),
                    strategy.stress(),
                    count(runs_per_trial, "run per trial", "runs per trial"),
                    count(sites, "candidate site", "candidate sites")
                ));
                self.bar = Some(SearchBar::new(sites, notes.on));
            }
            SearchEvent::MakeAtomic { kept: [] } => notes.note(
                "a barrier at every site still fails: trying make-atomic on every candidate variable together, then on the fewest that pass",
            ),
            SearchEvent::MakeAtomic { kept } => notes.note(&format!(
                "a barrier at every site still fails: keeping {} atomic, looking among the other \
                 variables for what the fix lacks, then for the barriers they need",
                quoted(kept)
            )),
            SearchEvent::Trial { sites, trial } => {
                if let Some(bar) = self.bar.as_mut() {
                    bar.trial(sites, trial);
                }
            }
            SearchEvent::TrialsDone => self.finish(),
            SearchEvent::Verifying {
                sites,
                time,
                strategy,
            } => notes.note(&format!(
                "verifying the fix ({}) for {:.0} s with {}",
                count(sites, "site", "sites"),
                time.as_secs_f64(),
                strategy.stress()
            )),
            SearchEvent::Refining {
                kept,
                rate,
                pooled,
            } => notes.note(&format!(
                "the fix kept {} and failed its verification: searching again with trials sized \
                 for a failure rate of {}{}",
                count(kept, "site", "sites"),
                crate::present::numbers::rate(rate),
                if pooled {
                    ", then for the rate that the round's failing sets holding the fix show"
                } else {
                    ""
                }
            )),
        }
    }

    /// Clears the bar, if one is drawn.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }
}

impl Subscriber for Progress {
    fn notice(&mut self, event: EventKind<'_>) {
        if let EventKind::Search(event) = event {
            self.on_event(event);
        }
    }

    fn finish(&mut self) {
        Progress::finish(self);
    }
}

/// The search's progress: the set each trial tried and the smallest set that passed so far.
pub struct SearchBar {
    bar: ProgressBar,
    sites: usize,
    trials: u64,
    smallest: Option<usize>,
}

impl SearchBar {
    /// A spinner on stderr over a search among `sites` candidate sites; hidden when `shown`
    /// is false (and by indicatif when stderr is not a terminal).
    pub fn new(sites: usize, shown: bool) -> SearchBar {
        let bar = if shown {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .expect("the template is valid"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        } else {
            ProgressBar::hidden()
        };
        SearchBar {
            bar,
            sites,
            trials: 0,
            smallest: None,
        }
    }

    /// One more trial, of a set of `size` sites.
    pub fn trial(&mut self, size: usize, trial: Trial) {
        self.trials += 1;
        if trial.passed() {
            self.smallest = Some(self.smallest.map_or(size, |s| s.min(size)));
        }
        self.bar.set_message(self.message(size, trial));
    }

    fn message(&self, size: usize, trial: Trial) -> String {
        let outcome = if trial.passed() { "passed" } else { "failed" };
        let smallest = self
            .smallest
            .map_or("none yet".to_string(), |s| count(s, "site", "sites"));
        format!(
            "trial {}: {size} of {} {outcome} in {}; smallest set passed: {smallest}",
            self.trials,
            count(self.sites, "site", "sites"),
            count(trial.runs(), "run", "runs")
        )
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_the_set_size_and_the_smallest_passing_set() {
        let mut bar = SearchBar::new(12, false);
        bar.trial(12, Trial::Pass { runs: 7 });
        bar.trial(6, Trial::Fail { runs: 2 });
        assert_eq!(
            bar.message(6, Trial::Fail { runs: 2 }),
            "trial 2: 6 of 12 sites failed in 2 runs; smallest set passed: 12 sites"
        );
        bar.trial(3, Trial::Pass { runs: 7 });
        assert!(bar
            .message(3, Trial::Pass { runs: 7 })
            .ends_with("smallest set passed: 3 sites"));
    }
}
