//! ddmin's oracle on a lab: each trial runs the application with barriers at a set of
//! sites (on the variable made atomic, if any) until its first failure or the runs a pass
//! needs. Ctrl-C or an error ends the trials: every later trial fails at once without
//! running, and `stopped` says why; a search that saw one has found nothing more. Past the
//! search's deadline a trial fails at once too (its sites are kept), and so do one that
//! reaches the deadline before its runs and one that would, at the pace of the trials so
//! far: `out_of_time` says so.

use crate::lab::{FixSet, Lab, Subject};
use crate::trial::{Oracle, Trial};
use std::time::Instant;
use wgstress_model::event::SearchEvent;
use wgstress_model::reporter::Reporter;
use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::run::stop::Stop;
use wgstress_model::stress::params::run_seed;

/// A trial asked: its set, the variables atomic in it, and what it saw.
#[derive(Clone, Debug)]
pub(crate) struct Asked {
    pub sites: Vec<usize>,
    pub atomic: Vec<String>,
    pub trial: Trial,
    /// A run failed: certain evidence against the set (a trial that fails without one was
    /// cut short by the deadline or a stop).
    pub run_failed: bool,
}

pub struct Trials<'a, L: Lab + ?Sized> {
    lab: &'a mut L,
    atomic: Vec<String>,
    /// Its master seed is the trials' stream: trial i draws its runs from seed i.
    config: &'a RunConfig,
    reporter: &'a mut dyn Reporter,
    /// Trials asked, and their runs.
    pub trials: u64,
    pub runs: u64,
    /// Seconds the trials' runs took (building their programs aside).
    pub seconds: f64,
    pub stopped: Option<Stop>,
    deadline: Instant,
    /// Seconds a run is expected to take until the trials have run some: the confirming
    /// runs' pace.
    pace: f64,
    /// The deadline kept a trial from its runs.
    pub out_of_time: bool,
    /// Every trial asked, in order.
    pub(crate) asked: Vec<Asked>,
}

impl<'a, L: Lab + ?Sized> Trials<'a, L> {
    pub fn new(
        lab: &'a mut L,
        atomic: Vec<String>,
        config: &'a RunConfig,
        reporter: &'a mut dyn Reporter,
        deadline: Instant,
        pace: f64,
    ) -> Trials<'a, L> {
        Trials {
            lab,
            atomic,
            config,
            reporter,
            trials: 0,
            runs: 0,
            seconds: 0.0,
            stopped: None,
            deadline,
            pace,
            out_of_time: false,
            asked: Vec::new(),
        }
    }

    /// The variables made atomic in the trials from now on.
    pub(crate) fn set_atomic(&mut self, atomic: Vec<String>) {
        self.atomic = atomic;
    }

    /// Whether `runs` would take past the deadline at the pace of the trials so far (before
    /// any, of the confirming runs). Such a trial is not started: cut short it could not
    /// pass, and its sites would be kept as they are when it fails, so its runs would only
    /// delay the verdict by seconds where trials are long.
    fn would_outlast_deadline(&self, runs: u64) -> bool {
        let pace = match self.runs {
            0 => self.pace,
            ran => self.seconds / ran as f64,
        };
        let left = self.deadline.saturating_duration_since(Instant::now());
        runs as f64 * pace > left.as_secs_f64()
    }

    /// The trial, and whether a run of it failed.
    fn run(&mut self, sites: &[usize], runs_needed: u64) -> (Trial, bool) {
        let fix = FixSet {
            atomic: self.atomic.clone(),
            sites: sites.to_vec(),
        };
        let budget = Budget {
            runs: Some(runs_needed),
            time: Some(self.deadline.saturating_duration_since(Instant::now())),
            failures: Some(1),
        };
        let seed = run_seed(self.config.master_seed, self.trials);
        let measured = self
            .lab
            .measure(Subject::Fix(&fix), self.config, &budget, seed);
        if let Ok(m) = &measured {
            self.seconds += m.seconds;
        }
        match measured {
            Ok(m) if m.stopped.is_some() => {
                self.stopped = m.stopped;
                (Trial::Fail { runs: m.runs }, false)
            }
            Ok(m) if m.failures > 0 => (Trial::Fail { runs: m.runs }, true),
            Ok(m) if m.runs < runs_needed => {
                self.out_of_time = true;
                (Trial::Fail { runs: m.runs }, false)
            }
            Ok(m) => (Trial::Pass { runs: m.runs }, false),
            Err(e) => {
                self.stopped = Some(Stop::Aborted(e.to_string()));
                (Trial::Fail { runs: 0 }, false)
            }
        }
    }
}

impl<L: Lab + ?Sized> Oracle for Trials<'_, L> {
    fn stopped(&self) -> bool {
        self.stopped.is_some() || self.out_of_time
    }

    fn upcoming(&mut self, sets: &[Vec<usize>]) {
        if self.stopped.is_some() || Instant::now() >= self.deadline {
            return;
        }
        let fixes: Vec<FixSet> = sets
            .iter()
            .map(|sites| FixSet {
                atomic: self.atomic.clone(),
                sites: sites.clone(),
            })
            .collect();
        self.lab.prepare(&fixes);
    }

    fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
        if self.stopped.is_some() {
            return Trial::Fail { runs: 0 };
        }
        if Instant::now() >= self.deadline || self.would_outlast_deadline(runs_needed) {
            self.out_of_time = true;
            return Trial::Fail { runs: 0 };
        }
        self.trials += 1;
        let (trial, run_failed) = self.run(sites, runs_needed);
        self.runs += trial.runs();
        self.asked.push(Asked {
            sites: sites.to_vec(),
            atomic: self.atomic.clone(),
            trial,
            run_failed,
        });
        let event = SearchEvent::Trial {
            sites: sites.len(),
            trial,
        };
        // A reporter that cannot take the trial's event stops the trials as an error does.
        if let Err(e) = self.reporter.emit(event.into()) {
            self.stopped.get_or_insert(Stop::Aborted(e.to_string()));
        }
        trial
    }
}
