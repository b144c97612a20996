//! What `wgstress tune` is asked to do, and what its choices rest on: the grids' sizes and
//! how they shrink to fit a time budget (`wgstress_litmus::tuning` runs them on a device).

use crate::litmus::env::Env;
use crate::stress::sequence::Sequence;
use serde::Serialize;

/// Weak behaviours a setting must show for a step to choose it over the seed's default.
pub const MIN_WEAK: u64 = 10;

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct TuneConfig {
    /// Distances 1..=distances between x and y.
    pub distances: u32,
    /// Stressed locations 0..locations from x.
    pub locations: u32,
    pub max_sequence: usize,
    pub max_spread: u32,
    pub iterations_per_cell: u32,
    pub env: Env,
}

/// The patch periods, in words, the patch-finding grid looks for.
pub const PERIODS: [u32; 5] = [4, 8, 16, 32, 64];

/// What a grid cell (one test in one environment) costs on a device: a fixed part (one
/// submission, its read-back), a part per litmus iteration, and a part per word of test
/// memory, which every new environment clears (on lavapipe, 0.09 s a cell at the smallest
/// grid's memory, 0.16 s at the default grid's).
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize)]
pub struct CellCost {
    pub fixed: f64,
    pub per_iteration: f64,
    pub per_word: f64,
}

impl CellCost {
    /// Seconds of one cell of `iterations` iterations in `words` words of test memory.
    pub fn of(&self, iterations: u32, words: u64) -> f64 {
        self.fixed + self.per_iteration * f64::from(iterations) + self.per_word * words as f64
    }
}

impl TuneConfig {
    /// Scales the grids to fit `budget` seconds at `cost` a cell: fewer iterations first,
    /// then coarser grids, down to one distance, two locations, sequences of one access,
    /// one patch and one iteration. False when even that does not fit.
    pub fn fit(&mut self, budget: f64, cost: CellCost) -> bool {
        while self.estimate(cost) > budget {
            if !self.coarser() {
                return false;
            }
        }
        true
    }

    /// Seconds this tune takes at `cost` a cell.
    pub fn estimate(&self, cost: CellCost) -> f64 {
        self.cells() as f64 * cost.of(self.iterations_per_cell, capacity(self))
    }

    /// One step coarser, in the order that keeps most of the tune: false at the floor.
    pub fn coarser(&mut self) -> bool {
        if self.iterations_per_cell > 4 {
            self.iterations_per_cell /= 2;
        } else if self.locations > 64 {
            self.locations /= 2;
        } else if self.max_sequence > 3 {
            self.max_sequence -= 1;
        } else if self.max_spread > 16 {
            self.max_spread /= 2;
        } else if self.distances > 1 {
            self.distances -= 1;
        } else if self.iterations_per_cell > 1 {
            self.iterations_per_cell /= 2;
        } else if self.locations > 8 {
            // Two periods of the shortest patch still show.
            self.locations /= 2;
        } else if self.max_sequence > 2 {
            self.max_sequence -= 1;
        } else if self.max_spread > 4 {
            self.max_spread /= 2;
        } else if self.locations > 2 {
            self.locations = (self.locations / 2).max(2);
        } else if self.max_sequence > 1 {
            self.max_sequence -= 1;
        } else if self.max_spread > 1 {
            self.max_spread = (self.max_spread / 2).max(1);
        } else {
            return false;
        }
        true
    }

    pub fn cells(&self) -> u64 {
        3 * u64::from(
            self.distances * self.locations
                + Sequence::all(self.max_sequence).len() as u32
                + self.max_spread,
        )
    }
}

/// Test memory for every environment of a tune: its widest stride.
pub fn capacity(config: &TuneConfig) -> u64 {
    Env {
        stride: config.locations.max(PERIODS[4] + 1) + config.distances + 1,
        ..config.env.clone()
    }
    .memory_words()
}

/// The weak behaviours behind each choice (summed over the three tests): the patch-finding
/// grid's when it showed a period, the chosen sequence's and the chosen spread's; and those
/// of every cell run. A choice short of `MIN_WEAK` is the seed's default instead.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct Evidence {
    pub patch: u64,
    pub sequence: u64,
    pub spread: u64,
    pub weak: u64,
    pub cells: u64,
}

impl Evidence {
    /// Whether any choice rests on weak behaviour rather than on the seed's defaults.
    pub fn any(&self) -> bool {
        [self.patch, self.sequence, self.spread]
            .iter()
            .any(|&w| w >= MIN_WEAK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_scales_down_to_the_budget() {
        let defaults = TuneConfig {
            distances: 64,
            locations: 128,
            max_sequence: 5,
            max_spread: 64,
            iterations_per_cell: 16,
            env: Env::default(),
        };
        // lavapipe at the default environment: 40 ms a cell and 45 ms an iteration.
        let cost = CellCost {
            fixed: 0.04,
            per_iteration: 0.045,
            per_word: 0.0,
        };
        for budget in [2.0, 10.0, 60.0] {
            let mut config = defaults.clone();
            assert!(config.fit(budget, cost), "{budget}: {config:?}");
            let estimate = config.estimate(cost);
            assert!(estimate <= budget, "{budget}: {estimate} s, {config:?}");
        }
        // The smallest tune, 15 cells of one iteration, takes 1.3 s: a second holds none.
        let mut config = defaults.clone();
        assert!(!config.fit(1.0, cost));
        assert_eq!(
            (
                config.distances,
                config.locations,
                config.max_sequence,
                config.max_spread,
                config.iterations_per_cell
            ),
            (1, 2, 1, 1, 1)
        );
        assert_eq!(config.cells(), 15);
    }
}
