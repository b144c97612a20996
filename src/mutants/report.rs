//! What `mutants` scores against and how it prints, whichever way it runs.

/// The reproducibility target and per-test budget the scores are for, and the output form.
pub struct Report {
    /// The reproducibility target of the score and of the search's Algorithm 1.
    pub reproducibility: f64,
    /// Seconds of the per-test budget the reproducibility score is for.
    pub budget: f64,
    /// Print JSON instead of tables.
    pub json: bool,
}
