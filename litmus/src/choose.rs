//! Choosing an environment: Algorithm 1 of the MC Mutants paper (merging test environments)
//! and the reproducibility arithmetic behind it.

use wgstress_model::litmus::mutants::ceiling_rate;

/// How an environment scores: rates at or above the ceiling, and the least non-zero rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Score {
    pub above_ceiling: usize,
    /// Infinity when no rate is above zero (as in the paper's pseudocode).
    pub min_rate: f64,
}

impl Score {
    pub(crate) fn of(rates: &[f64], ceiling: f64) -> Score {
        Score {
            above_ceiling: rates.iter().filter(|r| **r >= ceiling).count(),
            min_rate: rates
                .iter()
                .copied()
                .filter(|r| *r > 0.0)
                .fold(f64::INFINITY, f64::min),
        }
    }

    /// Line 24 of Algorithm 1: more rates above the ceiling, or as many and a larger minimum.
    pub(crate) fn beats(&self, other: &Score) -> bool {
        self.above_ceiling > other.above_ceiling
            || (self.above_ceiling == other.above_ceiling && self.min_rate > other.min_rate)
    }
}

/// Algorithm 1: `rates[e][d]` is the death rate in environment e of the d-th thing the
/// environment must serve (a device in the paper; here, for one device, a mutant). Returns
/// the chosen environment, None when there are none.
pub fn merge_environments(rates: &[Vec<f64>], reproducibility: f64, budget: f64) -> Option<usize> {
    let ceiling = ceiling_rate(reproducibility, budget);
    let mut chosen: Option<(usize, Score)> = None;
    for (e, row) in rates.iter().enumerate() {
        let score = Score::of(row, ceiling);
        // The paper starts from n_r = 0 and minRate_r = infinity, so an environment that
        // kills nothing is never chosen over none; we still return the first one then.
        let better = match &chosen {
            None => true,
            Some((_, best)) => score.beats(best),
        };
        if better {
            chosen = Some((e, score));
        }
    }
    chosen.map(|(e, _)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling_matches_the_paper() {
        // 99.999% needs ceil(11.51) = 12 kills in the budget; 95% needs 3.
        assert!((ceiling_rate(0.99999, 64.0) - 12.0 / 64.0).abs() < 1e-12);
        assert!((ceiling_rate(0.95, 1.0) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn algorithm_1_on_a_synthetic_table() {
        // Ceiling at r = 95%, b = 1 s: 3 kills per second.
        let rates = vec![
            vec![100.0, 0.0, 0.0, 2.0], // 1 above, min 2
            vec![3.0, 4.0, 0.5, 0.0],   // 2 above, min 0.5
            vec![5.0, 3.0, 0.0, 0.0],   // 2 above, min 3: wins the tie on the minimum
            vec![1e6, 2.9, 2.9, 2.9],   // 1 above despite the huge rate
        ];
        assert_eq!(merge_environments(&rates, 0.95, 1.0), Some(2));
        // A longer budget lowers the ceiling to 0.3: environment 3 then has all 4 above.
        assert_eq!(merge_environments(&rates, 0.95, 10.0), Some(3));
        assert_eq!(merge_environments(&[], 0.95, 1.0), None);
        // Nothing killed anywhere: the first environment.
        assert_eq!(
            merge_environments(&[vec![0.0], vec![0.0]], 0.95, 1.0),
            Some(0)
        );
    }

    #[test]
    fn stability_for_weaker_targets() {
        // The paper: an environment meeting the target everywhere is chosen again for r' <= r
        // and b' >= b.
        let rates = vec![vec![20.0, 30.0], vec![15.0, 100.0], vec![0.0, 500.0]];
        let chosen = merge_environments(&rates, 0.99999, 1.0);
        assert_eq!(chosen, Some(0));
        assert_eq!(merge_environments(&rates, 0.999, 4.0), chosen);
    }
}
