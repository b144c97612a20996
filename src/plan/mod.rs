//! Validated plans: what a command will do, built from its parsed options before the device
//! opens. Everything that can be checked without a device is checked here (values against
//! each other, the application spec, output paths); what needs the adapter's limits is
//! checked right after it opens, before the first run.

pub mod paths;

use crate::options::{
    AppOptions, BudgetOptions, LogOptions, SessionOptions, SizeArg, StressOptions, VariantArg,
};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wgstress_apps::{Size, Variant};
use wgstress_runtime::engine::{Calibration, Engine, Mode, PROBE_ITERATIONS};
use wgstress_runtime::loop_limit::LoopLimit;
use wgstress_runtime::runner::Budget;
use wgstress_runtime::spec::App;
use wgstress_runtime::strategy::{Placement, Sequence, Settings, Strategy, StressShape};

/// Calibration's share of a budget is at most this.
const CALIBRATION_CAP: Duration = Duration::from_secs(10);

/// What `run` and `compare` share.
pub struct SessionPlan {
    pub app: App,
    /// A substring of the adapter's name; the best adapter when `None`.
    pub adapter: Option<String>,
    pub batch: usize,
    pub timeout: Duration,
    pub budget: Budget,
    pub stress: StressPlan,
    pub master_seed: u64,
    /// The JSON-lines log, checked writable; `None` with --no-log.
    pub log: Option<PathBuf>,
    pub json: bool,
    /// The files the app is read from (a spec and its shader; none for a bundled app), which
    /// no output may overwrite: (what, path).
    pub inputs: Vec<(&'static str, PathBuf)>,
    /// Instrumented and stressed, or the user's shaders as given (`run --raw`).
    pub mode: Mode,
}

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
pub struct StressPlan {
    pub iterations: Iterations,
    pub cache_words: u32,
    /// Given: the watchdog's limit; `None`: learned from passing runs.
    pub watchdog_limit: Option<u32>,
    pub stress_fraction: (f64, f64),
    pub placement: Placement,
    pub buffer_shuffle: bool,
    pub profile: Option<PathBuf>,
    pub sequence: Option<Sequence>,
    pub spread: Option<u32>,
    pub patch_words: Option<u32>,
}

impl SessionPlan {
    /// Stress scratch words: room for cache stress and the default shape's patches.
    pub fn scratch_words(&self) -> u32 {
        self.stress
            .cache_words
            .max(StressShape::default().patch_count * 64)
    }

    /// Checks the options of `run` or `compare` and loads the application.
    pub fn new(
        app: &AppOptions,
        budget: &BudgetOptions,
        stress: &StressOptions,
        session: &SessionOptions,
    ) -> Result<SessionPlan> {
        let (app, inputs) = load_app(app)?;
        let log = log_path(&session.log)?;
        if let Some(log) = &log {
            let mut paths: Vec<(&str, &Path)> =
                inputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
            paths.push(("--log", log));
            paths::distinct(&paths)?;
        }
        if let Some(path) = &stress.profile {
            // A broken profile is bad input, found now rather than after the device opens.
            let profile = wgstress_runtime::profile::Profile::load(path)?;
            check_shape(&profile.shape(), &path.display().to_string())?;
        }
        Ok(SessionPlan {
            app,
            adapter: session.adapter.clone(),
            batch: budget.batch as usize,
            timeout: budget.timeout,
            budget: Budget {
                runs: match (budget.runs, budget.time) {
                    (None, None) => Some(1000),
                    (runs, _) => runs,
                },
                time: budget.time,
                failures: budget.until_failures,
            },
            stress: StressPlan {
                iterations: match stress.iterations {
                    Some(n) => Iterations::Given(n),
                    None => Iterations::Measured {
                        ratio: stress.stress_ratio,
                    },
                },
                // options::MAX_CACHE_MIB keeps this within u32.
                cache_words: stress.cache_mib << 18,
                watchdog_limit: stress.watchdog_limit,
                stress_fraction: stress.stress_fraction,
                placement: stress.stress_placement.into(),
                buffer_shuffle: stress.buffer_shuffle.on(),
                profile: stress.profile.clone(),
                sequence: stress.sequence.clone(),
                spread: stress.spread,
                patch_words: stress.patch_words,
            },
            master_seed: session.master_seed.unwrap_or_else(random_seed),
            log,
            json: session.json,
            inputs,
            mode: Mode::Instrumented,
        })
    }

    /// Opens the device and builds the application's pipelines and buffers there.
    pub fn engine(&self) -> Result<Engine> {
        let mut engine = Engine::open(
            self.app.clone(),
            self.adapter.as_deref(),
            self.batch,
            self.scratch_words(),
            self.mode,
        )?;
        engine.timeout = self.timeout;
        if let Some(limit) = self.stress.watchdog_limit {
            engine.loop_limit = LoopLimit::fixed(limit);
        }
        Ok(engine)
    }
}

impl StressPlan {
    /// The systematic stress shape for the engine's adapter, and where it came from: a
    /// profile or the defaults, then the shape options given on the command line.
    pub fn shape(&self, engine: &Engine) -> Result<(StressShape, String)> {
        let (mut shape, mut source) =
            wgstress_runtime::profile::shape_for(&engine.gpu.info.name, self.profile.as_deref())?;
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
            watchdog_limit: engine.loop_limit.limit(),
            stress_fraction: self.stress_fraction,
            placement: self.placement,
            buffer_shuffle: self.buffer_shuffle,
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
                engine.session.check(&probe)?;
                let share = budget
                    .time
                    .map_or(CALIBRATION_CAP, |t| (t / 10).min(CALIBRATION_CAP));
                let c = engine.calibrate(&probe, ratio, share)?;
                (c.iterations, Some(c))
            }
        };
        let settings = self.with_iterations(engine, strategy, shuffle, shape, iterations);
        // Adaptive arms run up to `MAX_ITERATIONS`; the limits hold for every one of them.
        engine.session.check(&settings)?;
        Ok((settings, calibration))
    }
}

/// Checks a stress shape read from a profile against the ranges the command line allows.
fn check_shape(shape: &StressShape, source: &str) -> Result<()> {
    for (name, value) in [("patch_words", shape.patch_words), ("spread", shape.spread)] {
        if !(1..=64).contains(&value) {
            bail!("{source}: {name} = {value}; give 1 to 64");
        }
    }
    Ok(())
}

/// The environment file of `--env`, read now so that a missing or broken one is bad input
/// found before the device opens; whether it is used depends on the adapter.
pub fn env_file(path: Option<&Path>) -> Result<Option<PathBuf>> {
    if let Some(path) = path {
        wgstress_runtime::litmus::env_file::EnvFile::load(path)?;
    }
    Ok(path.map(Path::to_path_buf))
}

/// The log `options` ask for, checked writable; `None` with --no-log.
pub fn log_path(options: &LogOptions) -> Result<Option<PathBuf>> {
    if options.no_log {
        return Ok(None);
    }
    paths::writable(&options.log, "--log")?;
    Ok(Some(options.log.clone()))
}

/// The application `options` name, a spec file or a bundled application, and the files it
/// was read from.
pub fn load_app(options: &AppOptions) -> Result<(App, Vec<(&'static str, PathBuf)>)> {
    let path = Path::new(&options.app);
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wgsl"))
    {
        bail!(
            "{}: a WGSL shader; APP is a bundled application (see `wgstress apps`) or an app \
             spec (.toml): write a spec that names the shader, its workgroups and its bindings \
             (docs/specs.md)",
            options.app
        );
    }
    let mut inputs = Vec::new();
    let mut app = if options.app.ends_with(".toml") || path.exists() {
        if options.variant.is_some() || options.size.is_some() {
            bail!(
                "{}: --variant and --size choose among a bundled application's builds; a spec file has one",
                options.app
            );
        }
        let app = wgstress_runtime::spec::load(path)?;
        inputs.push(("APP", path.to_path_buf()));
        inputs.push(("the spec's shader", PathBuf::from(&app.shader_path)));
        let own = app.pipeline.iter().filter_map(|d| d.shader.as_ref());
        for shader in own.chain(&app.postcondition_shader) {
            let path = PathBuf::from(&shader.path);
            if !inputs.iter().any(|(_, p)| *p == path) {
                inputs.push(("a shader of the spec", path));
            }
        }
        app
    } else {
        let Some(bundled) = wgstress_apps::find(&options.app) else {
            bail!(
                "no bundled application or spec file named `{}` (bundled: {})",
                options.app,
                wgstress_apps::all()
                    .iter()
                    .map(|a| a.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        let variant = match options.variant.unwrap_or(VariantArg::Fixed) {
            VariantArg::Buggy => Variant::Buggy,
            VariantArg::Fixed => Variant::Fixed,
            VariantArg::Nofence => Variant::NoFence,
        };
        let size = match options.size.unwrap_or(SizeArg::Small) {
            SizeArg::Small => Size::Small,
            SizeArg::Large => Size::Large,
        };
        bundled.build(variant, size)
    };
    if let Some(entry) = &options.entry {
        if !app.pipeline.is_empty() {
            bail!(
                "{}: --entry names the entry point of a single kernel; a pipeline gives one in each [[dispatch]]",
                options.app
            );
        }
        app.entry = Some(entry.clone());
    }
    if let Some(postcondition) = &options.postcondition {
        app.postcondition = Some(postcondition.clone());
    }
    Ok((app, inputs))
}

/// A seed from the clock, for sessions given no --master-seed (it is printed and logged).
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}
