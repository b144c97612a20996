//! What a session says of itself before and after it runs: where it runs and what the
//! adapter's results are worth, the settings it measured, the litmus environment it resolved.

use crate::notes::Notes;
use crate::session::SessionPlan;
use std::path::Path;
use wgstress_model::litmus::env::Env;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::stress::params::Settings;
use wgstress_runtime::gpu::engine::Engine;

/// What runs where, and what the adapter's results are worth.
pub(crate) fn announce(engine: &Engine, notes: Notes) {
    notes.note(&format!(
        "{} on {}",
        engine.app().name,
        engine.gpu().describe()
    ));
    if let Some(caveat) = wgstress_runtime::gpu::device::caveat(&engine.gpu().info.name) {
        notes.note(&format!("note: {caveat}"));
    }
    notes.app_warnings(engine.app());
}

pub(crate) fn note_measured(
    settings: &Settings,
    calibration: &Calibration,
    session: &SessionPlan,
    notes: Notes,
) {
    let iterations = session.stress.iterations;
    if let Some(text) = crate::present::bar::calibrated(settings, calibration, iterations) {
        notes.note(&text);
    }
}

/// The environment of `--env FILE` when the search found it on `adapter` (with `env`'s
/// fence), else `env`, the options' one; a note says which.
pub(crate) fn resolve_env(
    env: Env,
    file: Option<&Path>,
    adapter: &str,
    notes: Notes,
) -> anyhow::Result<Env> {
    let Some(path) = file else {
        return Ok(env);
    };
    let (found, note) = wgstress_litmus::env_file::env_for(adapter, path)?;
    notes.note(&note);
    Ok(match found {
        Some(found) => Env {
            fence: env.fence,
            ..found
        },
        None => env,
    })
}
