//! The best environment the search found, as JSON: `litmus`, `mutants` and `tune` use it
//! when it was found on the same adapter.

use serde::{Deserialize, Serialize};
use std::path::Path;
use wgstress_model::litmus::env::Env;
use wgstress_runtime::{Result, RuntimeError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnvFile {
    /// The adapter the environment was found on: it is used only there.
    pub adapter: String,
    pub driver: String,
    pub backend: String,
    pub env: Env,
    /// Algorithm 1's targets the choice was made for.
    pub reproducibility: f64,
    pub budget: f64,
    /// Mutants at or above the ceiling rate, and the least non-zero death rate (None: none).
    pub above_ceiling: usize,
    pub min_rate: Option<f64>,
    pub mutants: usize,
    pub killed: usize,
    /// Death rate per mutant in this environment, during the search.
    pub rates: Vec<(String, f64)>,
    pub environments_tried: usize,
    pub search_seconds: f64,
}

impl EnvFile {
    pub fn load(path: &Path) -> Result<EnvFile> {
        let text = wgstress_model::read::text(
            path,
            wgstress_model::read::ENV_BYTES,
            "an environment file may hold",
        )?;
        serde_json::from_str(&text).map_err(|e| RuntimeError::json(path, e))
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("environments serialize");
        wgstress_runtime::write::replace(path, text.as_bytes())
            .map_err(|e| RuntimeError::io(path, e))
    }
}

/// The environment of the file at `path` when it was found on `adapter`, with a note for
/// people; None (and the note says why) when it was found elsewhere.
pub fn env_for(adapter: &str, path: &Path) -> Result<(Option<Env>, String)> {
    let file = EnvFile::load(path)?;
    if file.adapter != adapter {
        return Ok((
            None,
            format!(
                "{} is for {}, not {adapter}: using the command line's environment",
                path.display(),
                file.adapter
            ),
        ));
    }
    Ok((
        Some(file.env),
        format!(
            "environment {} ({} of {} mutants at or above {:.3}/s for {:.3}% in {} s)",
            path.display(),
            file.above_ceiling,
            file.mutants,
            wgstress_model::litmus::mutants::ceiling_rate(file.reproducibility, file.budget),
            file.reproducibility * 100.0,
            file.budget
        ),
    ))
}
