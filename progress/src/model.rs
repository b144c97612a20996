//! Progress models: in each state, the set F of threads guaranteed fair (eventual) execution,
//! as a function of which threads have taken a step and which have terminated (the seed's
//! §4.1 and Table 1). No model removes a thread from F before it terminates, so F is the same
//! in every state of a cycle (the oracle relies on it).

use serde::Serialize;
use std::fmt;

/// Threads as bits: bit t for thread t.
pub(crate) type Threads = u8;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// No thread is ever guaranteed to run again.
    Unfair,
    /// The lowest-id thread that has not terminated.
    Hsa,
    /// Threads that have taken a step (occupancy-bound execution).
    Obe,
    /// HSA's thread and OBE's threads together.
    HsaObe,
    /// Threads that have taken a step and every thread of a lower id (linear OBE).
    Lobe,
    /// Every thread that has not terminated.
    Fair,
}

/// Weak: a thread of F that is always enabled eventually runs (no starvation). Strong: in
/// addition, a way out of a cycle that F's threads can take is eventually taken (no livelock).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Fairness {
    Weak,
    Strong,
}

/// A progress model with its fairness: what the oracle decides termination under.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub struct ProgressScheduler {
    pub model: Model,
    pub fairness: Fairness,
}

impl Model {
    pub const ALL: [Model; 6] = [
        Model::Unfair,
        Model::Hsa,
        Model::Obe,
        Model::HsaObe,
        Model::Lobe,
        Model::Fair,
    ];

    /// F, for a test of `threads` threads, given who has stepped and who has terminated.
    pub(crate) fn fair(self, threads: usize, stepped: Threads, done: Threads) -> Threads {
        let all: Threads = ((1u16 << threads) - 1) as Threads;
        let live = all & !done;
        let lowest = live & live.wrapping_neg();
        let below_stepped = if stepped == 0 {
            0
        } else {
            let highest = 7 - stepped.leading_zeros();
            ((1u16 << (highest + 1)) - 1) as Threads
        };
        match self {
            Model::Unfair => 0,
            Model::Hsa => lowest,
            Model::Obe => stepped & live,
            Model::HsaObe => (stepped | lowest) & live,
            Model::Lobe => below_stepped & live,
            Model::Fair => live,
        }
    }

    /// Whether every test guaranteed to terminate under `self` is under `other` too (the
    /// seed's hierarchy: unfair below all; HSA and OBE, incomparable, below HSA+OBE, below
    /// LOBE, below fair).
    pub(crate) fn at_most(self, other: Model) -> bool {
        let rank = |m: Model| match m {
            Model::Unfair => 0,
            Model::Hsa | Model::Obe => 1,
            Model::HsaObe => 2,
            Model::Lobe => 3,
            Model::Fair => 4,
        };
        self == other || rank(self) < rank(other)
    }

    pub fn name(self) -> &'static str {
        match self {
            Model::Unfair => "unfair",
            Model::Hsa => "HSA",
            Model::Obe => "OBE",
            Model::HsaObe => "HSA+OBE",
            Model::Lobe => "LOBE",
            Model::Fair => "fair",
        }
    }
}

impl ProgressScheduler {
    /// Every model under both fairness notions; the unfair model once (fairness does not
    /// change it: it guarantees no thread anything).
    pub fn all() -> Vec<ProgressScheduler> {
        let mut all = vec![ProgressScheduler {
            model: Model::Unfair,
            fairness: Fairness::Weak,
        }];
        for model in &Model::ALL[1..] {
            for fairness in [Fairness::Weak, Fairness::Strong] {
                all.push(ProgressScheduler {
                    model: *model,
                    fairness,
                });
            }
        }
        all
    }

    /// Whether `self` guarantees termination of every test `other` does.
    pub(crate) fn at_most(self, other: ProgressScheduler) -> bool {
        self.model == Model::Unfair
            || (self.model.at_most(other.model) && self.fairness <= other.fairness)
    }
}

impl fmt::Display for ProgressScheduler {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match (self.model, self.fairness) {
            (Model::Unfair, _) => f.write_str("unfair"),
            (m, Fairness::Weak) => write!(f, "weak {}", m.name()),
            (m, Fairness::Strong) => write!(f, "strong {}", m.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Model;

    #[test]
    fn each_model_guarantees_the_threads_table_1_names() {
        // Three threads; thread 2 has stepped, thread 0 has terminated.
        let (stepped, done) = (0b101, 0b001);
        assert_eq!(Model::Unfair.fair(3, stepped, done), 0);
        assert_eq!(Model::Hsa.fair(3, stepped, done), 0b010);
        assert_eq!(Model::Obe.fair(3, stepped, done), 0b100);
        assert_eq!(Model::HsaObe.fair(3, stepped, done), 0b110);
        assert_eq!(Model::Lobe.fair(3, stepped, done), 0b110);
        assert_eq!(Model::Fair.fair(3, stepped, done), 0b110);
        // Nobody has stepped: LOBE and OBE guarantee nobody yet, HSA thread 0.
        assert_eq!(Model::Lobe.fair(3, 0, 0), 0);
        assert_eq!(Model::Hsa.fair(3, 0, 0), 0b001);
        assert_eq!(Model::Lobe.fair(8, 0b1000_0000, 0), 0xff);
    }

    #[test]
    fn hsa_and_obe_are_incomparable_and_below_lobe() {
        assert!(!Model::Hsa.at_most(Model::Obe));
        assert!(!Model::Obe.at_most(Model::Hsa));
        assert!(Model::Hsa.at_most(Model::Lobe));
        assert!(Model::Obe.at_most(Model::HsaObe));
        assert!(Model::Unfair.at_most(Model::Hsa));
        assert!(!Model::Fair.at_most(Model::Lobe));
    }
}
