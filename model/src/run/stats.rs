//! Statistics over runs.

/// The Wilson score interval for `failures` out of `runs` at 95% confidence. With no failure
/// the lower bound is 0 exactly, and with every run failing the upper bound is 1: the formula
/// gives them only to rounding (6.9e-18 for 0 of 50).
pub fn wilson_95(failures: u64, runs: u64) -> (f64, f64) {
    if runs == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = runs as f64;
    let p = failures as f64 / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    let low = if failures == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if failures >= runs {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// MC Mutants' reproducibility score: the probability that another run of the same budget
/// shows the behaviour at least once, having seen it `observed` times in one budget.
pub fn reproducibility(observed: f64) -> f64 {
    1.0 - (-observed).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_reference_values() {
        // Reference: 10 of 100 at 95% -> [0.0552, 0.1744].
        let (lo, hi) = wilson_95(10, 100);
        assert!(
            (lo - 0.0552).abs() < 1e-3 && (hi - 0.1744).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_95(0, 1000);
        assert!((hi - 0.00383).abs() < 1e-4, "{hi}");
        assert_eq!(lo, 0.0);
    }

    #[test]
    fn no_failure_bounds_the_rate_below_at_zero_and_all_failures_above_at_one() {
        for runs in [1, 50, 1000, 123_457] {
            assert_eq!(wilson_95(0, runs).0, 0.0, "0 of {runs}");
            assert_eq!(wilson_95(runs, runs).1, 1.0, "{runs} of {runs}");
            let (lo, hi) = wilson_95(1, runs.max(2));
            assert!(lo > 0.0 && hi < 1.0, "1 of {runs}: {lo} {hi}");
        }
    }

    #[test]
    fn reproducibility_of_three_is_95_percent() {
        assert!((reproducibility(3.0) - 0.9502).abs() < 1e-3);
        assert_eq!(reproducibility(0.0), 0.0);
    }
}
