//! Trials on a device: each set of fences runs as the application recompiled with a plain
//! `storageBarrier()` at the set's sites, through the runner's batches and pacing.
//!
//! One pipeline with a guarded barrier at every site (an earlier design, each run's uniform
//! mask picking the set) would save the compiles, but on lavapipe a barrier under a
//! uniform branch that is not taken still suspends the workgroup's threads there, so every
//! guard orders memory whatever the mask: an application that fails without barriers
//! passed with the guards all off. A compiled set fences only where it says.

use super::trial::{Oracle, Trial};
use crate::engine::Engine;
use crate::error::Result;
use crate::loop_limit::LoopLimit;
use crate::pace::Pace;
use crate::runner::{run_into, Budget, RunConfig, Stream};
use crate::spec::App;
use crate::strategy::run_seed;
use std::time::Duration;
use wgstress_instrument::fences::{fenced_at_atomic, Patched};

/// How to build the application's engine with a set of fences.
#[derive(Clone)]
pub struct Fencing {
    pub app: App,
    pub adapter: Option<String>,
    pub batch: usize,
    pub scratch_words: u32,
    /// How long a batch may run before it counts as hung.
    pub timeout: Duration,
    /// A fixed watchdog loop limit; else each engine starts from `learned` and learns on.
    pub watchdog_limit: Option<u32>,
    /// The loop limit the confirming runs learned. A fresh engine would start at the
    /// ceiling: on the H100, tpo-tm's stalled runs there outlasted the hang timeout in the
    /// search's first trials.
    pub learned: Option<LoopLimit>,
    /// A variable made atomic under the fences (`make_atomic_rmw`: its read-modify-writes
    /// fused into atomic operations); the sites are then those of the rewritten module.
    pub atomic: Option<String>,
}

impl Fencing {
    /// This fencing with `variable` made atomic.
    pub fn with_atomic(&self, variable: &str) -> Fencing {
        Fencing {
            atomic: Some(variable.to_string()),
            ..self.clone()
        }
    }

    /// The application's source with a barrier at `sites` (and its candidate sites).
    pub fn patch(&self, sites: &[usize]) -> Result<Patched> {
        let options = wgstress_instrument::Options {
            entry: self.app.entry.clone(),
            postcondition: self.app.postcondition.clone(),
            file_name: Some(self.app.shader_path.clone()),
            ..Default::default()
        };
        let chosen: Vec<u32> = sites.iter().map(|s| *s as u32).collect();
        Ok(fenced_at_atomic(
            &self.app.source,
            &options,
            self.atomic.as_deref(),
            &chosen,
        )?)
    }

    /// An engine running the application with a barrier at `sites`.
    pub fn engine(&self, sites: &[usize]) -> Result<Engine> {
        let patched = self.patch(sites)?;
        let app = App {
            source: patched.wgsl,
            postcondition: patched.postcondition,
            ..self.app.clone()
        };
        let mut engine = Engine::new(app, self.adapter.as_deref(), self.batch, self.scratch_words)?;
        engine.timeout = self.timeout;
        if let Some(limit) = self.watchdog_limit {
            engine.loop_limit = LoopLimit::fixed(limit);
        } else if let Some(learned) = &self.learned {
            engine.loop_limit = learned.clone();
        }
        Ok(engine)
    }
}

/// What runs with one set of fences saw.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Measured {
    pub runs: u64,
    pub failures: u64,
    pub seconds: f64,
    /// Why the runs ended early, if an error (a hang, a lost device) ended them.
    pub aborted: Option<String>,
}

/// Runs `engine` under `config` until `budget` is spent, drawing seeds from `master_seed`.
pub fn measure(
    engine: &mut Engine,
    config: &RunConfig,
    budget: &Budget,
    master_seed: u64,
) -> Result<Measured> {
    measure_paced(engine, config, budget, master_seed, None).map(|(m, _)| m)
}

/// `measure`, with batches sized from `pace` (what earlier runs of the application taught),
/// returning what these runs taught it.
pub fn measure_paced(
    engine: &mut Engine,
    config: &RunConfig,
    budget: &Budget,
    master_seed: u64,
    pace: Option<Pace>,
) -> Result<(Measured, Pace)> {
    let config = RunConfig {
        master_seed,
        ..config.clone()
    };
    let mut stream = Stream::new(&config, engine.batch_size());
    if let Some(pace) = pace {
        stream.pace = pace;
    }
    let aborted = run_into(engine, &config, budget, &mut stream, None, &mut |_| {})?;
    let measured = Measured {
        runs: stream.tally.runs,
        failures: stream.tally.failures(),
        seconds: stream.wall.as_secs_f64(),
        aborted,
    };
    Ok((measured, stream.pace))
}

/// The oracle of the search on a device. An error or an interruption ends the search:
/// every later trial fails at once without running, and `aborted` says why; a search that
/// saw one has found nothing.
pub struct Runs<'a> {
    pub fencing: &'a Fencing,
    pub config: RunConfig,
    /// Trials so far: each draws its seeds from its own stream.
    pub trials: u64,
    pub aborted: Option<String>,
    /// Called after each trial with the sites it tried and what it saw (for progress).
    pub on_trial: &'a mut dyn FnMut(&[usize], Trial),
    /// The last set's engine: a pass is confirmed by a second trial of the same set.
    last: Option<(Vec<usize>, Engine)>,
    /// Batch sizes learned over the trials: each trial is short, and one that started over
    /// at a batch of one run would grow eightfold before it saw a stalled run.
    pace: Option<Pace>,
}

impl<'a> Runs<'a> {
    pub fn new(
        fencing: &'a Fencing,
        config: RunConfig,
        on_trial: &'a mut dyn FnMut(&[usize], Trial),
    ) -> Runs<'a> {
        Runs {
            fencing,
            config,
            trials: 0,
            aborted: None,
            on_trial,
            last: None,
            pace: None,
        }
    }

    fn run(&mut self, sites: &[usize], runs_needed: u64) -> Result<Measured> {
        if self.last.as_ref().is_none_or(|(set, _)| set != sites) {
            self.last = Some((sites.to_vec(), self.fencing.engine(sites)?));
        }
        let (_, engine) = self.last.as_mut().expect("just built");
        let budget = Budget {
            runs: Some(runs_needed),
            time: None,
            failures: Some(1),
        };
        let seed = run_seed(self.config.master_seed, self.trials);
        let (measured, pace) =
            measure_paced(engine, &self.config, &budget, seed, self.pace.take())?;
        self.pace = Some(pace);
        Ok(measured)
    }

    /// What the trials taught about batch sizes, for the verification's runs.
    pub fn take_pace(&mut self) -> Option<Pace> {
        self.pace.take()
    }

    fn interrupted(&self) -> bool {
        self.config.stop.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Oracle for Runs<'_> {
    fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
        if self.aborted.is_some() {
            return Trial::Fail { runs: 0 };
        }
        self.trials += 1;
        let trial = match self.run(sites, runs_needed) {
            Ok(m) if m.aborted.is_none() && !self.interrupted() => {
                if m.failures > 0 {
                    Trial::Fail { runs: m.runs }
                } else {
                    Trial::Pass { runs: m.runs }
                }
            }
            Ok(m) => {
                self.aborted = Some(m.aborted.unwrap_or_else(|| "interrupted".into()));
                Trial::Fail { runs: m.runs }
            }
            Err(e) => {
                self.aborted = Some(e.to_string());
                Trial::Fail { runs: 0 }
            }
        };
        (self.on_trial)(sites, trial);
        trial
    }
}
