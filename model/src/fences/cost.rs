//! What a fix costs: one variant's time per run, as the fence search measured it
//! (`wgstress_fences::cost` times the variants).

use serde::Serialize;

/// One variant's time per run.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Cost {
    /// What ran: "original", "portable fix", "minimal fix", "every site", "fixed variant".
    pub of: String,
    /// Median seconds per run over the batches, and the first and third quartiles.
    pub seconds_per_run: f64,
    pub low: f64,
    pub high: f64,
    pub batches: usize,
    /// The median against the original's, in percent (+3.2: 3.2% slower).
    pub percent: f64,
}
