//! Batch pacing: how many runs the next submission holds, so that one submission lasts a
//! fraction of a second, a time budget ends within its tolerance, and a batch of runs that
//! spin to the watchdog limit does not outlast the hang timeout.
//!
//! Two run times are learned from the batches that finished (exponentially weighted means):
//! that of a run the watchdog did not stop, and that of one it stopped (a stalled run). A
//! stalled run can cost a hundred ordinary ones or more: where every iteration of the
//! spinning loop takes a global lock (tpo-tm), a stalled run lasts seconds against
//! milliseconds, and a batch sized by the mean alone draws several stalled runs and outlasts
//! the hang timeout (bench/results/constants.md). So a
//! batch also holds no more runs than leaves room, within half the hang timeout, for the
//! stalled runs it will plausibly draw (the expected number plus three standard deviations,
//! and one more). The first batch holds one run.

use std::time::Duration;

/// What one submission should last.
pub(crate) const TARGET_SUBMISSION: Duration = Duration::from_millis(250);

#[derive(Clone, Debug)]
pub(crate) struct Pace {
    /// The most runs a submission can hold (the session's buffers).
    capacity: usize,
    /// Seconds per run the watchdog did not stop; `None` before such a run finished.
    per_run: Option<f64>,
    /// Seconds per stalled run (stopped by the watchdog); `None` before one was seen.
    per_stall: Option<f64>,
    /// Runs and stalled runs observed: the stall rate.
    runs: u64,
    stalls: u64,
    /// Runs in the last batch observed.
    last: usize,
}

/// Weight of the newest batch in the means: recent batches count most, since stress and the
/// application's state change a run's time.
const WEIGHT: f64 = 0.5;

/// A batch holds at most this many times the runs of the last one: one fast batch is weak
/// evidence, and a run time measured on one run may hide the slow runs of the next.
const GROWTH: usize = 8;

fn mean(old: Option<f64>, sample: f64) -> f64 {
    match old {
        Some(m) => m + WEIGHT * (sample - m),
        None => sample,
    }
}

impl Pace {
    pub(crate) fn new(capacity: usize) -> Pace {
        Pace {
            capacity: capacity.max(1),
            per_run: None,
            per_stall: None,
            runs: 0,
            stalls: 0,
            last: 0,
        }
    }

    /// Learns from a batch of `runs`, `stalled` of them stopped by the watchdog, that took
    /// `elapsed`.
    pub(crate) fn observe(&mut self, runs: usize, stalled: usize, elapsed: Duration) {
        if runs == 0 {
            return;
        }
        let stalled = stalled.min(runs);
        self.last = runs;
        self.runs += runs as u64;
        self.stalls += stalled as u64;
        let seconds = elapsed.as_secs_f64();
        let plain = runs - stalled;
        if stalled == 0 {
            self.per_run = Some(mean(self.per_run, seconds / runs as f64));
            return;
        }
        // The stalled runs take what the plain ones (at their learned time) leave; with no
        // time learned yet, every run of the batch is charged alike.
        let plain_time = self.per_run.map_or(0.0, |t| t * plain as f64);
        let per_stall = ((seconds - plain_time) / stalled as f64).max(seconds / runs as f64);
        self.per_stall = Some(mean(self.per_stall, per_stall));
        if self.per_run.is_none() && plain > 0 {
            self.per_run = Some(seconds / runs as f64);
        }
    }

    /// Expected seconds per run: plain and stalled runs in the proportion seen.
    pub(crate) fn per_run(&self) -> Option<f64> {
        let rate = self.stall_rate();
        match (self.per_run, self.per_stall) {
            (Some(p), Some(s)) => Some(p * (1.0 - rate) + s * rate),
            (p, s) => p.or(s),
        }
    }

    fn stall_rate(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.stalls as f64 / self.runs as f64
        }
    }

    /// The most runs whose plausible stalls fit in half of `hang`: n runs draw about
    /// n x rate stalled ones; room is kept for three standard deviations more, and one.
    fn hang_bound(&self, hang: Duration) -> usize {
        let (Some(per_stall), rate) = (self.per_stall, self.stall_rate()) else {
            return usize::MAX;
        };
        let plain = self.per_run.unwrap_or(0.0);
        let room = hang.as_secs_f64() / 2.0;
        let fits = |n: usize| {
            let expected = n as f64 * rate;
            let stalls = expected + 3.0 * expected.sqrt() + 1.0;
            stalls * per_stall + n as f64 * plain <= room
        };
        // The largest n that fits (fits is monotone in n); at least one run.
        let mut n = 1;
        while n < self.capacity && fits(n + 1) {
            n += 1;
        }
        n
    }

    /// The size of the next batch, given the time left before the budget's end, the runs
    /// left and the hang timeout; `None` when not even one more run fits before the budget's
    /// end plus `slack`.
    pub(crate) fn next(
        &self,
        time_left: Option<Duration>,
        slack: Duration,
        runs_left: Option<u64>,
        hang: Duration,
    ) -> Option<usize> {
        if runs_left == Some(0) || time_left == Some(Duration::ZERO) {
            return None;
        }
        let Some(per_run) = self.per_run() else {
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
            .min(self.last.saturating_mul(GROWTH))
            .min(self.hang_bound(hang));
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

    const HANG: Duration = Duration::from_secs(10);

    #[test]
    fn the_first_batch_is_one_run() {
        let pace = Pace::new(64);
        assert_eq!(pace.next(Some(ms(10_000)), ms(1000), None, HANG), Some(1));
    }

    #[test]
    fn batches_last_about_a_quarter_second() {
        let mut pace = Pace::new(1000);
        pace.observe(4, 0, ms(40));
        assert_eq!(pace.next(Some(ms(60_000)), ms(6000), None, HANG), Some(25));
        let mut capped = Pace::new(16);
        capped.observe(16, 0, ms(16));
        assert_eq!(capped.next(None, ms(0), None, HANG), Some(16));
    }

    #[test]
    fn batches_grow_at_most_eightfold() {
        let mut pace = Pace::new(1000);
        pace.observe(1, 0, ms(1));
        assert_eq!(pace.next(None, ms(0), None, HANG), Some(8));
    }

    #[test]
    fn slow_runs_shrink_the_batch() {
        let mut pace = Pace::new(64);
        pace.observe(64, 0, ms(64));
        pace.observe(8, 0, ms(8_000));
        assert_eq!(pace.next(Some(ms(60_000)), ms(6000), None, HANG), Some(1));
    }

    #[test]
    fn the_budget_end_bounds_the_batch() {
        let mut pace = Pace::new(1000);
        pace.observe(10, 0, ms(100));
        // 100 ms left: 10 runs, not the 25 a quarter second holds.
        assert_eq!(pace.next(Some(ms(100)), ms(1000), None, HANG), Some(10));
        assert_eq!(pace.next(Some(ms(5_000)), ms(1000), Some(3), HANG), Some(3));
        assert_eq!(pace.next(None, ms(0), Some(0), HANG), None);
    }

    #[test]
    fn a_run_that_would_end_past_the_tolerance_is_not_started() {
        let mut pace = Pace::new(8);
        pace.observe(1, 0, ms(3_000));
        assert_eq!(pace.next(Some(ms(500)), ms(1000), None, HANG), None);
        assert_eq!(pace.next(Some(ms(2_500)), ms(1000), None, HANG), Some(1));
    }

    #[test]
    fn stalled_runs_keep_a_batch_within_the_hang_timeout() {
        // As tpo-tm's runs: plain runs of 17 ms, stalled ones of 2.5 s, one in eleven.
        let mut pace = Pace::new(64);
        pace.observe(10, 0, ms(170));
        pace.observe(11, 1, ms(2_670));
        assert_eq!(pace.next(Some(ms(60_000)), ms(6000), None, HANG), Some(1));
        // Ordinary runs only: the quarter second decides, not the timeout.
        let mut plain = Pace::new(1000);
        plain.observe(10, 0, ms(170));
        assert_eq!(plain.next(None, ms(0), None, HANG), Some(14));
    }

    #[test]
    fn rare_cheap_stalls_still_allow_large_batches() {
        // One stall in 2,000 runs, 50 ms each: a batch of a quarter second (about 240 runs
        // of 1 ms) plausibly draws one or two, far within the timeout.
        let mut pace = Pace::new(1000);
        pace.observe(1000, 0, ms(1000));
        pace.observe(1000, 1, ms(1049));
        let n = pace.next(None, ms(0), None, HANG).unwrap();
        assert!(n > 200, "{n}");
        let bound = pace.hang_bound(HANG);
        assert!(bound >= n, "{bound}");
    }

    #[test]
    fn a_stall_longer_than_half_the_timeout_leaves_one_run() {
        let mut pace = Pace::new(64);
        pace.observe(1, 1, ms(7_000));
        assert_eq!(pace.hang_bound(HANG), 1);
        assert_eq!(pace.next(None, ms(0), None, HANG), Some(1));
    }
}
