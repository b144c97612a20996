//! Summary lines: what each command found, its last line.

use serde::{Deserialize, Serialize};
use wgstress_model::fences::outcome::FenceOutcome;
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::kind::Kind;
use wgstress_model::litmus::mutants::{MutantScores, TestResult};
use wgstress_model::litmus::search::SearchResult;
use wgstress_model::litmus::tune_grid::Evidence;
use wgstress_model::run::progress_verdict::ProgressReport;
use wgstress_model::run::summary::Comparison;
use wgstress_model::run::summary::RunSummary;
use wgstress_model::stress::profile::Profile;
use wgstress_progress::observe::{ConformanceJudgement as Judgement, Observed};
use wgstress_progress::wgsl::Mapping;

use crate::start::ProgressMode;

/// Each command's summary line, named by its `command`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum Summary {
    Run(Box<RunSummary>),
    Compare(Comparison),
    Fences(Box<FencesSummary>),
    Tune(TuneSummary),
    Mutants(MutantsSummary),
    /// `mutants --search`.
    MutantsSearch(SearchResult),
    Litmus(LitmusSummary),
    Progress(ProgressSummary),
    /// `progress APP`: the models' verdicts, after each model's `run` lines.
    ProgressApp(ProgressAppSummary),
}

/// The search's outcome and what became of the files it would fix.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FencesSummary {
    #[serde(flatten)]
    pub outcome: FenceOutcome,
    /// Files the verified fix was written to (`-o`).
    pub output: Vec<String>,
    /// Files edited in place (`--fix`).
    pub fixed_in_place: Vec<String>,
    pub not_fixed_in_place: Option<NotFixedInPlace>,
}

/// Why `--fix` edited none of the files (or stopped part way).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotFixedInPlace {
    /// The files left as they were.
    pub files: Vec<String>,
    pub why: String,
}

/// The tuned profile, the evidence it rests on, and whether it was written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TuneSummary {
    #[serde(flatten)]
    pub profile: Profile,
    pub evidence: Evidence,
    /// How it differs from the profile it replaces, on the same adapter.
    pub changes: Option<Vec<String>>,
    pub written: bool,
    pub interrupted: bool,
}

/// The suite's runs in one environment and their scores.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MutantsSummary {
    pub adapter: String,
    pub env: Env,
    pub time_per_test: f64,
    pub summary: MutantScores,
    pub results: Vec<TestResult>,
    pub seconds: f64,
    pub tests: usize,
    pub interrupted: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LitmusSummary {
    pub test: String,
    pub kind: Kind,
    pub weak_behaviour: String,
    pub adapter: String,
    pub env: Env,
    pub iterations: u64,
    pub instances: u64,
    pub counts: LitmusCounts,
    pub seconds: f64,
    pub weak_per_second: f64,
    pub reproducibility: f64,
    pub interrupted: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressSummary {
    pub adapter: String,
    pub mode: ProgressMode,
    pub tests: usize,
    pub tests_run: usize,
    pub mappings: Vec<Mapping>,
    pub iterations: u32,
    pub loop_bound: u32,
    pub seconds: f64,
    pub observed: Vec<Observed>,
    pub judgement: Judgement,
    pub interrupted: bool,
    /// The error that ended the runs, if one did.
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressAppSummary {
    pub report: ProgressReport,
}
