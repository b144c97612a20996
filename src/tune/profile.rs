//! What `wgstress tune` found, for people.

use std::fmt::Write;
use std::path::Path;
use wgstress_model::litmus::tune_grid::{Evidence, MIN_WEAK};
use wgstress_model::stress::profile::Profile;

/// `changes`: how the profile differs from the one of the same adapter it replaced, if any.
pub fn report(
    profile: &Profile,
    evidence: &Evidence,
    changes: Option<&[String]>,
    path: &Path,
    heat_map: &Path,
) -> String {
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("adapter", profile.adapter.clone());
    row("weak behaviour", seen(evidence, profile));
    row(
        "patch size",
        format!("{} words ({})", profile.patch_words, profile.patch_note),
    );
    row("sequence", profile.sequence.to_string());
    row(
        "spread",
        crate::present::numbers::count(profile.spread, "patch", "patches"),
    );
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

/// What a tune saw.
fn seen(evidence: &Evidence, profile: &Profile) -> String {
    let choice = |name: &str, weak: u64| {
        if weak >= MIN_WEAK {
            format!("{name} from {weak}")
        } else {
            format!("{name} the default")
        }
    };
    format!(
        "{} in {} cells of {} iterations; {}, {}, {}",
        evidence.weak,
        evidence.cells,
        profile.iterations_per_cell,
        choice("patch size", evidence.patch),
        choice("sequence", evidence.sequence),
        choice("spread", evidence.spread)
    )
}

/// What a tune saw when no choice rested on weak behaviour: no profile is written.
pub fn no_signal(profile: &Profile, evidence: &Evidence) -> String {
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("adapter", profile.adapter.clone());
    row("weak behaviour", seen(evidence, profile));
    row(
        "profile",
        format!(
            "none written: no setting showed {MIN_WEAK} or more weak behaviours, so systematic \
             stress keeps its defaults (a longer --budget, more --iterations-per-cell or \
             another environment may show some)"
        ),
    );
    row("took", format!("{:.1} s", profile.seconds));
    out
}

/// What a tune stopped by Ctrl-C or SIGTERM saw in the cells that ran (of `cells`): no
/// profile is written, since its steps did not all run.
pub fn interrupted(profile: &Profile, evidence: &Evidence, cells: u64) -> String {
    let mut out = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(out, "{key:<16} {value}");
    };
    row("adapter", profile.adapter.clone());
    row(
        "interrupted",
        format!("after {} of {cells} cells", evidence.cells),
    );
    row(
        "weak behaviour",
        format!(
            "{} in {} cells of {} iterations",
            evidence.weak, evidence.cells, profile.iterations_per_cell
        ),
    );
    row(
        "profile",
        "none written: the tune did not finish (the log keeps the cells that ran)".into(),
    );
    row("took", format!("{:.1} s", profile.seconds));
    out
}
