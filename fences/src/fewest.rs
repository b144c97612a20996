//! A later round's last stage where the failed fix was small: the fewest of its sites that
//! pass with what the round added, the smallest sets asked first.
//!
//! Each site the round added is needed (the fix with the others passed and without it
//! failed), so only the failed fix's own sites are in question. ddmin drops them one at a
//! time, a passing trial each, and a later round's passing trial is its dearest: sized for
//! the low rate the failed fix left, thousands of runs. In a simulated application whose
//! sites fail as ct-octree's do, the searches past a minute ended so: a first
//! round had kept `[0, 1, 2, 3]` where `[1]` was needed (trials sized for one failure left
//! the fix and met another, rarer one), and the next round, having added 4, passed
//! `[1, 2, 3, 4]`, `[1, 3, 4]` and `[1, 4]`, three of its dearest trials. Asked smallest
//! first, `[1, 4]` passes after `[4]` fails: the sets that fail end at their first failing
//! run, each a fraction of a passing trial, and the first set that passes is the answer.

use crate::ddmin::{ascending, first_pass, lies_within, Search};
use crate::trial::{Oracle, Sizing};

/// Sites of the failed fix asked so at most: at worst every subset of them is asked, 15 sets
/// for four sites; ddmin asks fewer where the fix is larger.
pub(crate) const FEWEST: usize = 4;

/// The fewest sites of `optional` (in the order of preference) that pass with every site of
/// `needed`: sets by ascending size, each size in the order of preference. A set within one
/// `known` to fail is not asked, nor within one that failed here. `optional` with `needed`
/// passed: it is the answer when nothing smaller passes, and it is not asked again. Once the
/// oracle stops (Ctrl-C, an error, the search's deadline), that is kept too.
pub(crate) fn fewest(
    optional: &[usize],
    needed: &[usize],
    known: &[&[usize]],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    let mut failed: Vec<Vec<usize>> = known.iter().map(|k| k.to_vec()).collect();
    let mut search = Search {
        sites: ascending(optional.iter().chain(needed).copied()),
        trials: 0,
        runs: 0,
    };
    for size in 0..optional.len() {
        let sets: Vec<Vec<usize>> = choose(optional, size)
            .into_iter()
            .map(|chosen| ascending(chosen.into_iter().chain(needed.iter().copied())))
            .filter(|set| !lies_within(set, &failed))
            .collect();
        oracle.upcoming(&sets);
        // A set asked of this size may fail before another within it is reached.
        let asked = first_pass(&sets, &mut failed, sizing, oracle);
        search.trials += asked.trials;
        search.runs += asked.runs;
        if let Some(i) = asked.passed {
            search.sites = sets[i].clone();
            return search;
        }
        if oracle.stopped() {
            return search;
        }
    }
    search
}

/// Every choice of `size` of `from`, in the order of `from`: earlier sites first.
fn choose(from: &[usize], size: usize) -> Vec<Vec<usize>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut chosen = Vec::new();
    for (i, &first) in from.iter().enumerate() {
        for mut rest in choose(&from[i + 1..], size - 1) {
            rest.insert(0, first);
            chosen.push(rest);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trial::{FailureRate, Trial};

    /// Passes exactly when the set holds every site of `fix`; remembers what it was asked.
    struct Needs {
        fix: Vec<usize>,
        asked: Vec<Vec<usize>>,
        upcoming: Vec<Vec<usize>>,
        stop_after: Option<usize>,
    }

    impl Needs {
        fn new(fix: &[usize]) -> Needs {
            Needs {
                fix: fix.to_vec(),
                asked: Vec::new(),
                upcoming: Vec::new(),
                stop_after: None,
            }
        }
    }

    impl Oracle for Needs {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            self.asked.push(sites.to_vec());
            match self.fix.iter().all(|s| sites.contains(s)) {
                true => Trial::Pass { runs: runs_needed },
                false => Trial::Fail { runs: 3 },
            }
        }

        fn upcoming(&mut self, sets: &[Vec<usize>]) {
            self.upcoming.extend(sets.iter().cloned());
        }

        fn stopped(&self) -> bool {
            self.stop_after.is_some_and(|n| self.asked.len() >= n)
        }
    }

    fn once() -> Sizing {
        Sizing::later(FailureRate::new(0.01).unwrap())
    }

    #[test]
    fn the_smallest_set_that_passes_is_the_answer() {
        // The simulated search past a minute: the fix [0, 1, 2, 3] lacked 4, and [1] with 4
        // was all that was needed; [0, 1, 2] had failed in the earlier round.
        let mut needs = Needs::new(&[1, 4]);
        let found = fewest(&[0, 1, 2, 3], &[4], &[&[0, 1, 2]], once(), &mut needs);
        assert_eq!(found.sites, [1, 4]);
        assert_eq!(needs.asked, [vec![4], vec![0, 4], vec![1, 4]]);
        assert_eq!((found.trials, found.runs), (3, 3 + 3 + 459));
    }

    #[test]
    fn sets_within_one_known_to_fail_are_not_asked() {
        let mut needs = Needs::new(&[2, 5, 9]);
        let found = fewest(&[2, 3, 5], &[9], &[&[2, 9], &[3, 5, 9]], once(), &mut needs);
        assert_eq!(found.sites, [2, 5, 9]);
        // [9], [2, 9], [3, 9], [5, 9] and [3, 5, 9] are known; [2, 3, 9] fails here.
        assert_eq!(needs.asked, [vec![2, 3, 9], vec![2, 5, 9]]);
        assert_eq!(needs.upcoming[0], [2, 3, 9]);
    }

    #[test]
    fn where_every_site_is_needed_the_whole_set_is_kept_unasked() {
        let mut needs = Needs::new(&[1, 2, 7]);
        let found = fewest(&[1, 2], &[7], &[], once(), &mut needs);
        assert_eq!(found.sites, [1, 2, 7]);
        assert_eq!(needs.asked, [vec![7], vec![1, 7], vec![2, 7]]);
        // Nothing was added: ddmin's answer where the round found nothing more.
        let mut needs = Needs::new(&[]);
        assert_eq!(fewest(&[], &[3], &[], once(), &mut needs).sites, [3]);
        assert!(needs.asked.is_empty());
    }

    #[test]
    fn a_stopped_oracle_keeps_every_site() {
        let mut needs = Needs::new(&[1, 4]);
        needs.stop_after = Some(1);
        let found = fewest(&[0, 1], &[4], &[], once(), &mut needs);
        assert_eq!(found.sites, [0, 1, 4]);
        assert_eq!(needs.asked, [vec![4]]);
    }

    #[test]
    fn choices_come_in_the_order_given() {
        assert_eq!(choose(&[5, 1, 3], 2), [vec![5, 1], vec![5, 3], vec![1, 3]]);
        assert_eq!(choose(&[5, 1], 0), [Vec::<usize>::new()]);
        assert!(choose(&[5], 2).is_empty());
    }
}
