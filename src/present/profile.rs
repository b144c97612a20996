//! What `wgstress tune` found, for people.

use std::fmt::Write;
use std::path::Path;
use wgstress_runtime::stress::profile::Profile;

/// `changes`: how the profile differs from the one of the same adapter it replaced, if any.
pub fn report(
    profile: &Profile,
    changes: Option<&[String]>,
    path: &Path,
    heat_map: &Path,
) -> String {
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("adapter", profile.adapter.clone());
    row(
        "patch size",
        format!("{} words ({})", profile.patch_words, profile.patch_note),
    );
    row("sequence", profile.sequence.to_string());
    row("spread", format!("{} patches", profile.spread));
    row(
        "took",
        format!(
            "{:.1} s ({} iterations per cell)",
            profile.seconds, profile.iterations_per_cell
        ),
    );
    row("profile", path.display().to_string());
    if let Some(changes) = changes {
        let text = if changes.is_empty() {
            "none".to_string()
        } else {
            changes.join("; ")
        };
        row("changes", format!("{text} (from the profile it replaced)"));
    }
    row("heat map", heat_map.display().to_string());
    out
}
