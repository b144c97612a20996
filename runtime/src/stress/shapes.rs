//! Application-aware systematic stress: each run draws its stress shape (access sequence and
//! spread) from a distribution that shifts towards the shapes that made this application
//! fail, while it keeps exploring the others.
//!
//! The shapes are the arms of a bandit, chosen by Thompson sampling: each arm's failure rate
//! has a Beta posterior, and every run goes to the arm whose sampled rate is highest. An arm
//! that has failed often keeps most of the runs; an arm that never failed still gets runs in
//! proportion to the chance that it is better, so a bug that only one shape shows is found
//! once that shape is tried. A share of runs is drawn uniformly all the same: failure rates
//! move as stress iterations and the machine's state do.
//!
//! Why not one tuned shape: a bug that fails often under one shape can never fail under
//! another (ct-octree needs stores on several patches, which the seed's `ld;st` on 2 lacks),
//! and a shape tuned on litmus tests can stop other bugs failing
//! (bench/results/constants.md).

use rand::{Rng, SeedableRng};
use rand_distr::{Beta, Distribution};
use serde::Serialize;
use wgstress_model::stress::params::StressShape;
use wgstress_model::stress::sequence::{Access, Sequence};
use wgstress_model::stress::shape_summary::ShapeRecord;

/// Access sequences the arms use: the seed's default and store-heavy ones. The bundled bugs
/// need stores in the stress; a loads-only sequence exposes the hardest of them not at all
/// (bench/results/constants.md).
const SEQUENCES: [&[Access]; 6] = {
    use Access::{Load as L, Store as S};
    [&[L, S], &[S, S], &[S], &[S, S, S], &[L, L, S], &[S, L]]
};
/// Patches stressed at once.
const SPREADS: [u32; 3] = [2, 4, 8];
/// Stress iterations as a multiple of the calibrated count: ct-octree failed in 21% of runs
/// with `st;st` on 8 patches at 3,807 iterations and never at 512.
const SCALES: [u32; 2] = [1, 4];
/// Share of runs drawn uniformly over the arms.
const EXPLORE: f64 = 0.05;
/// Each arm's prior pseudo-counts of failures and passes: Jeffreys' Beta(1/2, 1/2). Its
/// thinner tail than the uniform prior's lets the runs settle on a shape that fails in 2% of
/// its runs once the others have a few hundred runs each, not a thousand.
const PRIOR: f64 = 0.5;
/// The starting shape's prior failures: it is tried first.
const START_PRIOR: f64 = 1.5;

/// Runs and failures of one arm.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub(crate) struct ArmStats {
    pub runs: u64,
    pub failures: u64,
}

/// One arm: a stress shape and how many times the calibrated iterations it runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Arm {
    pub shape: StressShape,
    pub scale: u32,
}

impl Arm {
    /// Stress iterations of this arm when calibration gave `calibrated`.
    pub(crate) fn iterations(&self, calibrated: u32) -> u32 {
        calibrated.saturating_mul(self.scale).min(MAX_ITERATIONS)
    }
}

/// The most iterations calibration gives. Past a few thousand, stress shows no more bugs, but
/// it lengthens every run and the application's own waits: a slow kernel calibrates to tens
/// of thousands, its passing runs then poll far longer, and that raises its learned loop limit,
/// and so the cost of each failing run (bench/results/constants.md).
pub(crate) const MAX_CALIBRATED: u32 = 8192;

/// The most stress iterations a scaled arm runs: twice calibration's most.
pub(crate) const MAX_ITERATIONS: u32 = 2 * MAX_CALIBRATED;

/// The most stress iterations any arm runs when calibration gave `calibrated`.
pub(crate) fn most_iterations(calibrated: u32) -> u32 {
    let scale = SCALES.into_iter().max().unwrap_or(1);
    calibrated.saturating_mul(scale).min(MAX_ITERATIONS)
}

/// The shapes and what each has shown.
#[derive(Clone, Debug)]
pub(crate) struct ShapeChooser {
    arms: Vec<Arm>,
    stats: Vec<ArmStats>,
    /// Prior pseudo-failures of each arm: the starting shape's is higher.
    prior: Vec<f64>,
    rng: rand_chacha::ChaCha8Rng,
}

/// `ld;st on 8 patches of 32 words, 4x iterations`.
pub(crate) fn describe(arm: &Arm) -> String {
    let shape = &arm.shape;
    format!(
        "{} on {} patches of {} words, {}x iterations",
        shape.sequence, shape.spread, shape.patch_words, arm.scale
    )
}

impl ShapeChooser {
    /// One arm: every run gets `shape` (the user fixed it).
    pub(crate) fn fixed(shape: StressShape) -> ShapeChooser {
        ShapeChooser::with_arms(vec![Arm { shape, scale: 1 }], 0)
    }

    /// The standard arms around `start` (a device profile's shape or the seed's default),
    /// which is one of them and starts ahead; `seed` makes the choices repeatable.
    pub(crate) fn adaptive(start: &StressShape, seed: u64) -> ShapeChooser {
        let mut arms = vec![Arm {
            shape: start.clone(),
            scale: 1,
        }];
        for scale in SCALES {
            for accesses in SEQUENCES {
                for spread in SPREADS {
                    let shape = StressShape {
                        sequence: Sequence::new(accesses.to_vec()).expect("1 to 5 accesses"),
                        spread: spread.min(start.patch_count),
                        ..start.clone()
                    };
                    let arm = Arm { shape, scale };
                    if !arms.contains(&arm) {
                        arms.push(arm);
                    }
                }
            }
        }
        ShapeChooser::with_arms(arms, seed)
    }

    fn with_arms(arms: Vec<Arm>, seed: u64) -> ShapeChooser {
        let mut prior = vec![PRIOR; arms.len()];
        prior[0] = START_PRIOR;
        ShapeChooser {
            stats: vec![ArmStats::default(); arms.len()],
            arms,
            prior,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        }
    }

    pub(crate) fn arms(&self) -> &[Arm] {
        &self.arms
    }

    pub(crate) fn is_adaptive(&self) -> bool {
        self.arms.len() > 1
    }

    /// The arm for the next run.
    pub(crate) fn choose(&mut self) -> usize {
        if self.arms.len() == 1 {
            return 0;
        }
        if self.rng.random_bool(EXPLORE) {
            return self.rng.random_range(0..self.arms.len());
        }
        let mut best = (0, f64::MIN);
        for (i, stats) in self.stats.iter().enumerate() {
            let alpha = self.prior[i] + stats.failures as f64;
            let beta = PRIOR + (stats.runs - stats.failures) as f64;
            let sample = Beta::new(alpha, beta)
                .expect("positive parameters")
                .sample(&mut self.rng);
            if sample > best.1 {
                best = (i, sample);
            }
        }
        best.0
    }

    /// Records a run of arm `arm`.
    pub(crate) fn record(&mut self, arm: usize, failed: bool) {
        let stats = &mut self.stats[arm];
        stats.runs += 1;
        stats.failures += u64::from(failed);
    }

    /// Every arm that ran, most failures first.
    pub(crate) fn records(&self) -> Vec<ShapeRecord> {
        let mut out: Vec<ShapeRecord> = self
            .arms
            .iter()
            .zip(&self.stats)
            .filter(|(_, s)| s.runs > 0)
            .map(|(arm, s)| ShapeRecord {
                shape: describe(arm),
                runs: s.runs,
                failures: s.failures,
            })
            .collect();
        out.sort_by(|a, b| b.failures.cmp(&a.failures).then(b.runs.cmp(&a.runs)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simulated application: arm i fails with probability `rates[i]`.
    fn simulate(chooser: &mut ShapeChooser, rates: &[f64], runs: usize, seed: u64) -> Vec<u64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut picks = vec![0; rates.len()];
        for _ in 0..runs {
            let arm = chooser.choose();
            picks[arm] += 1;
            chooser.record(arm, rng.random_bool(rates[arm]));
        }
        picks
    }

    #[test]
    fn runs_move_to_the_one_shape_that_fails() {
        let mut chooser = ShapeChooser::adaptive(&StressShape::default(), 7);
        let n = chooser.arms().len();
        // Only `st;st` on 8 patches shows the bug, in 2% of its runs (ct-octree's pattern).
        let target = chooser
            .arms()
            .iter()
            .position(|a| a.shape.sequence.to_string() == "st;st" && a.shape.spread == 8)
            .expect("arm");
        let mut rates = vec![0.0; n];
        rates[target] = 0.02;
        // Of the order of a 60 s run of ct-octree on a GPU.
        simulate(&mut chooser, &rates, 10_000, 1);
        let picks = simulate(&mut chooser, &rates, 10_000, 2);
        let share = picks[target] as f64 / 10_000.0;
        assert!(share > 0.6, "the failing shape got {share} of the runs");
        // Exploration goes on: every arm still runs.
        assert!(picks.iter().all(|p| *p > 0), "{picks:?}");
    }

    #[test]
    fn the_better_of_two_failing_shapes_wins() {
        let mut chooser = ShapeChooser::adaptive(&StressShape::default(), 3);
        let n = chooser.arms().len();
        let mut rates = vec![0.0; n];
        rates[1] = 0.01;
        rates[4] = 0.05;
        simulate(&mut chooser, &rates, 4_000, 5);
        let picks = simulate(&mut chooser, &rates, 4_000, 6);
        assert!(picks[4] > 3 * picks[1], "{picks:?}");
    }

    #[test]
    fn with_no_failures_the_runs_spread_over_every_shape() {
        let mut chooser = ShapeChooser::adaptive(&StressShape::default(), 11);
        let n = chooser.arms().len();
        let picks = simulate(&mut chooser, &vec![0.0; n], 6_000, 4);
        let even = 6_000 / n as u64;
        assert!(picks.iter().all(|p| *p > even / 3), "{picks:?}");
    }

    #[test]
    fn the_seed_shape_is_one_of_36_arms_a_profile_shape_adds_one() {
        assert_eq!(
            ShapeChooser::adaptive(&StressShape::default(), 1)
                .arms()
                .len(),
            36
        );
        let profile = StressShape {
            sequence: "ld;ld;ld".parse().unwrap(),
            ..StressShape::default()
        };
        assert_eq!(ShapeChooser::adaptive(&profile, 1).arms().len(), 37);
    }

    #[test]
    fn a_fixed_shape_is_the_only_arm() {
        let mut chooser = ShapeChooser::fixed(StressShape::default());
        assert!(!chooser.is_adaptive());
        assert_eq!(chooser.choose(), 0);
    }

    #[test]
    fn the_same_seed_chooses_the_same_shapes() {
        let picks = |seed| {
            let mut c = ShapeChooser::adaptive(&StressShape::default(), seed);
            (0..50).map(|_| c.choose()).collect::<Vec<_>>()
        };
        assert_eq!(picks(9), picks(9));
    }
}
