use super::select::{load, AppArgs};
use crate::present::progress::Progress;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wgstress_runtime::engine::Engine;
use wgstress_runtime::log::JsonLog;
use wgstress_runtime::runner::{self, Budget, RunConfig};
use wgstress_runtime::strategy::{Placement, Sequence, Settings, Strategy, StressShape};

/// Options shared by `run` and `compare`.
#[derive(clap::Args, Clone)]
pub struct Common {
    /// Number of runs (per strategy, for compare); 1000 when neither --runs nor --time is given
    #[arg(long)]
    pub runs: Option<u64>,
    /// Time budget in seconds (per strategy, for compare)
    #[arg(long)]
    pub time: Option<f64>,
    /// Runs per GPU submission
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
    /// Pick the adapter whose name contains this (see `wgstress adapters`)
    #[arg(long)]
    pub adapter: Option<String>,
    /// Stress iterations per thread; measured on the device when left out
    #[arg(long)]
    pub iterations: Option<u32>,
    /// How long stress lasts relative to the application kernel, when measured
    #[arg(long, default_value_t = 1.0)]
    pub stress_ratio: f64,
    /// Loop iterations after which the watchdog ends a loop
    #[arg(long, default_value_t = 1 << 20)]
    pub watchdog_limit: u32,
    /// Seconds a batch may take before it is reported as a hang
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Stressing workgroups per run, as a fraction of the application's, drawn in LO-HI
    #[arg(long, default_value = "0.15-0.5", value_parser = parse_range)]
    pub stress_fraction: (f64, f64),
    /// Where stress workgroups sit: interleaved (among the application's), after or before
    #[arg(long, default_value = "interleaved")]
    pub stress_placement: Placement,
    /// Buffer shuffle: on, each run binds the application's storage buffers at one of 16
    /// layouts (each buffer shifted by its own offset); off, as allocated
    #[arg(long, default_value = "on", value_parser = clap::builder::BoolishValueParser::new(),
          action = clap::ArgAction::Set)]
    pub buffer_shuffle: bool,
    /// Size of the cache-stress scratchpad in MiB (about the L2 cache)
    #[arg(long, default_value_t = 48)]
    pub cache_mib: u32,
    /// Device profile from `wgstress tune` (default: wgstress-profile.json when present);
    /// used by systematic stress when its adapter matches
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Systematic stress: the stressing loop's access sequence, as ld;st (overrides the profile)
    #[arg(long)]
    pub sequence: Option<Sequence>,
    /// Systematic stress: patches stressed per run, 1 to 64 (overrides the profile)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub spread: Option<u32>,
    /// Systematic stress: words per patch, 1 to 64 (overrides the profile)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub patch_words: Option<u32>,
    /// Seed from which every run's seed derives (random when left out)
    #[arg(long, value_parser = parse_seed)]
    pub master_seed: Option<u64>,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
    /// JSON-lines log, appended after every batch
    #[arg(long, default_value = "wgstress-runs.jsonl")]
    pub log: PathBuf,
    /// Write no log
    #[arg(long)]
    pub no_log: bool,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    app: AppArgs,
    #[command(flatten)]
    common: Common,
    /// Stress strategy: none, systematic, cache or random
    #[arg(long, default_value = "systematic")]
    strategy: Strategy,
    /// Keep the application's workgroup ids as dispatched
    #[arg(long)]
    no_shuffle: bool,
    /// Replay: run with exactly the stress parameters and shuffle of this run seed
    #[arg(long, value_parser = parse_seed)]
    seed: Option<u64>,
}

fn parse_range(text: &str) -> Result<(f64, f64), String> {
    let bad = || format!("`{text}` is not a range: give LO-HI, as in 0.15-0.5");
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let (lo, hi): (f64, f64) = (
        lo.parse().map_err(|_| bad())?,
        hi.parse().map_err(|_| bad())?,
    );
    if !(0.0..=16.0).contains(&lo) || !(lo..=16.0).contains(&hi) {
        return Err(format!("{text}: give 0 <= LO <= HI <= 16"));
    }
    Ok((lo, hi))
}

pub fn parse_seed(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("`{text}` is not a seed: give a number, decimal or 0x-hex"))
}

impl Common {
    pub fn budget(&self) -> Result<Budget> {
        if self.runs == Some(0) {
            bail!("--runs must be at least 1");
        }
        if let Some(t) = self.time {
            if !(t > 0.0 && t.is_finite()) {
                bail!("--time must be a positive number of seconds");
            }
        }
        if self.batch == 0 {
            bail!("--batch must be at least 1");
        }
        let runs = if self.runs.is_none() && self.time.is_none() {
            Some(1000)
        } else {
            self.runs
        };
        Ok(Budget {
            runs,
            time: self.time.map(Duration::from_secs_f64),
        })
    }

    /// The systematic stress shape for the engine's adapter: from a profile or the defaults,
    /// then the shape options given on the command line.
    pub fn shape(&self, engine: &Engine) -> Result<StressShape> {
        let (mut shape, source) =
            wgstress_runtime::profile::shape_for(&engine.gpu.info.name, self.profile.as_deref())?;
        eprintln!("wgstress: systematic stress from {source}");
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
            eprintln!("wgstress: systematic stress as given: {}", given.join(", "));
        }
        Ok(shape)
    }

    pub fn settings(&self, strategy: Strategy, shuffle: bool, shape: &StressShape) -> Settings {
        Settings {
            strategy,
            shuffle,
            shape: shape.clone(),
            iterations: self.iterations.unwrap_or(0),
            cache_words: self.cache_mib.saturating_mul(1 << 18),
            watchdog_limit: self.watchdog_limit,
            stress_fraction: self.stress_fraction,
            placement: self.stress_placement,
            buffer_shuffle: self.buffer_shuffle,
        }
    }

    pub fn engine(&self, app: wgstress_runtime::spec::App) -> Result<Engine> {
        let scratch = self
            .cache_mib
            .saturating_mul(1 << 18)
            .max(StressShape::default().patch_count * 64);
        let mut engine = Engine::new(app, self.adapter.as_deref(), self.batch, scratch)?;
        engine.timeout = Duration::from_secs_f64(self.timeout.max(0.001));
        eprintln!("wgstress: {} on {}", engine.app.name, engine.gpu.describe());
        if let Some(caveat) = wgstress_runtime::device::caveat(&engine.gpu.info.name) {
            eprintln!("wgstress: note: {caveat}");
        }
        Ok(engine)
    }

    /// The stress iterations to use: given, or measured on the device.
    pub fn iterations(&self, engine: &mut Engine, settings: &Settings) -> Result<u32> {
        if settings.strategy == Strategy::None {
            return Ok(0);
        }
        if let Some(n) = self.iterations {
            return Ok(n);
        }
        let n = engine.calibrate(settings, self.stress_ratio)?;
        eprintln!(
            "wgstress: {} stress: {n} iterations per thread, measured to last {}x the application",
            settings.strategy, self.stress_ratio
        );
        Ok(n)
    }

    pub fn log(&self) -> Result<Option<JsonLog>> {
        Ok(if self.no_log {
            None
        } else {
            Some(JsonLog::append_to(&self.log)?)
        })
    }

    pub fn master_seed(&self) -> u64 {
        self.master_seed.unwrap_or_else(rand_seed)
    }
}

fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// Set by Ctrl-C: the run loop stops after the batch in flight and reports what ran.
pub fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nwgstress: stopping after this batch (Ctrl-C again to quit now)");
    });
    stop
}

pub fn run(args: Args) -> Result<ExitCode> {
    let app = load(&args.app)?;
    let budget = args.common.budget()?;
    let mut engine = args.common.engine(app)?;
    let shape = args.common.shape(&engine)?;
    let mut settings = args
        .common
        .settings(args.strategy, !args.no_shuffle, &shape);
    settings.iterations = args.common.iterations(&mut engine, &settings)?;
    let config = RunConfig {
        settings,
        budget,
        master_seed: args.common.master_seed(),
        replay: args.seed,
        stop: stop_flag(),
    };
    let mut log = args.common.log()?;
    let mut progress = Progress::runs(&config.budget, !args.common.json, true);
    let summary = runner::run(&mut engine, &config, log.as_mut(), &mut |e| {
        progress.on_event(e)
    })?;
    progress.finish();
    if args.common.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", crate::present::summary::table(&summary));
    }
    Ok(if summary.aborted.is_some() {
        ExitCode::from(2)
    } else if summary.stats.failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
