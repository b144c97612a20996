//! What the search for the environment that kills the most mutants tried and chose
//! (`wgstress_litmus::search` runs it on a device).

use crate::litmus::env::Env;
use serde::Serialize;

/// How a candidate environment was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Random,
    Guided,
}

/// One environment tried.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Candidate {
    pub env: Env,
    pub phase: Phase,
    /// Death rate per mutant, in the order of `SearchResult::mutants`.
    pub rates: Vec<f64>,
    pub above_ceiling: usize,
    pub min_rate: f64,
    pub killed: usize,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct SearchResult {
    pub mutants: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// The chosen candidate; none when the search was stopped before one was scored.
    pub best: Option<usize>,
    pub ceiling_rate: f64,
    pub seconds: f64,
    /// Stopped (Ctrl-C, SIGTERM) before its budget was spent: the candidates scored in full.
    pub interrupted: bool,
}

impl SearchResult {
    pub fn best(&self) -> Option<&Candidate> {
        self.best.map(|b| &self.candidates[b])
    }
}
