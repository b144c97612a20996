//! The options several commands share, as clap parses them: values are typed and ranged here,
//! and checked against each other and the file system when a command builds its plan.

use clap::ValueEnum;
use std::path::PathBuf;
use std::time::Duration;
use wgstress_model::litmus::env::LitmusPlacement;
use wgstress_model::stress::params::{Scheduling, StressPlacement};
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::sequence::Sequence;
use wgstress_model::stress::strategy::Strategy;
use wgstress_progress::wgsl::Mapping;
use wgstress_runtime::gpu::device::{AdapterChoice, Backend, BrowserRelay, NativeChoice};

/// The application a command runs.
#[derive(clap::Args, Clone, Debug)]
pub struct AppOptions {
    /// A bundled application (see `wgstress apps`) or an app spec (.toml)
    pub app: String,
    /// Which variant of a bundled application [default: fixed]
    #[arg(long, value_enum)]
    pub variant: Option<VariantArg>,
    /// Problem size of a bundled application [default: small]
    #[arg(long, value_enum)]
    pub size: Option<SizeArg>,
    /// The application's @compute entry point, where the shader has several (overrides the
    /// spec's `entry`)
    #[arg(long)]
    pub entry: Option<String>,
    /// A @compute entry point that checks the results on the GPU (overrides the spec's
    /// `postcondition` and a `// wgstress: postcondition NAME` comment)
    #[arg(long)]
    pub postcondition: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// Fences removed, as the "-nf" variants of PLDI'16
    Buggy,
    /// With the fences the application needs
    Fixed,
    /// The buggy variant with its `if FENCES` fence sites removed from the source, for
    /// evaluating `fences`
    Nofence,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SizeArg {
    /// Small enough for a CPU Vulkan driver
    Small,
    /// Sized for a GPU
    Large,
}

/// How long `run` and `compare` run.
#[derive(clap::Args, Clone, Debug)]
pub struct BudgetOptions {
    /// Number of runs (per configuration, for compare); 1000 when neither --runs nor --time
    /// is given
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// Time budget in seconds (per configuration, for compare)
    #[arg(long, value_parser = seconds, allow_negative_numbers = true)]
    pub time: Option<Duration>,
    /// Runs per GPU submission
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub batch: u32,
    /// Seconds a batch may take before it is reported as a hang (batches are sized to last
    /// about a quarter second) [default: 10, or, once calibration timed the application, four
    /// times a stressed run where that is longer]
    #[arg(long, value_parser = seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Stop at this many failing runs (per configuration, for compare); the runs of the
    /// batch after the last of them are not counted
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub until_failures: Option<u64>,
}

/// How stress is applied, for `run` and `compare`.
#[derive(clap::Args, Clone, Debug)]
pub struct StressOptions {
    /// Stress iterations per thread; measured on the device when left out
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,
    /// How long stress lasts relative to the application kernel, when measured
    #[arg(long, default_value_t = 1.0, value_parser = positive, allow_negative_numbers = true)]
    pub stress_ratio: f64,
    /// Loop iterations after which the watchdog ends a loop; when left out, learned from
    /// passing runs (8 times the longest loop they ran, within 4,096 and 2^18; 30,000 on
    /// llvmpipe, whose loops end silently at 65,535)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub watchdog_limit: Option<u32>,
    /// Stressing workgroups per run, as a fraction of the application's, drawn in LO-HI
    /// (0 <= LO <= HI <= 1)
    #[arg(long, default_value = "0.15-0.5", value_parser = fraction_range)]
    pub stress_fraction: (f64, f64),
    /// Where stress workgroups sit among the application's
    #[arg(long, value_enum, default_value_t = PlacementArg::Interleaved)]
    pub stress_placement: PlacementArg,
    /// Buffer shuffle: on, each run binds the application's storage buffers at one of 16
    /// layouts (each buffer shifted by its own offset); off, as allocated
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub buffer_shuffle: Switch,
    /// Size of the cache-stress scratchpad in MiB (about the L2 cache)
    #[arg(long, default_value_t = 48, value_parser = clap::value_parser!(u32).range(1..=MAX_CACHE_MIB))]
    pub cache_mib: u32,
    /// Device profile from `wgstress tune` (default: wgstress-profile.json when present);
    /// used by systematic stress when its adapter matches
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Systematic stress: the stressing loop's access sequence, as ld;st (overrides the
    /// profile)
    #[arg(long)]
    pub sequence: Option<Sequence>,
    /// Systematic stress: patches stressed per run, 1 to 64 (overrides the profile)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub spread: Option<u32>,
    /// Systematic stress: words per patch, 1 to 64 (overrides the profile)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub patch_words: Option<u32>,
}

/// Which workgroups a run may hold back, for `run` and `compare` (docs/progress.md).
#[derive(clap::Args, Clone, Debug)]
pub struct ScheduleOptions {
    /// The progress model runs are scheduled under: each run holds back a workgroup the
    /// model does not guarantee to run (drawn from the run's seed), and a wait that then sees
    /// no progress is a `starved` run
    #[arg(long, value_parser = schedules(), default_value = "fair")]
    pub schedule: Schedule,
    /// At most N application workgroups run at once; the others wait at their start until
    /// one finishes, as on a GPU with room for N
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub occupancy: Option<u32>,
}

impl ScheduleOptions {
    pub fn scheduling(&self) -> Scheduling {
        Scheduling {
            schedule: self.schedule,
            occupancy: self.occupancy,
        }
    }
}

/// The largest cache scratchpad whose size in words fits a u32.
pub const MAX_CACHE_MIB: i64 = (1 << 14) - 1;

/// Which adapter runs the work, for every command that opens one.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct AdapterOptions {
    /// Pick the adapter whose name contains this, or `#N` the N-th `wgstress adapters` lists
    #[arg(long)]
    pub adapter: Option<String>,
    /// Only the adapters of this graphics API (`wgstress adapters` lists each adapter's) [default: a
    /// native one, Vulkan, Metal or DX12; GL where there is none]
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Run on the GPU of a headless Chromium that wgstress starts, through WebGPU, as a web page
    /// would (SwiftShader where Chromium finds no GPU); docs/browser.md
    #[arg(long, conflicts_with_all = ["adapter", "backend"])]
    pub browser: bool,
    /// The page `wgstress serve` lends this item at ADDR, with the secret in
    /// WGSTRESS_RELAY_SECRET: for serve's own items only
    #[arg(long, hide = true, value_name = "ADDR", conflicts_with_all = ["adapter", "backend", "browser"])]
    pub browser_relay: Option<std::net::SocketAddr>,
}

/// The environment variable that gives a `--browser-relay` item its secret.
pub const RELAY_SECRET: &str = "WGSTRESS_RELAY_SECRET";

impl AdapterOptions {
    pub fn choice(&self) -> AdapterChoice {
        if let Some(address) = self.browser_relay {
            return AdapterChoice::BrowserRelay(BrowserRelay {
                address,
                // None: refused as the device opens, with a line naming the variable.
                secret: std::env::var(RELAY_SECRET).unwrap_or_default(),
            });
        }
        if self.browser {
            return AdapterChoice::Browser;
        }
        AdapterChoice::Native(NativeChoice {
            name: self.adapter.clone(),
            backend: self.backend.map(BackendArg::backend),
        })
    }
}

/// `--backend`'s values: the graphics APIs wgpu drives GPUs through.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    /// Vulkan (Linux, Windows, Android)
    Vulkan,
    /// OpenGL or OpenGL ES, through EGL on Linux (Mesa's llvmpipe among others)
    Gl,
    /// Metal (macOS)
    Metal,
    /// Direct3D 12 (Windows)
    Dx12,
}

impl BackendArg {
    fn backend(self) -> Backend {
        match self {
            BackendArg::Vulkan => Backend::Vulkan,
            BackendArg::Gl => Backend::Gl,
            BackendArg::Metal => Backend::Metal,
            BackendArg::Dx12 => Backend::Dx12,
        }
    }
}

/// The device, the seed and where results go, for `run` and `compare`.
#[derive(clap::Args, Clone, Debug)]
pub struct SessionOptions {
    #[command(flatten)]
    pub device: AdapterOptions,
    /// Seed from which every run's seed derives (random when left out)
    #[arg(long, value_parser = seed)]
    pub master_seed: Option<u64>,
    /// Print the results as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub log: LogOptions,
}

/// The JSON-lines log every command that runs writes: a start line (what, with which
/// options and seed), lines as it goes, and a summary line.
#[derive(clap::Args, Clone, Debug)]
pub struct LogOptions {
    /// JSON-lines log, appended to as the command runs
    #[arg(long, default_value = "wgstress-runs.jsonl")]
    pub log: PathBuf,
    /// Write no log
    #[arg(long, conflicts_with = "log")]
    pub no_log: bool,
}

/// Where `progress` puts a test's threads (the seed's §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MappingArg {
    /// One instance, thread i on workgroup i
    Plain,
    /// Thread i of instance m on workgroup N*m + i
    RoundRobin,
    /// Thread i of instance m on workgroup M*i + m
    Chunked,
    /// Each of the three in turn
    All,
}

impl MappingArg {
    pub fn mappings(self) -> Vec<Mapping> {
        match self {
            MappingArg::Plain => vec![Mapping::Plain],
            MappingArg::RoundRobin => vec![Mapping::RoundRobin],
            MappingArg::Chunked => vec![Mapping::Chunked],
            MappingArg::All => Mapping::ALL.to_vec(),
        }
    }
}

/// How `progress --suite` and `--tests` run progress litmus tests on the adapter.
#[derive(clap::Args, Clone, Debug)]
pub struct ProgressRunOptions {
    /// Where each instance's threads go: plain, round-robin, chunked, or all three
    #[arg(long, value_enum, default_value = "all")]
    pub mapping: MappingArg,
    /// Runs of each test under each mapping
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub iterations: u32,
    /// Instances of a test per run under round-robin and chunked [default: as many as 65,535
    /// workgroups hold, OOPSLA'21's choice]
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=65_535))]
    pub instances: Option<u32>,
    /// Instructions a test thread may execute before it stops and counts as not terminated
    /// (below 65,535 on llvmpipe, whose loops end silently there)
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub loop_bound: u32,
    /// Seconds a run may take before it is reported as a hang (the loop bound should end
    /// every run long before)
    #[arg(long, default_value = "60", value_parser = seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// With --suite: only this many of its tests, spread evenly over it
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    #[command(flatten)]
    pub device: AdapterOptions,
}

/// Largest litmus location distance, stride or stress offset, in words: beyond it test
/// memory exceeds any adapter's storage buffer, and the sums stay within u32.
pub const MAX_LITMUS_WORDS: i64 = 1 << 30;

/// Words between the x region and y's own region by default: 1 MiB.
pub const DEFAULT_Y_GAP: u32 = 1 << 18;

/// A litmus environment, for `litmus` and `tune`. The defaults are the layout of the minimal
/// MP harness the MC Mutants work describes (x of every instance in one region, y in another,
/// direct placement) at 512 workgroups and stride 4: it shows weak MP and SB outcomes by the
/// million per second where x and y 32 words apart in one region, permuted, show next to none
/// (bench/results/constants.md, docs/mutants.md).
#[derive(clap::Args, Clone, Debug)]
pub struct LitmusEnvOptions {
    /// Workgroups running test instances
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub testing_groups: u32,
    /// Threads per workgroup; each pair of threads runs one instance
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub workgroup_size: u32,
    /// Words between instances' locations
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=MAX_LITMUS_WORDS))]
    pub stride: u32,
    /// Words from x to y in one region, instead of y's own region (--y-gap); x and y in one
    /// cache line can hide MP and LB outcomes a GPU shows otherwise
    #[arg(long, conflicts_with = "y_gap", value_parser = clap::value_parser!(u32).range(1..=MAX_LITMUS_WORDS))]
    pub distance: Option<u32>,
    /// Put y of every instance in its own region, this many words after the end of the x
    /// region (instances x stride words) [default: 262144, 1 MiB, unless --distance]
    #[arg(long, value_name = "WORDS", value_parser = clap::value_parser!(u32).range(0..=MAX_LITMUS_WORDS))]
    pub y_gap: Option<u32>,
    /// Where instance k's locations go (direct, the default: the layout that showed the most
    /// weak MP and SB outcomes where it was measured, docs/mutants.md)
    #[arg(long, value_enum, default_value_t = LitmusPlacementArg::Direct)]
    pub placement: LitmusPlacementArg,
    /// Environment JSON written by `wgstress mutants --search`; used instead of the
    /// environment options when it was found on this adapter
    #[arg(long = "env", value_name = "FILE")]
    pub env_file: Option<PathBuf>,
    /// Keep the workgroups and instance threads as dispatched (no random permutation)
    #[arg(long)]
    pub no_shuffle: bool,
    /// Workgroups that stress memory beside the testing ones (tune: half the testing
    /// groups when 0)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_LITMUS_WORDS))]
    pub stress_groups: u32,
    /// Word of an instance's region that stress hammers (not a multiple of the stride)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=MAX_LITMUS_WORDS))]
    pub stress_offset: u32,
    /// Instance regions stress spreads over
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub target_lines: u32,
    /// Words of each target line stress spreads over
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_LITMUS_WORDS))]
    pub line_size: u32,
    /// Stress access sequence, as in ld;st
    #[arg(long, default_value = "ld;st")]
    pub sequence: Sequence,
    /// Iterations of the stress loop per stressing thread
    #[arg(long, default_value_t = 64)]
    pub stress_iterations: u32,
    /// Stress iterations by testing threads before the test
    #[arg(long, default_value_t = 0)]
    pub pre_stress: u32,
    #[command(flatten)]
    pub device: AdapterOptions,
}

impl LitmusEnvOptions {
    /// The environment of the options (not of --env FILE, which needs the adapter).
    pub fn env(&self, fence: bool) -> wgstress_model::litmus::env::Env {
        let distance = match (self.y_gap, self.distance) {
            (None, Some(distance)) => distance,
            // Saturated: beyond u32 the environment's check refuses it as too much memory.
            (gap, _) => u64::from(self.testing_groups)
                .saturating_mul(u64::from(self.workgroup_size))
                .saturating_mul(u64::from(self.stride))
                .saturating_add(u64::from(gap.unwrap_or(DEFAULT_Y_GAP)))
                .min(u64::from(u32::MAX)) as u32,
        };
        wgstress_model::litmus::env::Env {
            testing_groups: self.testing_groups,
            workgroup_size: self.workgroup_size,
            stride: self.stride,
            distance,
            placement: self.placement.into(),
            shuffle: !self.no_shuffle,
            stress_groups: self.stress_groups,
            stress_offset: self.stress_offset,
            target_lines: self.target_lines,
            line_size: self.line_size,
            sequence: self.sequence.clone(),
            stress_iterations: self.stress_iterations,
            pre_stress: self.pre_stress,
            fence,
            same_thread: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    pub fn on(self) -> bool {
        self == Switch::On
    }
}

/// The strategies for clap, each with its name and help from its one description
/// (wgstress_instrument::stress).
pub fn strategies() -> impl clap::builder::TypedValueParser<Value = Strategy> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Strategy::ALL.map(|s| PossibleValue::new(s.name()).help(s.help())))
        .map(|name| Strategy::named(&name).expect("clap offers only the strategies' names"))
}

pub fn schedules() -> impl clap::builder::TypedValueParser<Value = Schedule> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Schedule::ALL.map(|s| PossibleValue::new(s.name()).help(s.help())))
        .map(|name| Schedule::named(&name).expect("clap offers only the schedules' names"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlacementArg {
    /// Spread evenly among the application's workgroups
    Interleaved,
    /// After the application's workgroups
    After,
    /// Before the application's workgroups
    Before,
}

impl From<PlacementArg> for StressPlacement {
    fn from(arg: PlacementArg) -> StressPlacement {
        match arg {
            PlacementArg::Interleaved => StressPlacement::Interleaved,
            PlacementArg::After => StressPlacement::After,
            PlacementArg::Before => StressPlacement::Before,
        }
    }
}

/// Where a litmus instance's locations go (`wgstress litmus --placement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LitmusPlacementArg {
    /// x and y of instance k at k
    Direct,
    /// x and y at one co-prime permutation of k
    Permuted,
    /// x at k, y at a permutation of k (the MC Mutants paper's)
    YPermuted,
    /// x at one permutation of k, y at another
    Scattered,
}

impl From<LitmusPlacementArg> for LitmusPlacement {
    fn from(arg: LitmusPlacementArg) -> LitmusPlacement {
        match arg {
            LitmusPlacementArg::Direct => LitmusPlacement::Direct,
            LitmusPlacementArg::Permuted => LitmusPlacement::Permuted,
            LitmusPlacementArg::YPermuted => LitmusPlacement::YPermuted,
            LitmusPlacementArg::Scattered => LitmusPlacement::Scattered,
        }
    }
}

/// Most seconds a budget or timeout may give: about 31 years.
pub const MAX_SECONDS: f64 = 1e9;

/// A number of seconds: positive, at most `MAX_SECONDS`.
pub fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= MAX_SECONDS => Ok(Duration::from_secs_f64(x)),
        Ok(x) if x > MAX_SECONDS => Err(format!(
            "{text} seconds is more than the most a budget or timeout may be, 1e9 (about 31 years)"
        )),
        _ => Err(format!(
            "`{text}` is not a number of seconds: give more than 0 and at most 1e9"
        )),
    }
}

/// A positive, finite number.
pub fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("`{text}` is not a positive number")),
    }
}

/// LO-HI with 0 <= LO <= HI <= 1.
pub fn fraction_range(text: &str) -> Result<(f64, f64), String> {
    let bad = || format!("`{text}` is not a range: give LO-HI, as in 0.15-0.5");
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let (lo, hi): (f64, f64) = (
        lo.parse().map_err(|_| bad())?,
        hi.parse().map_err(|_| bad())?,
    );
    if !((0.0..=1.0).contains(&lo) && (lo..=1.0).contains(&hi)) {
        return Err(format!("`{text}`: give 0 <= LO <= HI <= 1"));
    }
    Ok((lo, hi))
}

/// A probability strictly between 0 and 1.
pub fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(format!("`{text}` is not above 0 and below 1")),
    }
}

/// A share: at least 0, at most 1.
pub fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{text}` is not a share: give 0 to 1")),
    }
}

/// A seed, decimal or 0x-hex.
pub fn seed(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("`{text}` is not a seed: give a number, decimal or 0x-hex"))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn fraction_ranges_stay_within_one() {
        assert_eq!(super::fraction_range("0.15-0.5"), Ok((0.15, 0.5)));
        assert_eq!(super::fraction_range("1-1"), Ok((1.0, 1.0)));
        assert!(super::fraction_range("5-10").is_err());
        assert!(super::fraction_range("0.5-0.2").is_err());
        assert!(super::fraction_range("0.5").is_err());
    }

    #[test]
    fn seconds_are_positive_and_bounded() {
        assert_eq!(super::seconds("2.5"), Ok(Duration::from_millis(2500)));
        for bad in ["0", "-3", "inf", "NaN", "x", "1e300"] {
            assert!(super::seconds(bad).is_err(), "{bad}");
        }
        // A number past the bound is a number: the message says what is wrong with it.
        let error = super::seconds("1e12").unwrap_err();
        assert!(
            error.starts_with("1e12 seconds is more than the most"),
            "{error}"
        );
        assert!(!error.contains("not a number"), "{error}");
    }
}
