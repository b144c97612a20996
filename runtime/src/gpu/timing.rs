//! How calibration times a kind of run: the batches that fit the time it has, and the best
//! passing batch as the measure.

/// The times of one kind of run so far (seconds a run, each batch's mean).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timed {
    /// The fastest batch, the warm-up included: what the time left is filled with.
    fastest: Option<f64>,
    /// The slowest batch: what keeps a batch within a quarter of the hang timeout.
    slowest: f64,
    /// The fastest batch after the warm-up whose runs all passed: the measure.
    pub best: Option<f64>,
    /// The slowest batch after the warm-up, passing or not: what the hang timeout is grown
    /// from, as runs of one kind vary (workgroups that spin on each other across a CPU
    /// driver's threads).
    pub longest: Option<f64>,
}

impl Timed {
    /// Runs in batch `round` (`wanted` by the schedule), or none to stop: `left` is the time
    /// before calibration's share for this kind ends, `quarter` a quarter of the hang
    /// timeout.
    ///
    /// The warm-up (round 0) is one run and never the measure: a first run pays for what
    /// later runs do not, hundreds of times a fast kernel's time, and taken as the
    /// application's time it calibrates hundreds of times the stress iterations, so that every
    /// later run lasts as long (bench/results/constants.md). So one measured run follows
    /// it whatever the time left (at a truly slow kernel, one run past the share), and later
    /// batches are filled at the fastest time seen, so that one slow run does not end the
    /// measuring; the slowest keeps each batch within the hang timeout.
    pub(crate) fn next_batch(
        &self,
        round: usize,
        wanted: u64,
        left: f64,
        quarter: f64,
    ) -> Option<u64> {
        let fits = |room: f64, per_run: f64| (room / per_run.max(1e-9)).floor() as u64;
        match round {
            0 | 1 => Some(1),
            _ => {
                let in_time = fits(left, self.fastest.unwrap_or(self.slowest));
                match in_time.min(fits(quarter, self.slowest)) {
                    0 => None,
                    n => Some(wanted.min(n)),
                }
            }
        }
    }

    /// A batch of `round` took `per_run` a run; `passed`: every run of it passed.
    pub(crate) fn record(&mut self, round: usize, per_run: f64, passed: bool) {
        self.slowest = self.slowest.max(per_run);
        self.fastest = Some(self.fastest.map_or(per_run, |f| f.min(per_run)));
        if round > 0 {
            self.longest = Some(self.longest.map_or(per_run, |l| l.max(per_run)));
        }
        if round > 0 && passed {
            self.best = Some(self.best.map_or(per_run, |b| b.min(per_run)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Timed;

    /// The batches asked and the measure, for batch times `times` (all passing) with `left`
    /// seconds before each batch, the hang timeout's quarter 2.5 s.
    fn timed(times: &[f64], left: &[f64]) -> (Vec<u64>, Option<f64>) {
        let mut t = Timed::default();
        let mut asked = Vec::new();
        for (round, wanted) in [1u64, 1, 2, 4, 8].into_iter().enumerate() {
            let Some(n) = t.next_batch(round, wanted, left[round], 2.5) else {
                break;
            };
            asked.push(n);
            t.record(round, times[round], true);
        }
        (asked, t.best)
    }

    #[test]
    fn a_slow_warm_up_is_not_the_measure() {
        // As a cub-scan calibration: a first run of 0.35 s, then 0.5 ms runs, 0.15 s left.
        let (asked, best) = timed(
            &[0.35, 0.0005, 0.0005, 0.0005, 0.0005],
            &[0.5, 0.15, 0.15, 0.15, 0.14],
        );
        // The last batch is 7 runs: eight at the slow run's time would outlast 2.5 s.
        assert_eq!(asked, [1, 1, 2, 4, 7]);
        assert_eq!(best, Some(0.0005));
    }

    #[test]
    fn one_slow_measured_run_does_not_end_the_measuring() {
        let (asked, best) = timed(
            &[0.0005, 0.35, 0.0005, 0.0005, 0.0005],
            &[0.5, 0.5, 0.15, 0.15, 0.14],
        );
        assert_eq!(asked, [1, 1, 2, 4, 7]);
        assert_eq!(best, Some(0.0005));
    }

    #[test]
    fn a_slow_kernel_is_measured_by_one_run_past_the_share() {
        // One second a run, half a second of share: the warm-up, one run, nothing more.
        let (asked, best) = timed(&[1.0, 1.0, 1.0, 1.0, 1.0], &[0.5, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(asked, [1, 1]);
        assert_eq!(best, Some(1.0));
    }

    #[test]
    fn batches_stay_within_a_quarter_of_the_hang_timeout() {
        // 0.6 s runs with time to spare: batches of 4 (2.4 s), never 8.
        let (asked, _) = timed(&[0.6, 0.6, 0.6, 0.6, 0.6], &[60.0; 5]);
        assert_eq!(asked, [1, 1, 2, 4, 4]);
    }

    #[test]
    fn a_failing_batch_is_no_measure() {
        let mut t = Timed::default();
        t.record(0, 0.001, true);
        t.record(1, 0.002, false);
        assert_eq!(t.best, None);
        t.record(2, 0.003, true);
        assert_eq!(t.best, Some(0.003));
    }
}
