//! Batch pacing: how many runs the next submission holds, so that one submission lasts a
//! fraction of a second and a time budget ends within its tolerance.
//!
//! A run's time is learned from the batches that finished (an exponentially weighted mean of
//! seconds per run). The first batch holds one run: an application whose runs spin to the
//! watchdog limit must not start with a batch that outlasts the hang timeout.

use std::time::Duration;

/// What one submission should last.
pub const TARGET_SUBMISSION: Duration = Duration::from_millis(250);

/// How far past its time a budget may end: 10%, at least one second.
pub fn tolerance(time: Duration) -> Duration {
    (time / 10).max(Duration::from_secs(1))
}

#[derive(Clone, Debug)]
pub struct Pace {
    /// The most runs a submission can hold (the session's buffers).
    capacity: usize,
    /// Seconds per run, learned; `None` before the first batch.
    per_run: Option<f64>,
    /// Runs in the last batch observed.
    last: usize,
}

/// Weight of the newest batch in the mean: recent batches count most, since stress and the
/// application's state (a lost task that spins to the limit) change a run's time.
const WEIGHT: f64 = 0.5;

/// A batch holds at most this many times the runs of the last one: one fast batch is weak
/// evidence, and a run time measured on one run may hide the slow runs of the next.
const GROWTH: usize = 8;

impl Pace {
    pub fn new(capacity: usize) -> Pace {
        Pace {
            capacity: capacity.max(1),
            per_run: None,
            last: 0,
        }
    }

    /// Learns from a batch of `runs` that took `elapsed`.
    pub fn observe(&mut self, runs: usize, elapsed: Duration) {
        if runs == 0 {
            return;
        }
        self.last = runs;
        let sample = elapsed.as_secs_f64() / runs as f64;
        self.per_run = Some(match self.per_run {
            Some(mean) => mean + WEIGHT * (sample - mean),
            None => sample,
        });
    }

    /// Seconds per run learned so far.
    pub fn per_run(&self) -> Option<f64> {
        self.per_run
    }

    /// The size of the next batch, given the time left before the budget's end and the runs
    /// left; `None` when not even one more run fits before the budget's end plus `slack`.
    pub fn next(
        &self,
        time_left: Option<Duration>,
        slack: Duration,
        runs_left: Option<u64>,
    ) -> Option<usize> {
        if runs_left == Some(0) || time_left == Some(Duration::ZERO) {
            return None;
        }
        let Some(per_run) = self.per_run else {
            return Some(1);
        };
        let per_run = per_run.max(1e-9);
        if let Some(left) = time_left {
            // Stop rather than overrun: the next run would end past the tolerance.
            if per_run > (left + slack).as_secs_f64() {
                return None;
            }
        }
        let window = match time_left {
            Some(left) => left.min(TARGET_SUBMISSION),
            None => TARGET_SUBMISSION,
        };
        let by_time = (window.as_secs_f64() / per_run).floor() as usize;
        let mut n = by_time
            .clamp(1, self.capacity)
            .min(self.last.saturating_mul(GROWTH));
        if let Some(left) = runs_left {
            n = n.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_first_batch_is_one_run() {
        let pace = Pace::new(64);
        assert_eq!(pace.next(Some(ms(10_000)), ms(1000), None), Some(1));
    }

    #[test]
    fn batches_last_about_a_quarter_second() {
        let mut pace = Pace::new(1000);
        pace.observe(4, ms(40));
        assert_eq!(pace.next(Some(ms(60_000)), ms(6000), None), Some(25));
        let mut capped = Pace::new(16);
        capped.observe(16, ms(16));
        assert_eq!(capped.next(None, ms(0), None), Some(16));
    }

    #[test]
    fn batches_grow_at_most_eightfold() {
        let mut pace = Pace::new(1000);
        pace.observe(1, ms(1));
        assert_eq!(pace.next(None, ms(0), None), Some(8));
    }

    #[test]
    fn slow_runs_shrink_the_batch() {
        let mut pace = Pace::new(64);
        pace.observe(64, ms(64));
        pace.observe(8, ms(8_000));
        assert_eq!(pace.next(Some(ms(60_000)), ms(6000), None), Some(1));
    }

    #[test]
    fn the_budget_end_bounds_the_batch() {
        let mut pace = Pace::new(1000);
        pace.observe(10, ms(100));
        // 100 ms left: 10 runs, not the 25 a quarter second holds.
        assert_eq!(pace.next(Some(ms(100)), ms(1000), None), Some(10));
        assert_eq!(pace.next(Some(ms(5_000)), ms(1000), Some(3)), Some(3));
        assert_eq!(pace.next(None, ms(0), Some(0)), None);
    }

    #[test]
    fn a_run_that_would_end_past_the_tolerance_is_not_started() {
        let mut pace = Pace::new(8);
        pace.observe(1, ms(3_000));
        assert_eq!(pace.next(Some(ms(500)), ms(1000), None), None);
        assert_eq!(pace.next(Some(ms(2_500)), ms(1000), None), Some(1));
    }

    #[test]
    fn tolerance_is_a_tenth_and_at_least_a_second() {
        assert_eq!(tolerance(Duration::from_secs(60)), Duration::from_secs(6));
        assert_eq!(tolerance(Duration::from_secs(5)), Duration::from_secs(1));
    }
}
