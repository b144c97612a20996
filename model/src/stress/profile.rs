//! Device profiles: what `wgstress tune` found on an adapter, used by the systematic strategy
//! when the adapter matches (`wgstress_runtime::stress::profile` reads and writes them).

use crate::stress::params::StressShape;
use crate::stress::sequence::Sequence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub adapter: String,
    pub driver: String,
    pub backend: String,
    pub patch_words: u32,
    pub sequence: Sequence,
    pub spread: u32,
    /// Why the patch size is what it is (a period found, or the default kept).
    pub patch_note: String,
    /// Weak behaviours per test, per distance (rows) and stressed location (columns).
    pub patch_grid: BTreeMap<String, Vec<Vec<u64>>>,
    /// Weak behaviours per access sequence, summed over MP, SB and LB (normalised per test).
    pub sequence_scores: Vec<(String, f64)>,
    /// Weak behaviours per number of stressed patches.
    pub spread_scores: Vec<(u32, f64)>,
    pub iterations_per_cell: u32,
    pub seconds: f64,
}

impl Profile {
    pub fn shape(&self) -> StressShape {
        StressShape {
            patch_words: self.patch_words,
            spread: self.spread,
            sequence: self.sequence.clone(),
            ..StressShape::default()
        }
    }

    /// How this profile differs from `before` in what the systematic strategy uses, one line
    /// per setting: `patch size: 32 -> 16 words`; empty when nothing changed.
    pub fn changes_from(&self, before: &Profile) -> Vec<String> {
        let mut changes = Vec::new();
        if self.patch_words != before.patch_words {
            changes.push(format!(
                "patch size: {} -> {} words",
                before.patch_words, self.patch_words
            ));
        }
        if self.sequence != before.sequence {
            changes.push(format!(
                "sequence: {} -> {}",
                before.sequence, self.sequence
            ));
        }
        if self.spread != before.spread {
            changes.push(format!(
                "spread: {} -> {} patches",
                before.spread, self.spread
            ));
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(patch_words: u32, sequence: &str, spread: u32) -> Profile {
        Profile {
            adapter: "GPU".into(),
            driver: String::new(),
            backend: String::new(),
            patch_words,
            sequence: sequence.parse().unwrap(),
            spread,
            patch_note: String::new(),
            patch_grid: BTreeMap::new(),
            sequence_scores: vec![],
            spread_scores: vec![],
            iterations_per_cell: 1,
            seconds: 0.0,
        }
    }

    #[test]
    fn changes_name_what_moved() {
        let before = profile(32, "ld;st", 2);
        assert!(before.changes_from(&before).is_empty());
        let after = profile(16, "st", 2);
        assert_eq!(
            after.changes_from(&before),
            ["patch size: 32 -> 16 words", "sequence: ld;st -> st"]
        );
    }
}
