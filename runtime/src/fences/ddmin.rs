//! Zeller's delta debugging (ddmin) over fence sites: from a set of sites whose fences stop
//! the failures, a 1-minimal subset that still does (removing any one of its sites brings
//! the failures back, as far as trials can tell).
//!
//! "Passes" plays the part of ddmin's "fails": the search keeps a subset or a complement
//! that passes, else splits finer, until the set cannot be split further.
//!
//! A failing run is certain evidence, a passing trial only 99% evidence: a search asks
//! about twenty sets that lack a needed site, and at 1% each one of them passed by chance in
//! 4 of 20 simulated searches, dropping a needed site. So in a first round a set passes only
//! when two trials in a row pass (a chance pass then 1 in 10,000): passes shrink the set and
//! cost their runs twice, failures stay as cheap as they were. A later round asks once
//! (`Sizing`: the verification after it catches a chance pass).

use super::trial::{passes, Oracle, Sizing};
use std::collections::HashMap;

/// What the search found and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// The minimal set, in ascending order.
    pub sites: Vec<usize>,
    /// Trials run: one per failing set, two per passing one (sets already tried are not tried
    /// again).
    pub trials: u64,
    /// Runs over all trials.
    pub runs: u64,
}

/// A 1-minimal subset of `sites` that passes, trying each set for as many runs as a failure
/// at the sizing's rate needs to show. The caller has seen `sites` pass and no fences fail: neither is
/// tried again. With one site or none there is nothing to minimize.
pub fn ddmin(sites: &[usize], sizing: Sizing, oracle: &mut dyn Oracle) -> Search {
    let mut current: Vec<usize> = sites.to_vec();
    current.sort_unstable();
    current.dedup();
    let mut memo = Memo {
        oracle,
        sizing,
        seen: HashMap::from([(current.clone(), true), (Vec::new(), false)]),
        trials: 0,
        runs: 0,
    };
    let mut n = 2;
    while current.len() >= 2 {
        let parts = split(&current, n);
        if let Some(part) = parts.iter().find(|p| memo.passes(p)) {
            current = part.clone();
            n = 2;
            continue;
        }
        // With two parts the complements are the parts themselves, already tried.
        let complements: Vec<Vec<usize>> = if n > 2 {
            parts.iter().map(|p| without(&current, p)).collect()
        } else {
            Vec::new()
        };
        if let Some(complement) = complements.into_iter().find(|c| memo.passes(c)) {
            current = complement;
            n = (n - 1).max(2);
            continue;
        }
        if n >= current.len() {
            break;
        }
        n = (2 * n).min(current.len());
    }
    Search {
        sites: current,
        trials: memo.trials,
        runs: memo.runs,
    }
}

/// The oracle with every answer remembered: ddmin comes back to the same sets.
struct Memo<'a> {
    oracle: &'a mut dyn Oracle,
    sizing: Sizing,
    seen: HashMap<Vec<usize>, bool>,
    trials: u64,
    runs: u64,
}

impl Memo<'_> {
    fn passes(&mut self, sites: &[usize]) -> bool {
        if let Some(passed) = self.seen.get(sites) {
            return *passed;
        }
        let asked = passes(self.oracle, sites, self.sizing);
        self.trials += asked.trials;
        self.runs += asked.runs;
        self.seen.insert(sites.to_vec(), asked.passed);
        asked.passed
    }
}

/// `set` in `n` contiguous parts of nearly equal size (the first ones one longer).
fn split(set: &[usize], n: usize) -> Vec<Vec<usize>> {
    let (size, extra) = (set.len() / n, set.len() % n);
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let len = size + usize::from(i < extra);
        parts.push(set[start..start + len].to_vec());
        start += len;
    }
    parts
}

/// `set` less the sites of `part` (both ascending).
fn without(set: &[usize], part: &[usize]) -> Vec<usize> {
    set.iter()
        .copied()
        .filter(|s| part.binary_search(s).is_err())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fences::trial::{FailureRate, Trial};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Passes exactly when every needed site is fenced; a missing one fails at `rate` per
    /// run. Counts the trials it was asked.
    struct Simulated {
        needed: Vec<usize>,
        rate: f64,
        rng: ChaCha8Rng,
        asked: Vec<Vec<usize>>,
        runs: u64,
    }

    impl Simulated {
        fn new(needed: &[usize], rate: f64, seed: u64) -> Simulated {
            Simulated {
                needed: needed.to_vec(),
                rate,
                rng: ChaCha8Rng::seed_from_u64(seed),
                asked: Vec::new(),
                runs: 0,
            }
        }
    }

    impl Oracle for Simulated {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            self.asked.push(sites.to_vec());
            let fixed = self.needed.iter().all(|s| sites.contains(s));
            for run in 1..=runs_needed {
                if !fixed && self.rng.random_bool(self.rate) {
                    self.runs += run;
                    return Trial::Fail { runs: run };
                }
            }
            self.runs += runs_needed;
            Trial::Pass { runs: runs_needed }
        }
    }

    fn search(sites: usize, needed: &[usize], rate: f64, seed: u64) -> (Search, Simulated) {
        let mut oracle = Simulated::new(needed, rate, seed);
        let all: Vec<usize> = (0..sites).collect();
        let found = ddmin(
            &all,
            Sizing::first(FailureRate::new(rate).unwrap()),
            &mut oracle,
        );
        (found, oracle)
    }

    #[test]
    fn one_needed_site_is_found() {
        for needed in 0..9 {
            let (found, _) = search(9, &[needed], 1.0, 0);
            assert_eq!(found.sites, vec![needed]);
        }
    }

    #[test]
    fn two_sites_both_needed_are_found() {
        for (a, b) in [(0, 1), (0, 15), (3, 11), (7, 8), (14, 15)] {
            let (found, _) = search(16, &[a, b], 1.0, 0);
            assert_eq!(found.sites, vec![a, b], "{a} and {b}");
        }
    }

    #[test]
    fn a_needed_site_among_hundreds_takes_few_trials() {
        let (found, oracle) = search(500, &[317], 1.0, 0);
        assert_eq!(found.sites, vec![317]);
        // Bisection: a failing and a twice-passing half per halving of 500 sites.
        assert!(found.trials <= 30, "{} trials", found.trials);
        assert_eq!(found.trials as usize, oracle.asked.len());
    }

    #[test]
    fn passing_sets_are_tried_twice_failing_once_the_given_ones_never() {
        let needed = [2, 19, 33];
        let (found, oracle) = search(40, &needed, 1.0, 0);
        assert_eq!(found.sites, needed);
        for set in &oracle.asked {
            let times = oracle.asked.iter().filter(|s| *s == set).count();
            let passes = needed.iter().all(|n| set.contains(n));
            assert_eq!(times, if passes { 2 } else { 1 }, "{set:?}");
        }
        assert!(!oracle.asked.contains(&(0..40).collect::<Vec<_>>()));
        assert!(!oracle.asked.contains(&Vec::new()));
    }

    #[test]
    fn runs_and_trials_are_counted() {
        // Rate 0.5: 7 runs per passing trial.
        let (found, oracle) = search(8, &[5], 0.5, 3);
        assert_eq!(found.sites, vec![5]);
        assert_eq!(found.trials as usize, oracle.asked.len());
        assert_eq!(found.runs, oracle.runs);
        let passing = oracle.asked.iter().filter(|s| s.contains(&5)).count() as u64;
        assert!(passing >= 2, "{:?}", oracle.asked);
        assert!(found.runs >= 7 * passing, "{found:?}");
    }

    #[test]
    fn one_site_or_none_asks_nothing() {
        let mut oracle = Simulated::new(&[4], 1.0, 0);
        let one = ddmin(
            &[4],
            Sizing::first(FailureRate::new(1.0).unwrap()),
            &mut oracle,
        );
        let none = ddmin(
            &[],
            Sizing::first(FailureRate::new(1.0).unwrap()),
            &mut oracle,
        );
        assert_eq!((one.sites, one.trials), (vec![4], 0));
        assert_eq!((none.sites, none.trials), (vec![], 0));
        assert!(oracle.asked.is_empty());
    }

    #[test]
    fn a_flaky_oracle_still_gives_the_needed_sites() {
        // Each trial without a needed site passes by chance with probability at most 1%.
        for (needed, sites) in [(vec![6], 12), (vec![1, 9], 12)] {
            let right = (0..20)
                .filter(|seed| search(sites, &needed, 0.2, *seed).0.sites == needed)
                .count();
            assert!(right >= 19, "{needed:?}: {right} of 20 seeds");
        }
    }

    /// Answers like `Simulated` for `answers` trials, then fails every trial without running,
    /// as the device oracle does once Ctrl-C or an error stopped it.
    struct Stopping {
        inner: Simulated,
        answers: usize,
    }

    impl Oracle for Stopping {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            if self.inner.asked.len() >= self.answers {
                return Trial::Fail { runs: 0 };
            }
            self.inner.trial(sites, runs_needed)
        }
    }

    #[test]
    fn a_stopped_oracle_leaves_the_smallest_set_that_passed_twice() {
        let all: Vec<usize> = (0..16).collect();
        for answers in 0..12 {
            let mut oracle = Stopping {
                inner: Simulated::new(&[11], 1.0, 0),
                answers,
            };
            let found = ddmin(
                &all,
                Sizing::first(FailureRate::new(1.0).unwrap()),
                &mut oracle,
            );
            let asked = &oracle.inner.asked;
            let passed_twice: Vec<&Vec<usize>> = asked
                .iter()
                .filter(|s| s.contains(&11) && asked.iter().filter(|t| t == s).count() == 2)
                .collect();
            let smallest = passed_twice.iter().map(|s| s.len()).min().unwrap_or(16);
            assert_eq!(found.sites.len(), smallest, "{answers} answers: {asked:?}");
            assert!(found.sites.contains(&11));
        }
    }
}
