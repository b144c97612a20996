//! What each stress shape of a session's adaptive systematic stress ran and showed, as its
//! summary records it (`wgstress_runtime::stress::shapes` chooses the shapes).

use serde::Serialize;

/// One arm's shape and record, for the summary.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct ShapeRecord {
    pub shape: String,
    pub runs: u64,
    pub failures: u64,
}
