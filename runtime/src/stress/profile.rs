//! Device profiles on disk: reading and writing them, and the shape `run` and `compare` take
//! from one (the profile is `wgstress_model`'s).

use crate::error::{Result, RuntimeError};
use std::path::Path;
use wgstress_model::stress::params::StressShape;
use wgstress_model::stress::profile::Profile;

/// Where `run` and `compare` look for a profile when none is named.
pub const DEFAULT_PATH: &str = "wgstress-profile.json";

/// The profile at `path`.
pub fn load(path: &Path) -> Result<Profile> {
    let text = wgstress_model::read::text(
        path,
        wgstress_model::read::PROFILE_BYTES,
        "a profile may hold",
    )?;
    serde_json::from_str(&text).map_err(|e| RuntimeError::json(path, e))
}

/// Writes `profile` to `path`, in place of what was there.
pub fn save(profile: &Profile, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(profile).expect("profiles serialize");
    crate::write::replace(path, text.as_bytes()).map_err(|e| RuntimeError::io(path, e))
}

/// The systematic stress shape for `adapter`: from the profile at `path` (or the default
/// path) when it was tuned on that adapter, else the seed study's defaults. The second value
/// says where the shape came from.
pub fn shape_for(adapter: &str, path: Option<&Path>) -> Result<(StressShape, String)> {
    let default = (
        StressShape::default(),
        "the PLDI'16 defaults (32-word patches, ld;st, 2 patches)".to_string(),
    );
    let path = match path {
        Some(p) => p.to_path_buf(),
        None if Path::new(DEFAULT_PATH).exists() => Path::new(DEFAULT_PATH).to_path_buf(),
        None => return Ok(default),
    };
    let profile = load(&path)?;
    if profile.adapter != adapter {
        return Ok((
            default.0,
            format!(
                "{} (the profile {} is for {})",
                default.1,
                path.display(),
                profile.adapter
            ),
        ));
    }
    let shape = profile.shape();
    let note = format!(
        "profile {}: {}-word patches, {}, {} patches",
        path.display(),
        shape.patch_words,
        shape.sequence,
        shape.spread
    );
    Ok((shape, note))
}
