//! The search's lab on a device: each fix runs as the application recompiled with a plain
//! `storageBarrier()` at its sites (after its variable was made atomic), through the runner's
//! batches and pacing.
//!
//! One pipeline with a guarded barrier at every site (an earlier design, each run's uniform
//! mask picking the set) would save the compiles, but on lavapipe a barrier under a
//! uniform branch that is not taken still suspends the workgroup's threads there, so every
//! guard orders memory whatever the mask: an application that fails without barriers
//! passed with the guards all off. A compiled set fences only where it says.

use super::ahead::{threads_here, Ahead, Job};
use super::parts::rewritten;
use crate::app::spec::App;
use crate::error::{Result, RuntimeError};
use crate::gpu::device::{patiently, Gpu};
use crate::gpu::engine::{Engine, EngineConfig, LoopStart, Mode};
use crate::run::pace::Pace;
use crate::run::runner::{run_into, Budget, RunConfig, Stream};
use crate::run::stress_plan::StressPlan;
use std::time::{Duration, Instant};
use wgstress_fences::lab::{FixSet, Lab, Subject};
use wgstress_fences::rewrite::Rewrite;
use wgstress_fences::source::AppSource;
use wgstress_model::fences::measured::Measured;
use wgstress_model::reporter::Silent;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::run::loop_limit::LoopLimit;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::stress::params::{RunParams, Settings, StressShape};
use wgstress_model::stress::strategy::Strategy;

/// What a fixed engine was built from.
#[derive(Clone, Debug, PartialEq)]
enum Built {
    /// A fix the instrumenter placed.
    Fix(FixSet),
    /// The parts' text rewritten (a source patch).
    Rewrite(Rewrite),
    /// The application's other build.
    Reference,
}

/// The application on a device, as is and with fixes.
pub struct GpuLab {
    /// The application as is, and as the search's parts.
    app: App,
    shader: AppSource,
    /// Another build of the application whose cost is worth comparing (a bundled
    /// application's hand-written fixed variant).
    reference: Option<App>,
    config: EngineConfig,
    stress: StressPlan,
    shape: StressShape,
    /// The application as is, for the confirming runs; dropped when the first fix runs, its
    /// learned loop limit carried over.
    engine: Option<Engine>,
    /// The last fix's engine: a pass is confirmed by a second trial of the same set.
    last: Option<(Built, Engine)>,
    /// Batch sizes learned over the runs of fixes: each trial is short, and one that started
    /// over at a batch of one run would grow eightfold before it saw a stalled run; the
    /// verification starts from what the trials learned (starting over, a verification draws
    /// several stalled runs into an early batch where runs the watchdog stops take seconds,
    /// and outlasts the hang timeout).
    pace: Option<Pace>,
    /// The device every engine is built on, while it is not lost (`Engine::on`).
    gpu: Option<Gpu>,
    /// Engines of the fixes the search may try next, built on other threads, and how many
    /// of them a trial ran.
    ahead: Ahead<Engine>,
    taken_ahead: u64,
}

/// Device memory the engines built ahead may hold together: each has the application's
/// buffers and a scratchpad of its own.
const AHEAD_BYTES: u64 = 1 << 30;

impl GpuLab {
    /// Opens the device and builds the application as is; systematic stress takes `shape`.
    pub fn open(
        shader: AppSource,
        app: App,
        config: EngineConfig,
        stress: StressPlan,
        shape: StressShape,
    ) -> Result<GpuLab> {
        let engine = Engine::new(app, &config)?;
        Ok(GpuLab::with_engine(shader, config, stress, shape, engine))
    }

    /// A lab over an engine already built from `shader`'s application with `config`.
    pub fn with_engine(
        shader: AppSource,
        config: EngineConfig,
        stress: StressPlan,
        shape: StressShape,
        engine: Engine,
    ) -> GpuLab {
        GpuLab {
            app: engine.app().clone(),
            shader,
            reference: None,
            config,
            stress,
            shape,
            gpu: Some(engine.gpu().clone()),
            engine: Some(engine),
            last: None,
            pace: None,
            ahead: Ahead::new(threads_here()),
            taken_ahead: 0,
        }
    }

    /// The lab with another build of the application to time beside the fixes, if any.
    pub fn with_reference(self, reference: Option<App>) -> GpuLab {
        GpuLab { reference, ..self }
    }

    /// The engine built last: the application as is until the first fix runs, then the
    /// last fix's.
    fn current(&self) -> Option<&Engine> {
        match (&self.engine, &self.last) {
            (Some(engine), _) | (None, Some((_, engine))) => Some(engine),
            (None, None) => None,
        }
    }

    /// Trials that ran an engine built ahead, while others ran.
    pub fn built_ahead(&self) -> u64 {
        self.taken_ahead
    }

    /// The configuration of a fix's engine: its watchdog starts from what the application's
    /// runs taught (a fresh engine would start at the ceiling, where stalled runs of an
    /// application such as tpo-tm outlast the hang timeout), fixed at the
    /// first fix, when the application as is stops running.
    fn fix_config(&mut self) -> EngineConfig {
        self.config = self.fix_config_now();
        self.config.clone()
    }

    /// `fix_config` as it would be now, fixing nothing: an engine built ahead has its
    /// watchdog's start replaced when it is taken.
    fn fix_config_now(&self) -> EngineConfig {
        let mut config = self.config.clone();
        if let (LoopStart::Learn, Some(engine)) = (&config.loop_limit, &self.engine) {
            config.loop_limit = LoopStart::From(engine.loop_limit().clone());
        }
        config
    }

    /// The engine for `fix`: the last one if it ran the same fix, else the one built ahead
    /// for it, else a new one (`fix_config`).
    fn fixed(&mut self, subject: Subject) -> Result<&mut Engine> {
        let built = match subject {
            Subject::Fix(fix) => Built::Fix(fix.clone()),
            Subject::Patched(_, rewrite) => Built::Rewrite(rewrite.clone()),
            Subject::Reference => Built::Reference,
            Subject::AsIs => unreachable!("the application as is has its own engine"),
        };
        if self.last.as_ref().is_none_or(|(b, _)| *b != built) {
            let config = self.fix_config();
            self.engine = None;
            self.last = None;
            let ahead = match subject {
                Subject::Fix(fix) => self.ahead.take(fix),
                _ => {
                    self.ahead.let_go();
                    None
                }
            };
            // A build ahead that failed is built again here, where its error is reported.
            let engine = match ahead {
                Some(Ok(mut engine)) => {
                    // Built before the application's runs taught the watchdog all they did.
                    if let LoopStart::From(learned) = &config.loop_limit {
                        engine.loop_limit = learned.clone();
                    }
                    self.taken_ahead += 1;
                    engine
                }
                _ => self.build(subject, &config)?,
            };
            self.gpu = Some(engine.gpu().clone());
            self.last = Some((built, engine));
        }
        Ok(&mut self.last.as_mut().expect("just built").1)
    }

    /// An engine of what `subject` runs, on the lab's device: a fix the instrumenter placed
    /// runs as an edit of the parts parsed once, the others from their text.
    fn build(&mut self, subject: Subject, config: &EngineConfig) -> Result<Engine> {
        let (app, edited) = match subject {
            Subject::AsIs => (self.app.clone(), Vec::new()),
            Subject::Fix(fix) => (self.app.clone(), self.shader.edited(fix)?),
            Subject::Patched(_, rewrite) => {
                (rewritten(&self.app, &self.shader, rewrite), Vec::new())
            }
            Subject::Reference => (
                self.reference
                    .clone()
                    .expect("the search times a reference only where the lab has one"),
                Vec::new(),
            ),
        };
        let engine = patiently(|| Engine::edited(app.clone(), &edited, config, self.gpu.as_ref()))?;
        self.gpu = Some(engine.gpu().clone());
        Ok(engine)
    }
}

impl Lab for GpuLab {
    type Error = RuntimeError;

    fn names(&self) -> (String, String) {
        (
            self.app.name.clone(),
            self.current()
                .map_or_else(String::new, |e| e.gpu().describe()),
        )
    }

    fn loop_limit(&self) -> Option<&LoopLimit> {
        self.engine.as_ref().map(Engine::loop_limit)
    }

    fn settings(
        &mut self,
        strategy: Strategy,
        budget: &Budget,
    ) -> Result<(Settings, Option<Calibration>)> {
        let engine = self
            .engine
            .as_mut()
            .expect("stress is calibrated on the application as is, before any fix");
        self.stress
            .settings(engine, strategy, true, &self.shape, budget)
    }

    fn measure(
        &mut self,
        subject: Subject,
        config: &RunConfig,
        budget: &Budget,
        seed: u64,
    ) -> Result<Measured> {
        let config = RunConfig {
            master_seed: seed,
            ..config.clone()
        };
        let fixed = !matches!(subject, Subject::AsIs);
        let (engine, pace) = match subject {
            Subject::AsIs => (
                self.engine
                    .as_mut()
                    .expect("the application as is runs before any fix"),
                None,
            ),
            _ => {
                let pace = self.pace.take();
                (self.fixed(subject)?, pace)
            }
        };
        let mut stream = Stream::new(&config, engine.batch_size());
        if let Some(pace) = pace {
            stream.pace = pace;
        }
        let stopped = run_into(engine, &config, budget, &mut stream, &mut Silent)?;
        if fixed {
            self.pace = Some(stream.pace);
        }
        Ok(Measured {
            runs: stream.tally.runs,
            failures: stream.tally.failures(),
            watchdog: stream.tally.count(&RunOutcome::Watchdog),
            seconds: stream.wall.as_secs_f64(),
            stopped,
        })
    }

    fn prepare(&mut self, fixes: &[FixSet]) {
        let Some(gpu) = self.gpu.clone().filter(|gpu| !gpu.is_lost()) else {
            return;
        };
        let Some(per_engine) = self.current().map(Engine::bytes) else {
            return;
        };
        let held = (AHEAD_BYTES / per_engine.max(1)) as usize;
        let config = self.fix_config_now();
        let (shader, app) = (&self.shader, &self.app);
        self.ahead.want(fixes, held, |fix| {
            let edited = shader.edited(fix).ok()?;
            let (app, config, gpu) = (app.clone(), config.clone(), gpu.clone());
            // Not `patiently`: a build that fails is built again when its trial comes, and
            // one asked for in vain would hold the cost step up while it waited.
            let job: Job<Engine> =
                Box::new(move || Engine::edited(app, &edited, &config, Some(&gpu)));
            Some(job)
        });
    }

    fn has_reference(&self) -> bool {
        self.reference.is_some()
    }

    fn time_runs(&mut self, subjects: &[Subject], time: Duration) -> Result<Vec<Vec<f64>>> {
        // The device to itself: no build ahead compiles while runs are timed.
        self.ahead.clear();
        // The user's shaders as given, without stress: what the application itself costs.
        let config = EngineConfig {
            mode: Mode::Raw,
            ..self.config.clone()
        };
        self.engine = None;
        self.last = None;
        let mut engines = subjects
            .iter()
            .map(|s| self.build(*s, &config))
            .collect::<Result<Vec<Engine>>>()?;
        let settings = self.stress.unstressed();
        let draw = |engine: &Engine, runs: usize| -> Vec<RunParams> {
            (0..runs as u64)
                .map(|seed| RunParams::draw(seed, &settings, engine.app_groups()))
                .collect()
        };
        // A first short batch of each warms its pipelines up, is not counted, and says what a
        // run costs, which sizes the batches so that the rounds fit in `time`.
        let mut per_run = Vec::with_capacity(engines.len());
        for engine in &mut engines {
            let runs = draw(engine, WARM_UP_RUNS);
            let start = Instant::now();
            engine.run(&runs)?;
            per_run.push(start.elapsed().as_secs_f64() / WARM_UP_RUNS as f64);
        }
        let most = engines.iter().map(Engine::batch_size).min().unwrap_or(1);
        let batch = cost_batch(&per_run, time, most);
        let mut times = vec![Vec::new(); engines.len()];
        let until = Instant::now() + time;
        for round in 0.. {
            if round >= MIN_COST_BATCHES && Instant::now() >= until {
                break;
            }
            for (engine, times) in engines.iter_mut().zip(&mut times) {
                let runs = draw(engine, batch);
                let start = Instant::now();
                engine.run(&runs)?;
                times.push(start.elapsed().as_secs_f64() / batch as f64);
            }
        }
        Ok(times)
    }
}

/// Runs of each variant that warm it up before the cost step counts anything, and estimate
/// what a run costs: enough that a batch's own overhead is a small share of each.
const WARM_UP_RUNS: usize = 8;

/// Rounds of every variant the cost step's batches are sized for: enough batches for a median
/// and quartiles.
const COST_ROUNDS: f64 = 8.0;

/// Batches of each variant counted at least, however long they take.
const MIN_COST_BATCHES: usize = 4;

/// Runs per batch for variants whose runs take `per_run` seconds each, so that `COST_ROUNDS`
/// rounds of all of them fit in `time`: at least one, at most `most`. Whole batches of slow
/// variants would overrun `--cost` several times over (docs/fences.md).
fn cost_batch(per_run: &[f64], time: Duration, most: usize) -> usize {
    let most = most.max(1);
    let round: f64 = per_run.iter().sum();
    if !(round.is_finite() && round > 0.0) {
        return most;
    }
    ((time.as_secs_f64() / COST_ROUNDS / round) as usize).clamp(1, most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_batches_fit_the_cost_steps_time() {
        let ten = Duration::from_secs(10);
        // Runs as slow as tpo-tm's: original, portable, minimal, every site, fixed variant.
        let slow = [0.0146, 0.0318, 0.0227, 0.0556, 0.0282];
        let batch = cost_batch(&slow, ten, 64);
        assert_eq!(batch, 8);
        let rounds = COST_ROUNDS * batch as f64 * slow.iter().sum::<f64>();
        assert!(rounds <= ten.as_secs_f64(), "{rounds}");
        // Fast runs keep whole batches; a run slower than the time still gets one a batch.
        assert_eq!(cost_batch(&[0.0006; 5], ten, 64), 64);
        assert_eq!(cost_batch(&[30.0, 30.0], ten, 64), 1);
        assert_eq!(cost_batch(&[0.0, 0.0], ten, 64), 64);
        assert_eq!(cost_batch(&[f64::NAN], ten, 0), 1);
    }
}
