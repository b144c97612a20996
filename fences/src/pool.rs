//! A later round's trials, sized from every failure the round has seen of a set that holds
//! the failed fix.
//!
//! A later round starts from one number: the runs its fix's verification took to its first
//! failure. At a rate of 1 in 500, that count is anything from 100 to 1,500 one time in
//! five, so trials sized from it alone can be several times larger than the round needs,
//! and a later round's passing trials are a search's dearest. A set that holds the fix fails
//! no more often than the fix does (a barrier added never adds a failure), so each such set
//! that failed is another sample of runs to a failure at a rate no higher than the fix's:
//! the pooled rate sizes the trials that follow (at Jeffreys' rate, `Pool::rate`;
//! bench/results/fences-searches.md has the searches that showed it).
//! Passing trials do not count (a pass is the search's evidence of a fix), nor trials
//! that Ctrl-C, an error or the deadline cut short.
//!
//! Earlier rounds' trials of the fix itself count too, passing or failing: its runs are
//! samples of its rate as much as the verification's. A single early failure otherwise
//! sizes a whole round, with trials too small to tell a wrong set from the fix.
//! Earlier rounds' failing sets that held the fix do not count:
//! sized for a higher rate, a trial of 50 runs that failed says the fix failed within 50
//! runs, where its passing twins, which would say otherwise, cannot count (a passing set
//! may be the fix sought).

use crate::trial::{FailureRate, Oracle, Trial};
use crate::with_fix::Seen;

/// The failures seen of sets that hold `fix`, and the rate they give.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pool {
    /// The failed fix's sites.
    fix: Vec<usize>,
    failures: u64,
    runs: u64,
    /// The highest rate trials are sized for: a quarter of the last round's (`lower_rate`).
    ceiling: FailureRate,
}

impl Pool {
    /// Starting from the failed verification's `failures` in `runs` of the `fix`, the trials
    /// sized for no more than `ceiling`. None when no run failed.
    pub(crate) fn new(
        fix: &[usize],
        failures: u64,
        runs: u64,
        ceiling: FailureRate,
    ) -> Option<Pool> {
        FailureRate::measured(failures, runs)?;
        Some(Pool {
            fix: fix.to_vec(),
            failures,
            runs,
            ceiling,
        })
    }

    /// Counts the runs and failures of the earlier trials (`seen`) of the fix itself.
    pub(crate) fn counting(mut self, seen: &[Seen]) -> Pool {
        for trial in seen.iter().filter(|t| is_set(t.sites, &self.fix)) {
            self.failures += u64::from(trial.failed);
            self.runs += trial.runs;
        }
        self
    }

    /// The rate the next trial is sized for: the pool's failures per run under Jeffreys'
    /// prior for a rate, (failures + 1/2) / runs, not the plain ratio. The pool starts from
    /// one failure, and trials sized from it are wrong either way, too large (a late failure)
    /// or too small (an early one, which passes a wrong set). In simulated searches shaped
    /// like ct-octree's (`searches_shaped_like_ct_octree`), Jeffreys' rate took the fewest
    /// searches past a minute, more of them in three rounds but each round cheaper; other
    /// pseudo-failures and a rate below the ratio (larger trials) took more
    /// (bench/results/fences-searches.md).
    pub(crate) fn rate(&self) -> FailureRate {
        let pooled = (self.failures as f64 + 0.5) / self.runs as f64;
        FailureRate::new(pooled.min(self.ceiling.get())).unwrap_or(self.ceiling)
    }

    /// A trial of `sites` failed at a run after `runs`.
    fn failed(&mut self, sites: &[usize], runs: u64) {
        if runs > 0 && self.fix.iter().all(|s| sites.contains(s)) {
            self.failures += 1;
            self.runs += runs;
        }
    }
}

/// Whether `a` and `b` hold the same sites.
fn is_set(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().all(|s| b.contains(s))
}

/// An oracle whose trials are sized by the pool, whatever their asker's sizing says (it is
/// where the pool started).
pub(crate) struct Pooled<'a> {
    oracle: &'a mut dyn Oracle,
    pub pool: Pool,
}

impl<'a> Pooled<'a> {
    pub(crate) fn new(oracle: &'a mut dyn Oracle, pool: Pool) -> Pooled<'a> {
        Pooled { oracle, pool }
    }
}

impl Oracle for Pooled<'_> {
    fn trial(&mut self, sites: &[usize], _runs_needed: u64) -> Trial {
        let trial = self.oracle.trial(sites, self.pool.rate().runs_needed());
        if let (Trial::Fail { runs }, false) = (trial, self.oracle.stopped()) {
            self.pool.failed(sites, runs);
        }
        trial
    }

    fn upcoming(&mut self, sets: &[Vec<usize>]) {
        self.oracle.upcoming(sets);
    }

    fn stopped(&self) -> bool {
        self.oracle.stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(p: f64) -> FailureRate {
        FailureRate::new(p).unwrap()
    }

    /// Answers from a script: each set's runs to its failure, or a pass.
    struct Scripted {
        fails_at: Vec<(Vec<usize>, u64)>,
        asked: Vec<(Vec<usize>, u64)>,
    }

    impl Oracle for Scripted {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            self.asked.push((sites.to_vec(), runs_needed));
            match self.fails_at.iter().find(|(s, _)| s == sites) {
                Some((_, at)) if *at <= runs_needed => Trial::Fail { runs: *at },
                _ => Trial::Pass { runs: runs_needed },
            }
        }
    }

    #[test]
    fn the_trials_follow_the_failures_of_sets_that_hold_the_fix() {
        // A fix [27, 28] that failed at run 768 of its verification (a ct-octree search).
        let pool = Pool::new(&[27, 28], 1, 768, rate(0.0875 / 4.0)).unwrap();
        // 1.5 in 768 runs (the plain ratio sized them at 3,535).
        assert_eq!(pool.rate().runs_needed(), 2356);
        let mut oracle = Scripted {
            fails_at: vec![
                (vec![27, 28, 29], 256),
                (vec![22, 27, 28], 318),
                (vec![23, 27, 28], 256),
                // Holds no fix: its failure says nothing of the fix's rate.
                (vec![24], 10),
            ],
            asked: Vec::new(),
        };
        let mut pooled = Pooled::new(&mut oracle, pool);
        for sites in [
            vec![27, 28, 29],
            vec![22, 27, 28],
            vec![23, 27, 28],
            vec![24],
            vec![24, 27, 28],
            vec![24, 28],
        ] {
            pooled.trial(&sites, 3535);
        }
        let sized: Vec<u64> = oracle.asked.iter().map(|(_, n)| *n).collect();
        // 2.5 in 1,024 runs, 3.5 in 1,342, 4.5 in 1,598 (and [24]'s failure not counted);
        // the passes change nothing.
        assert_eq!(sized, [2356, 1884, 1764, 1634, 1634, 1634]);
    }

    #[test]
    fn the_trials_are_never_sized_for_more_than_the_ceiling() {
        let pool = Pool::new(&[1], 1, 100, rate(0.005)).unwrap();
        assert_eq!(pool.rate(), rate(0.005));
        let mut oracle = Scripted {
            fails_at: vec![(vec![1, 2], 1)],
            asked: Vec::new(),
        };
        let mut pooled = Pooled::new(&mut oracle, pool);
        pooled.trial(&[1, 2], 0);
        assert_eq!(pooled.pool.rate(), rate(0.005));
        assert!(Pool::new(&[1], 0, 100, rate(0.5)).is_none());
    }

    #[test]
    fn longer_waits_for_a_failure_size_larger_trials() {
        let pool = Pool::new(&[3], 1, 100, rate(0.25)).unwrap();
        let mut oracle = Scripted {
            fails_at: vec![(vec![3, 4], 300)],
            asked: Vec::new(),
        };
        let mut pooled = Pooled::new(&mut oracle, pool);
        assert_eq!(pooled.trial(&[3, 4], 0), Trial::Fail { runs: 300 });
        assert_eq!(pooled.pool.rate(), rate(2.5 / 400.0));
        assert!(pooled.pool.rate().runs_needed() > rate(0.01).runs_needed());
    }

    #[test]
    fn the_fixs_own_earlier_trials_count_and_no_other_sets() {
        // A ct-octree search: [28] passed twice at 37 runs, its verification failed at 64.
        let pool = Pool::new(&[28], 1, 64, rate(0.1186 / 4.0)).unwrap();
        assert_eq!(pool.rate().runs_needed(), 195);
        let trial = |sites: &'static [usize], runs, failed| Seen {
            sites,
            runs,
            failed,
        };
        let seen = [
            trial(&[27], 9, true),
            trial(&[28], 37, true),
            trial(&[28], 37, false),
            trial(&[28], 37, false),
            // A set that held the fix and passed may be the fix sought, and one that failed
            // a trial sized for a higher rate failed early for this one.
            trial(&[2, 27, 28, 29], 37, false),
            trial(&[22, 27, 28, 29], 20, true),
        ];
        let pool = pool.counting(&seen);
        // 2 failures in 64 + 3 x 37 runs.
        assert_eq!(pool.rate(), rate(2.5 / 175.0));
        assert_eq!(pool.rate().runs_needed(), 321);
    }
}
