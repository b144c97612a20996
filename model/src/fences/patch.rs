//! The fix as the user gets it: which set is suggested, and each file's patch.

use serde::Serialize;

/// Which fix is suggested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// Both sides of every pair the kept barriers belong to.
    #[default]
    Portable,
    /// What this adapter needed.
    Minimal,
}

/// A file's fix as the user gets it.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Patch {
    /// The user's file with the fix made in it: what `-o` writes and `--fix` puts in place.
    Source {
        #[serde(skip)]
        text: String,
        diff: String,
        changed_lines: usize,
    },
    /// naga's rendering of the whole shader with the fix, where the text cannot express it.
    Rendered {
        #[serde(skip)]
        text: String,
        diff: String,
        why: String,
    },
}

impl Patch {
    pub fn text(&self) -> &str {
        match self {
            Patch::Source { text, .. } | Patch::Rendered { text, .. } => text,
        }
    }

    pub fn diff(&self) -> &str {
        match self {
            Patch::Source { diff, .. } | Patch::Rendered { diff, .. } => diff,
        }
    }
}

/// The patch of one file the fix changes.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct FilePatch {
    pub file: String,
    #[serde(flatten)]
    pub patch: Patch,
}
