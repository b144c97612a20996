//! What stress each configuration of a session runs, as the user asked for it, less what
//! needs the device: the profile's match to the adapter and the measured iterations come from
//! `shape` and `settings` once the engine is open.

use crate::error::{Result, RuntimeError};
use crate::gpu::engine::{Engine, PROBE_ITERATIONS};
use crate::run::runner::Budget;
use crate::stress::profile::shape_for;
use std::path::PathBuf;
use std::time::Duration;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::stress::params::{Scheduling, Settings, StressPlacement, StressShape};
use wgstress_model::stress::sequence::Sequence;
use wgstress_model::stress::strategy::Strategy;

/// Calibration's share of a budget is at most this.
const CALIBRATION_CAP: Duration = Duration::from_secs(10);

/// How many stress iterations each thread runs.
#[derive(Clone, Copy, Debug)]
pub enum Iterations {
    Given(u32),
    /// Measured on the device, so that stress lasts `ratio` times the application.
    Measured {
        ratio: f64,
    },
}

/// The stress settings of every configuration, less what needs the device (the profile's
/// adapter match, measured iterations).
#[derive(Clone, Debug)]
pub struct StressPlan {
    pub iterations: Iterations,
    pub cache_words: u32,
    /// Given: the watchdog's limit; `None`: learned from passing runs.
    pub watchdog_limit: Option<u32>,
    pub stress_fraction: (f64, f64),
    pub placement: StressPlacement,
    pub buffer_shuffle: bool,
    pub profile: Option<PathBuf>,
    pub sequence: Option<Sequence>,
    pub spread: Option<u32>,
    pub patch_words: Option<u32>,
    pub scheduling: Scheduling,
}

impl StressPlan {
    /// The systematic stress shape for the engine's adapter, and where it came from: a
    /// profile or the defaults, then the shape options given on the command line.
    pub fn shape(&self, engine: &Engine) -> Result<(StressShape, String)> {
        let (mut shape, mut source) = shape_for(&engine.gpu().info.name, self.profile.as_deref())?;
        let mut given = Vec::new();
        if let Some(sequence) = &self.sequence {
            shape.sequence = sequence.clone();
            given.push(format!("sequence {sequence}"));
        }
        if let Some(spread) = self.spread {
            shape.spread = spread;
            given.push(format!("{spread} patches"));
        }
        if let Some(words) = self.patch_words {
            shape.patch_words = words;
            given.push(format!("{words}-word patches"));
        }
        if !given.is_empty() {
            source = format!("{source}; as given: {}", given.join(", "));
        }
        // The default profile is read only now that the adapter is known.
        check_shape(&shape, &source)?;
        Ok((shape, source))
    }

    /// Whether systematic stress draws each run's shape from the adaptive arms: unless the
    /// user fixed the shape.
    pub fn adaptive(&self) -> bool {
        self.sequence.is_none() && self.spread.is_none() && self.patch_words.is_none()
    }

    fn with_iterations(
        &self,
        engine: &Engine,
        strategy: Strategy,
        shuffle: bool,
        shape: &StressShape,
        iterations: u32,
    ) -> Settings {
        Settings {
            strategy,
            shuffle,
            shape: shape.clone(),
            iterations,
            cache_words: self.cache_words,
            // Where runs start; the run loop follows the learned limit from there.
            watchdog_limit: engine.loop_limit().limit(),
            stress_fraction: self.stress_fraction,
            placement: self.placement,
            buffer_shuffle: self.buffer_shuffle,
            scheduling: self.scheduling,
        }
    }

    /// Settings without stress or shuffles, for timing the application alone (the watchdog
    /// limit is the loop limit's floor, unused by a raw run).
    pub fn unstressed(&self) -> Settings {
        Settings {
            strategy: Strategy::None,
            shuffle: false,
            shape: StressShape::default(),
            iterations: 0,
            cache_words: self.cache_words,
            watchdog_limit: wgstress_model::run::loop_limit::FLOOR,
            stress_fraction: self.stress_fraction,
            placement: self.placement,
            buffer_shuffle: false,
            scheduling: self.scheduling,
        }
    }

    /// The settings of one configuration on `engine`: stress iterations given or calibrated
    /// there within a share of `budget` (a tenth of its time, at most 10 s; none without
    /// stress), checked against the device's limits, with what calibration measured.
    pub fn settings(
        &self,
        engine: &mut Engine,
        strategy: Strategy,
        shuffle: bool,
        shape: &StressShape,
        budget: &Budget,
    ) -> Result<(Settings, Option<Calibration>)> {
        let (iterations, calibration) = match (strategy, self.iterations) {
            (Strategy::None, _) => (0, None),
            (_, Iterations::Given(n)) => (n, None),
            (_, Iterations::Measured { ratio }) => {
                let probe =
                    self.with_iterations(engine, strategy, shuffle, shape, PROBE_ITERATIONS);
                engine.check(&probe)?;
                let share = budget
                    .time
                    .map_or(CALIBRATION_CAP, |t| (t / 10).min(CALIBRATION_CAP));
                let c = engine.calibrate(&probe, ratio, share)?;
                (c.iterations, Some(c))
            }
        };
        let settings = self.with_iterations(engine, strategy, shuffle, shape, iterations);
        // Adaptive arms run up to `MAX_ITERATIONS`; the limits hold for every one of them.
        engine.check(&settings)?;
        Ok((settings, calibration))
    }
}

/// Checks a stress shape read from a profile against the ranges the command line allows.
pub fn check_shape(shape: &StressShape, source: &str) -> Result<()> {
    for (name, value) in [("patch_words", shape.patch_words), ("spread", shape.spread)] {
        if !(1..=64).contains(&value) {
            return Err(RuntimeError::Input(format!(
                "{source}: {name} = {value}; give 1 to 64"
            )));
        }
    }
    Ok(())
}
