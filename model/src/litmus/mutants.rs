//! The MC Mutants suite's results in one environment, and its scores over them
//! (`wgstress_litmus::mutants` runs the suite on a device).

use crate::litmus::counts::LitmusCounts;
use crate::litmus::kind::Kind;
use serde::Serialize;

/// One test's run.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct TestResult {
    pub name: String,
    pub kind: Kind,
    pub iterations: u64,
    pub instances: u64,
    pub seconds: f64,
    pub counts: LitmusCounts,
    /// Target behaviours per second (for a mutant, its death rate).
    pub rate: f64,
    /// Disallowed outcomes seen, with their counts (any is a conformance violation).
    pub violations: Vec<Violation>,
}

impl TestResult {
    pub fn is_mutant(&self) -> bool {
        matches!(self.kind, Kind::Mutant(_))
    }
    pub fn killed(&self) -> bool {
        self.is_mutant() && self.counts.target > 0
    }
}

/// A disallowed outcome seen.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Violation {
    pub outcome: String,
    pub count: u64,
    /// It breaks coherence (SC per location), which WGSL promises; otherwise it breaks only
    /// the paper's release/acquire reading of storageBarrier() across workgroups.
    pub incoherent: bool,
}

/// The death rate (kills per second) a behaviour needs so that a run of `budget` seconds shows
/// it with probability `reproducibility`: line 7 of Algorithm 1, ceil(-ln(1 - r)) / b.
pub fn ceiling_rate(reproducibility: f64, budget: f64) -> f64 {
    (-(1.0 - reproducibility).ln()).ceil() / budget
}

/// The suite's scores over some results.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct MutantScores {
    pub mutants: usize,
    pub killed: usize,
    /// Killed mutants / mutants.
    pub mutation_score: f64,
    /// Mean death rate over the mutants (kills per second).
    pub mean_death_rate: f64,
    /// For the reproducibility target and budget: the death rate needed, and how many
    /// mutants reach it (the paper's reproducible mutants).
    pub reproducibility: f64,
    pub budget: f64,
    pub ceiling_rate: f64,
    pub reproducible: usize,
    pub conformance_tests: usize,
    /// Tests that showed an outcome breaking coherence (a bug by WGSL's own rules).
    pub incoherent: Vec<String>,
    /// Tests that showed an outcome breaking only the paper's release/acquire fences.
    pub relacq_only: Vec<String>,
}

pub fn summarise(results: &[TestResult], reproducibility: f64, budget: f64) -> MutantScores {
    let mutants: Vec<&TestResult> = results.iter().filter(|r| r.is_mutant()).collect();
    let killed = mutants.iter().filter(|r| r.killed()).count();
    let ceiling = ceiling_rate(reproducibility, budget);
    MutantScores {
        mutants: mutants.len(),
        killed,
        mutation_score: killed as f64 / mutants.len().max(1) as f64,
        // A fold from 0, not a sum: the sum of nothing is -0.
        mean_death_rate: mutants.iter().fold(0.0, |sum, r| sum + r.rate)
            / mutants.len().max(1) as f64,
        reproducibility,
        budget,
        ceiling_rate: ceiling,
        reproducible: mutants.iter().filter(|r| r.rate >= ceiling).count(),
        conformance_tests: results
            .iter()
            .filter(|r| matches!(r.kind, Kind::Conformance(_)))
            .count(),
        incoherent: results
            .iter()
            .filter(|r| r.violations.iter().any(|v| v.incoherent))
            .map(|r| r.name.clone())
            .collect(),
        relacq_only: results
            .iter()
            .filter(|r| !r.violations.is_empty() && r.violations.iter().all(|v| !v.incoherent))
            .map(|r| r.name.clone())
            .collect(),
    }
}
