//! Start lines: the schema's version and what each command is about to do.

use serde::{Deserialize, Serialize};
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::tune_grid::TuneConfig;
use wgstress_model::run::log::{CompareStart, RunStart};
use wgstress_model::stress::strategy::Strategy;
use wgstress_progress::wgsl::Mapping;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Start {
    /// `crate::VERSION` of the wgstress that wrote the log.
    pub version: u32,
    #[serde(flatten)]
    pub command: StartOf,
}

/// Each command's start line, named by its `command`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum StartOf {
    Run(RunStart),
    Compare(CompareStart),
    Fences(FencesStart),
    Tune(TuneStart),
    Mutants(MutantsStart),
    /// `mutants --search`.
    MutantsSearch(MutantsSearchStart),
    Litmus(LitmusStart),
    /// `progress` over tests (the suite or files); `progress APP` logs `run` lines.
    Progress(ProgressStart),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FencesStart {
    pub app: String,
    pub adapter: String,
    /// The user's strategy; none: the search picks the one that fails most.
    pub strategy: Option<Strategy>,
    pub budget_seconds: f64,
    pub verify_seconds: f64,
    pub search_seconds: f64,
    pub master_seed: String,
}

/// The adapter and the tuning grid's configuration. Unknown keys are refused by the reader
/// (read.rs), which serde's `deny_unknown_fields` cannot do beside `flatten`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TuneStart {
    pub adapter: String,
    #[serde(flatten)]
    pub config: TuneConfig,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MutantsStart {
    pub adapter: String,
    pub env: Env,
    pub tests: usize,
    pub time_per_test: f64,
    pub reproducibility: f64,
    pub budget: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MutantsSearchStart {
    pub adapter: String,
    pub seconds: f64,
    pub search_time: f64,
    pub search_groups: Vec<u32>,
    pub random_share: f64,
    pub reproducibility: f64,
    pub budget: f64,
    pub seed: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LitmusStart {
    pub test: String,
    pub adapter: String,
    pub env: Env,
    pub iterations: Option<u64>,
    pub seconds: Option<f64>,
    pub batch: u32,
    pub seed: u64,
}

/// What `progress` runs: the suite, or test files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProgressMode {
    Suite,
    Tests,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressStart {
    pub mode: ProgressMode,
    pub adapter: String,
    pub tests: usize,
    pub mappings: Vec<Mapping>,
    pub iterations: u32,
    pub instances: Option<u32>,
    pub loop_bound: u32,
    pub timeout: f64,
}
