//! Validated plans: what a command will do, built from its parsed options before the device
//! opens. Everything that can be checked without a device is checked here (values against
//! each other, the application spec, output paths); what needs the adapter's limits is
//! checked right after it opens, before the first run.

pub mod adapters;
pub mod announce;
pub mod hang;
pub mod paths;

use crate::options::{
    AppOptions, BudgetOptions, LogOptions, SessionOptions, SizeArg, StressOptions, VariantArg,
};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use wgstress_apps::{Size, Variant};
use wgstress_model::stress::params::{Scheduling, StressShape};
use wgstress_runtime::app::spec::App;
use wgstress_runtime::gpu::engine::{Engine, EngineConfig, LoopStart, Mode};
use wgstress_runtime::gpu::hang_timeout::HangTimeout;
use wgstress_runtime::run::runner::Budget;
use wgstress_runtime::run::stress_plan::{check_shape, Iterations, StressPlan};

/// What `run` and `compare` share.
pub struct SessionPlan {
    pub app: App,
    /// A substring of the adapter's name; the best adapter when `None`.
    pub adapter: wgstress_runtime::gpu::device::AdapterChoice,
    pub batch: usize,
    pub timeout: HangTimeout,
    pub budget: Budget,
    pub stress: StressPlan,
    pub master_seed: u64,
    /// The JSON-lines log, checked writable; `None` with --no-log.
    pub log: Option<PathBuf>,
    pub json: bool,
    /// The files the app is read from (a spec, its shaders, its data files, the --profile;
    /// none for a bundled app), which no output may overwrite: (what, path).
    pub inputs: Vec<(&'static str, PathBuf)>,
    /// Instrumented and stressed, or the user's shaders as given (`run --raw`).
    pub mode: Mode,
    /// Whether the shaders carry the code that holds a workgroup back: runs under a progress
    /// model other than fair or an occupancy bound need it, and it is left out otherwise, as
    /// it costs some applications much of their speed (`EngineConfig::parking`).
    pub parking: bool,
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
        scheduling: Scheduling,
    ) -> Result<SessionPlan> {
        let (app, mut inputs) = load_app(app)?;
        let log = log_path(&session.log);
        if let Some(path) = &stress.profile {
            // A broken profile is bad input, found now rather than after the device opens.
            let profile = wgstress_runtime::stress::profile::load(path)?;
            check_shape(&profile.shape(), &path.display().to_string())?;
            inputs.push(("--profile", path.clone()));
        }
        let plan = SessionPlan {
            app,
            adapter: session.device.choice(),
            batch: budget.batch as usize,
            timeout: budget
                .timeout
                .map_or(HangTimeout::Default, HangTimeout::Given),
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
                scheduling,
            },
            master_seed: session.master_seed.unwrap_or_else(random_seed),
            log,
            json: session.json,
            inputs,
            mode: Mode::Instrumented,
            parking: scheduling.holds(),
        };
        plan.files().check()?;
        Ok(plan)
    }

    /// The files the session reads and its log: a command adds its own outputs and checks
    /// them all at once.
    pub fn files(&self) -> paths::Files {
        let mut files = paths::Files::new();
        files.inputs(&self.inputs);
        if let Some(log) = &self.log {
            files.output("--log", log);
        }
        files
    }

    /// How the application's engine is built: the adapter, batch, scratchpad, hang timeout,
    /// the watchdog's start and the mode, all from the options.
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            adapter: self.adapter.clone(),
            batch: self.batch,
            scratch_words: self.scratch_words(),
            timeout: self.timeout,
            loop_limit: self
                .stress
                .watchdog_limit
                .map_or(LoopStart::Learn, LoopStart::Fixed),
            mode: self.mode,
            parking: self.parking,
            // No command runs scripts: they are the emulator test's (runtime/tests/emulator.rs).
            scripting: false,
            // A run under a model that holds may hold its victim after a write.
            hold_writes: true,
            host_checks: false,
        }
    }

    /// Opens the device and builds the application's pipelines and buffers there.
    pub fn engine(&self) -> Result<Engine> {
        // Nothing is gathered yet: a signal here quits rather than wait for the compiles.
        let _start_up = crate::interrupt::start_up();
        Ok(Engine::new(self.app.clone(), &self.engine_config())?)
    }
}

/// The environment file of `--env`, read now so that a missing or broken one is bad input
/// found before the device opens; whether it is used depends on the adapter.
pub fn env_file(path: Option<&Path>) -> Result<Option<PathBuf>> {
    if let Some(path) = path {
        wgstress_litmus::env_file::EnvFile::load(path)?;
    }
    Ok(path.map(Path::to_path_buf))
}

/// The log `options` ask for, to be checked with the command's other outputs
/// (`paths::Files`); `None` with --no-log.
pub fn log_path(options: &LogOptions) -> Option<PathBuf> {
    (!options.no_log).then(|| options.log.clone())
}

/// A bundled application's hand-written fixed variant, at the size `options` ask for; none for
/// a spec, or when the fixed variant is the one asked for.
pub fn fixed_variant(options: &AppOptions) -> Option<App> {
    let bundled =
        wgstress_apps::find(&options.app).filter(|_| !Path::new(&options.app).exists())?;
    if options.variant.is_none_or(|v| v == VariantArg::Fixed) {
        return None;
    }
    let size = match options.size.unwrap_or(SizeArg::Small) {
        SizeArg::Small => Size::Small,
        SizeArg::Large => Size::Large,
    };
    Some(bundled.build(Variant::Fixed, size))
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
        let app = wgstress_runtime::app::spec::load(path)?;
        inputs.push(("APP", path.to_path_buf()));
        inputs.extend(app.data_files());
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
