//! Zeller's delta debugging (ddmin) over fence sites: from a set of sites whose fences stop
//! the failures, a 1-minimal subset that still does (removing any one of its sites brings
//! the failures back, as far as trials can tell).
//!
//! "Passes" plays the part of ddmin's "fails": the search keeps a subset or a complement
//! that passes, else splits finer, until the set cannot be split further.
//!
//! A failing run is certain evidence, a passing trial only 99% evidence: a search asks
//! about twenty sets that lack a needed site, and at 1% each one of them passed by chance in
//! 4 of 20 simulated searches, dropping a needed site. So in a first round the set ddmin
//! ends with is kept only when it passes a second trial (a chance pass then 1 in 10,000).
//! The sets it passes through on the way are asked once: a chance pass there leads only to
//! sets that lack the same site, which fail, and to an end that fails its second trial;
//! that end is then known to fail and ddmin goes again from the start, its answers
//! remembered. Where trials take seconds, a second trial of each set passed through would
//! be a third of a search's trials. A later round asks
//! once (`Sizing`: the verification after it catches a chance pass).

use crate::trial::{passes, Oracle, Sizing, Trial};
use std::collections::HashMap;

/// What the search found and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// The minimal set, in ascending order.
    pub sites: Vec<usize>,
    /// Trials run: one per set asked, and the further passes the end took (sets already
    /// tried are not tried again).
    pub trials: u64,
    /// Runs over all trials.
    pub runs: u64,
}

/// What the trials said of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Fails,
    /// Passed one trial: enough to go on from.
    PassedOnce,
    /// Passed the trials a set needs to be kept (`Sizing::passes`), or the caller saw it
    /// pass.
    Passed,
}

/// A 1-minimal subset of `sites` that passes, trying each set for as many runs as a failure
/// at the sizing's rate needs to show. The caller has seen `sites` pass and no fences fail: neither
/// is tried again. With one site or none there is nothing to minimize. Once the oracle stops
/// (Ctrl-C, an error, the search's deadline), the set reached is kept as it is.
pub fn ddmin(sites: &[usize], sizing: Sizing, oracle: &mut dyn Oracle) -> Search {
    ddmin_guessing(sites, 0, sizing, oracle)
}

/// `ddmin`, asking first whether one of the `guesses` lowest of `sites` (the most preferred,
/// where the order is one of preference) passes alone: a fix of one site is the common case
/// (six of the eight bundled applications), found so in two passing trials where ddmin's
/// descent passes through one at each level (a one-site fix among 13 sites costs it about
/// five passing trials). A single site that passes is 1-minimal (no fences
/// fail); one that fails is remembered, and costs a trial that ends at its first failure.
pub fn ddmin_guessing(
    sites: &[usize],
    guesses: usize,
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    ddmin_knowing(sites, guesses, &[], sizing, oracle)
}

/// What asking the guesses alone found, before anyone saw every site pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Guessed {
    /// The first guess that passed the trials a kept set needs.
    pub kept: Option<Vec<usize>>,
    /// The guesses that failed, not to be asked again.
    pub failed: Vec<Vec<usize>>,
    pub trials: u64,
    pub runs: u64,
}

/// The guesses of `ddmin_guessing` alone, asked before anyone has seen `sites` pass: a fix
/// of one site then needs no trial of every site, which at a rare failure costs as much as
/// a passing guess, seconds of a search's time where the failure is rare.
/// With two sites or fewer, or once the oracle stops, nothing is asked.
pub(crate) fn guess_alone(
    sites: &[usize],
    guesses: usize,
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Guessed {
    let start = ascending(sites.iter().copied());
    let mut memo = Memo {
        oracle,
        sizing,
        seen: HashMap::from([(Vec::new(), Answer::Fails)]),
        trials: 0,
        runs: 0,
    };
    let kept = guess(&start, guesses, &mut memo);
    let asked: Vec<Vec<usize>> = singles(&start, guesses)
        .into_iter()
        .filter(|single| memo.seen.contains_key(single))
        .collect();
    let mut failed: Vec<Vec<usize>> = asked
        .iter()
        .filter(|single| memo.seen.get(*single) == Some(&Answer::Fails))
        .cloned()
        .collect();
    // The oracle stopped during the last one asked: its answer says nothing.
    if memo.oracle.stopped() {
        failed.retain(|single| Some(single) != asked.last());
    }
    Guessed {
        kept,
        failed,
        trials: memo.trials,
        runs: memo.runs,
    }
}

/// `ddmin` after `guess_alone` found nothing and `sites` were seen to pass: the guesses that
/// failed are not asked again.
pub(crate) fn ddmin_after(
    sites: &[usize],
    guessed: &Guessed,
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    ddmin_knowing(sites, 0, &guessed.failed, sizing, oracle)
}

/// Whether every site of `set` lies in one of `sets`: where those failed, it fails too (a
/// barrier fewer never fails less often).
pub(crate) fn lies_within<S: AsRef<[usize]>>(set: &[usize], sets: &[S]) -> bool {
    sets.iter()
        .any(|other| set.iter().all(|s| other.as_ref().contains(s)))
}

/// What asking sets in turn until one passed saw (`first_pass`).
pub(crate) struct FirstPass {
    /// The index of the set that passed, if one did.
    pub passed: Option<usize>,
    pub trials: u64,
    pub runs: u64,
}

/// `sets` asked in turn until one passes, each as `passes` asks it; a set within one that
/// failed (`failed`, which gains each set that fails here) is not asked. Once the oracle
/// stops (Ctrl-C, an error, the search's deadline) nothing more is asked, and the set it
/// cut short is not taken to have failed.
pub(crate) fn first_pass(
    sets: &[Vec<usize>],
    failed: &mut Vec<Vec<usize>>,
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> FirstPass {
    let mut seen = FirstPass {
        passed: None,
        trials: 0,
        runs: 0,
    };
    for (i, set) in sets.iter().enumerate() {
        if oracle.stopped() {
            break;
        }
        if lies_within(set, failed) {
            continue;
        }
        let asked = passes(oracle, set, sizing);
        seen.trials += asked.trials;
        seen.runs += asked.runs;
        if asked.passed {
            seen.passed = Some(i);
            break;
        }
        if !oracle.stopped() {
            failed.push(set.clone());
        }
    }
    seen
}

/// `sites` sorted, each once.
pub(crate) fn ascending(sites: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut start: Vec<usize> = sites.into_iter().collect();
    start.sort_unstable();
    start.dedup();
    start
}

/// ddmin from `sites` (seen to pass), asking `guesses` first, the sets `failed` known to
/// fail, and every set within them.
pub(crate) fn ddmin_knowing(
    sites: &[usize],
    guesses: usize,
    failed: &[Vec<usize>],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    let start = ascending(sites.iter().copied());
    let mut seen = HashMap::from([(start.clone(), Answer::Passed), (Vec::new(), Answer::Fails)]);
    seen.extend(
        failed
            .iter()
            .map(|set| (ascending(set.iter().copied()), Answer::Fails)),
    );
    let mut memo = Memo {
        oracle,
        sizing,
        seen,
        trials: 0,
        runs: 0,
    };
    let guessed = guess(&start, guesses, &mut memo);
    let sites = loop {
        if let Some(single) = &guessed {
            break single.clone();
        }
        let end = descend(&start, &mut memo);
        if memo.oracle.stopped() || memo.confirm(&end) {
            break end;
        }
    };
    Search {
        sites,
        trials: memo.trials,
        runs: memo.runs,
    }
}

/// The sets the guesses ask, in order: the `guesses` lowest sites of `start` alone (none with
/// two sites or fewer, which ddmin's own first level asks alone).
pub(crate) fn singles(start: &[usize], guesses: usize) -> Vec<Vec<usize>> {
    match start.len() {
        0..=2 => Vec::new(),
        _ => start.iter().take(guesses).map(|&s| vec![s]).collect(),
    }
}

/// The first of the guesses (`singles`) that passes alone the trials a kept set needs, if
/// any. Once the oracle stops, none: the descent keeps what it reached.
fn guess(start: &[usize], guesses: usize, memo: &mut Memo) -> Option<Vec<usize>> {
    let singles = singles(start, guesses);
    if singles.is_empty() {
        return None;
    }
    // Then ddmin's first level, should no guess pass.
    memo.announce(singles.iter().chain(&split(start, 2)));
    for single in &singles {
        if memo.oracle.stopped() {
            return None;
        }
        if memo.passes(single) && memo.confirm(single) {
            return Some(single.clone());
        }
    }
    None
}

/// ddmin's descent from `current` to a set none of whose parts or complements passes.
fn descend(current: &[usize], memo: &mut Memo) -> Vec<usize> {
    let mut current = current.to_vec();
    let mut n = 2;
    while current.len() >= 2 {
        let parts = split(&current, n);
        // With two parts the complements are the parts themselves, already tried.
        let complements: Vec<Vec<usize>> = if n > 2 {
            parts.iter().map(|p| without(&current, p)).collect()
        } else {
            Vec::new()
        };
        let speculated = next_levels(&current, n, &parts, &complements);
        memo.announce(parts.iter().chain(&complements).chain(&speculated));
        if let Some(part) = parts.iter().find(|p| memo.passes(p)) {
            current = part.clone();
            n = 2;
            continue;
        }
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
    current
}

/// The sets of the level after this one, in the order ddmin would get to them: the halves
/// of the first part (should it pass), the complements of the level below (should nothing
/// pass; its parts lie within this level's, known to fail by then), the halves of the other
/// parts, the split of the first complement (its complements first). Announced after the
/// level's own sets, so that a lab building ahead starts them one trial before they are
/// asked.
fn next_levels(
    current: &[usize],
    n: usize,
    parts: &[Vec<usize>],
    complements: &[Vec<usize>],
) -> Vec<Vec<usize>> {
    let halves = |set: &Vec<usize>| -> Vec<Vec<usize>> {
        if set.len() >= 2 {
            split(set, 2)
        } else {
            Vec::new()
        }
    };
    let mut next: Vec<Vec<usize>> = parts.first().map(halves).unwrap_or_default();
    // The level below's parts lie within this level's, which will have failed: its
    // complements are what it asks.
    if n < current.len() {
        let below = split(current, (2 * n).min(current.len()));
        next.extend(below.iter().map(|part| without(current, part)));
    }
    next.extend(parts.iter().skip(1).flat_map(halves));
    if let Some(first) = complements.first().filter(|c| c.len() >= 2) {
        let m = (n - 1).max(2);
        let parts = split(first, m);
        // With more than two parts, a complement's own are asked after its parts, most of
        // which lie within parts that failed.
        if m > 2 {
            next.extend(parts.iter().map(|part| without(first, part)));
        }
        next.extend(parts);
    }
    next
}

/// The oracle with every answer remembered: ddmin comes back to the same sets.
struct Memo<'a> {
    oracle: &'a mut dyn Oracle,
    sizing: Sizing,
    seen: HashMap<Vec<usize>, Answer>,
    trials: u64,
    runs: u64,
}

impl Memo<'_> {
    /// Tells the oracle which of `sets` it has not answered yet, once each, in the order
    /// given (the level's own sets in the order they will be asked, until one passes).
    fn announce<'s>(&mut self, sets: impl Iterator<Item = &'s Vec<usize>>) {
        let mut new: Vec<Vec<usize>> = Vec::new();
        for set in sets {
            if !self.seen.contains_key(set) && !self.within_failed(set) && !new.contains(set) {
                new.push(set.clone());
            }
        }
        if !new.is_empty() {
            self.oracle.upcoming(&new);
        }
    }

    /// Whether `sites` passed a trial, asking one if it was never asked and is not within a
    /// set that failed.
    fn passes(&mut self, sites: &[usize]) -> bool {
        let answer = match self.seen.get(sites) {
            Some(answer) => *answer,
            None if self.within_failed(sites) => {
                self.seen.insert(sites.to_vec(), Answer::Fails);
                Answer::Fails
            }
            None => {
                let answer = match self.trial(sites) {
                    true if self.sizing.passes <= 1 => Answer::Passed,
                    true => Answer::PassedOnce,
                    false => Answer::Fails,
                };
                self.seen.insert(sites.to_vec(), answer);
                answer
            }
        };
        answer != Answer::Fails
    }

    /// Whether the end of a descent passes the trials a kept set needs; if not, it is
    /// remembered as failing. A trial the stopped oracle refused says nothing: the end is
    /// kept as reached.
    fn confirm(&mut self, sites: &[usize]) -> bool {
        if self.seen.get(sites) != Some(&Answer::PassedOnce) {
            return true;
        }
        for _ in 1..self.sizing.passes {
            if !self.trial(sites) {
                if self.oracle.stopped() {
                    return true;
                }
                self.seen.insert(sites.to_vec(), Answer::Fails);
                return false;
            }
        }
        self.seen.insert(sites.to_vec(), Answer::Passed);
        true
    }

    /// Whether `sites` (ascending) lies within a set that failed: a failing run is certain,
    /// and fewer barriers allow every execution more barriers do, so its failure is this
    /// set's as well. ddmin's finer parts lie within parts that failed a level up; a later
    /// round's shrink of the failed fix with what was added would ask the fix and its parts
    /// again, each at the later round's larger trial size.
    fn within_failed(&self, sites: &[usize]) -> bool {
        self.seen
            .iter()
            .any(|(set, answer)| *answer == Answer::Fails && contains_all(set, sites))
    }

    fn trial(&mut self, sites: &[usize]) -> bool {
        let trial = self.oracle.trial(sites, self.sizing.runs_needed());
        self.trials += 1;
        self.runs += trial.runs();
        matches!(trial, Trial::Pass { .. })
    }
}

/// Whether ascending `set` holds every site of ascending `sites`.
fn contains_all(set: &[usize], sites: &[usize]) -> bool {
    sites.iter().all(|s| set.binary_search(s).is_ok())
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
    use crate::trial::{FailureRate, Trial};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Passes exactly when every needed site is fenced; a missing one fails at `rate` per
    /// run. Counts the trials it was asked.
    struct Simulated {
        needed: Vec<usize>,
        rate: f64,
        rng: ChaCha8Rng,
        asked: Vec<Vec<usize>>,
        /// What `upcoming` was told, each time.
        announced: Vec<Vec<Vec<usize>>>,
        runs: u64,
    }

    impl Simulated {
        fn new(needed: &[usize], rate: f64, seed: u64) -> Simulated {
            Simulated {
                needed: needed.to_vec(),
                rate,
                rng: ChaCha8Rng::seed_from_u64(seed),
                asked: Vec::new(),
                announced: Vec::new(),
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

        fn upcoming(&mut self, sets: &[Vec<usize>]) {
            for set in sets {
                assert!(!self.asked.contains(set), "{set:?} was answered already");
            }
            self.announced.push(sets.to_vec());
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

    fn guessing(sites: usize, needed: &[usize], guesses: usize) -> (Search, Simulated) {
        let mut oracle = Simulated::new(needed, 1.0, 0);
        let all: Vec<usize> = (0..sites).collect();
        let sizing = Sizing::first(FailureRate::new(1.0).unwrap());
        let found = ddmin_guessing(&all, guesses, sizing, &mut oracle);
        (found, oracle)
    }

    #[test]
    fn no_set_within_one_that_failed_is_asked() {
        // Both halves of 16 fail (each lacks a needed site): the next level's quarters lie
        // within them.
        let (found, oracle) = search(16, &[3, 12], 1.0, 0);
        assert_eq!(found.sites, [3, 12]);
        let failed = |set: &Vec<usize>| !(set.contains(&3) && set.contains(&12));
        for (i, set) in oracle.asked.iter().enumerate() {
            let within = oracle.asked[..i]
                .iter()
                .filter(|earlier| failed(earlier))
                .find(|earlier| set.iter().all(|s| earlier.contains(s)));
            assert_eq!(within, None, "{set:?} asked after {within:?}");
        }
    }

    #[test]
    fn a_guessed_site_that_passes_alone_is_kept_after_two_trials() {
        let (found, oracle) = guessing(13, &[2], 4);
        assert_eq!(found.sites, [2]);
        // The first two fail at once; the third passes, twice.
        assert_eq!(oracle.asked, [vec![0], vec![1], vec![2], vec![2]]);
        assert_eq!(found.trials, 4);
        // Without guessing, the descent passes through a set at each level.
        let (plain, _) = search(13, &[2], 1.0, 0);
        assert_eq!(plain.sites, [2]);
        assert!(plain.trials > found.trials, "{plain:?}");
    }

    #[test]
    fn guesses_that_fail_are_asked_once_and_ddmin_finds_the_rest() {
        for needed in [vec![9], vec![0, 5], vec![1, 2, 11]] {
            let (found, oracle) = guessing(13, &needed, 4);
            assert_eq!(found.sites, needed);
            for single in 0..4 {
                let asked = oracle.asked.iter().filter(|s| **s == [single]).count();
                let expected = if needed == [single] { 2 } else { 1 };
                assert_eq!(asked, expected, "{needed:?}: {:?}", oracle.asked);
            }
            // Every set asked was announced first, the guesses among them.
            let announced: Vec<&Vec<usize>> = oracle.announced.iter().flatten().collect();
            assert!(oracle.asked.iter().all(|a| announced.contains(&a)));
        }
        // Two sites: ddmin's first level asks them alone already.
        let (found, oracle) = guessing(2, &[1], 4);
        assert_eq!(found.sites, [1]);
        assert_eq!(oracle.asked.iter().filter(|s| **s == [0]).count(), 1);
    }

    #[test]
    fn guesses_asked_alone_first_keep_a_passing_site_or_hand_their_failures_to_ddmin() {
        let sizing = Sizing::first(FailureRate::new(1.0).unwrap());
        let all: Vec<usize> = (0..13).collect();
        // A passing guess: nothing but the guesses up to it was asked, every site not.
        let mut oracle = Simulated::new(&[2], 1.0, 0);
        let guessed = guess_alone(&all, 4, sizing, &mut oracle);
        assert_eq!(guessed.kept, Some(vec![2]));
        assert_eq!(oracle.asked, [vec![0], vec![1], vec![2], vec![2]]);
        assert_eq!((guessed.trials, guessed.runs), (4, 4));
        // None passes: each asked once, and ddmin after them does not ask them again.
        for needed in [vec![9], vec![0, 5]] {
            let mut oracle = Simulated::new(&needed, 1.0, 0);
            let guessed = guess_alone(&all, 4, sizing, &mut oracle);
            assert_eq!(guessed.kept, None);
            assert_eq!(guessed.failed, [vec![0], vec![1], vec![2], vec![3]]);
            let found = ddmin_after(&all, &guessed, sizing, &mut oracle);
            assert_eq!(found.sites, needed);
            for single in 0..4 {
                let asked = oracle.asked.iter().filter(|s| **s == [single]).count();
                assert_eq!(asked, 1, "{needed:?}: {:?}", oracle.asked);
            }
        }
        // Two sites: ddmin's first level asks them alone; nothing is guessed.
        let mut oracle = Simulated::new(&[1], 1.0, 0);
        let guessed = guess_alone(&[0, 1], 4, sizing, &mut oracle);
        assert_eq!(guessed, Guessed::default());
        assert!(oracle.asked.is_empty());
    }

    /// Answers like `Simulated` until its `cut`-th trial, which the deadline cuts short: it
    /// fails without runs, and the oracle stops.
    struct CutShort {
        inner: Simulated,
        cut: usize,
    }

    impl Oracle for CutShort {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            if self.inner.asked.len() + 1 >= self.cut {
                self.inner.asked.push(sites.to_vec());
                return Trial::Fail { runs: 0 };
            }
            self.inner.trial(sites, runs_needed)
        }

        fn stopped(&self) -> bool {
            self.inner.asked.len() >= self.cut
        }
    }

    #[test]
    fn a_guess_cut_short_is_not_counted_as_failed() {
        let sizing = Sizing::first(FailureRate::new(1.0).unwrap());
        let all: Vec<usize> = (0..13).collect();
        let mut oracle = CutShort {
            inner: Simulated::new(&[2], 1.0, 0),
            cut: 2,
        };
        let guessed = guess_alone(&all, 4, sizing, &mut oracle);
        assert_eq!(guessed.kept, None);
        // Site 0 failed; site 1's trial was cut short and says nothing.
        assert_eq!(guessed.failed, [vec![0]]);
        assert_eq!(oracle.inner.asked, [vec![0], vec![1]]);
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
    fn the_end_is_tried_twice_every_other_set_once_the_given_ones_never() {
        let needed = [2, 19, 33];
        let (found, oracle) = search(40, &needed, 1.0, 0);
        assert_eq!(found.sites, needed);
        for set in &oracle.asked {
            let times = oracle.asked.iter().filter(|s| *s == set).count();
            assert_eq!(times, if *set == needed { 2 } else { 1 }, "{set:?}");
        }
        // Its second trial comes last, once none of its parts and complements passed.
        assert_eq!(oracle.asked.last().unwrap(), &needed);
        assert!(!oracle.asked.contains(&(0..40).collect::<Vec<_>>()));
        assert!(!oracle.asked.contains(&Vec::new()));
    }

    /// Passes a set lacking a needed site the first time it is asked (a chance pass), when
    /// that set is `lucky`; otherwise answers like `Simulated`.
    struct Lucky {
        inner: Simulated,
        lucky: Vec<usize>,
    }

    impl Oracle for Lucky {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            if sites == self.lucky && !self.inner.asked.contains(&self.lucky) {
                self.inner.asked.push(sites.to_vec());
                return Trial::Pass { runs: runs_needed };
            }
            self.inner.trial(sites, runs_needed)
        }
    }

    #[test]
    fn an_end_reached_by_a_chance_pass_fails_its_second_trial_and_the_search_goes_again() {
        // 0..8 lacks the needed site 11, passes by chance, and its parts all fail.
        let mut oracle = Lucky {
            inner: Simulated::new(&[11], 1.0, 0),
            lucky: (0..8).collect(),
        };
        let all: Vec<usize> = (0..16).collect();
        let found = ddmin(
            &all,
            Sizing::first(FailureRate::new(1.0).unwrap()),
            &mut oracle,
        );
        assert_eq!(found.sites, vec![11]);
        let asked = &oracle.inner.asked;
        assert_eq!(
            asked.iter().filter(|s| **s == oracle.lucky).count(),
            2,
            "{asked:?}"
        );
        assert_eq!(asked.iter().filter(|s| **s == [11]).count(), 2, "{asked:?}");
        assert_eq!(found.trials as usize, asked.len());
    }

    #[test]
    fn every_set_asked_was_announced_first() {
        let (found, oracle) = search(40, &[3, 17, 31], 1.0, 0);
        assert_eq!(found.sites, vec![3, 17, 31]);
        let announced: Vec<&Vec<usize>> = oracle.announced.iter().flatten().collect();
        for asked in &oracle.asked {
            assert!(announced.contains(&asked), "{asked:?} was not announced");
        }
        // Each level's parts come first, in the order they are asked, then the next level's
        // likely sets: the first part's halves, then the level below.
        let range = |r: std::ops::Range<usize>| r.collect::<Vec<_>>();
        let first_level = [range(0..20), range(20..40), range(0..10), range(10..20)];
        // The level below asks its complements (its parts lie within this level's).
        let without = |r: std::ops::Range<usize>| (0..40).filter(|s| !r.contains(s)).collect();
        let below: [Vec<usize>; 4] = [
            without(0..10),
            without(10..20),
            without(20..30),
            without(30..40),
        ];
        assert_eq!(oracle.announced[0][..4], first_level);
        assert_eq!(oracle.announced[0][4..8], below);
        assert_eq!(oracle.asked[0], oracle.announced[0][0]);
        // Some sets asked were announced a level before they were asked, beyond the level's
        // first two: the complements of the level below and of the first complement's split.
        // (Where a later complement passes, its level is not foreseen; the parts of a level
        // below the first lie within parts that failed, and are neither asked nor built.)
        let ahead = oracle.asked.iter().filter(|asked| {
            let level = oracle.announced.iter().find(|l| l.contains(asked)).unwrap();
            level.iter().position(|s| s == *asked).unwrap() >= 2
        });
        let ahead = ahead.count();
        assert!(
            ahead * 5 >= oracle.asked.len(),
            "{ahead} of {}: {:?}",
            oracle.asked.len(),
            oracle.announced
        );
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
    /// as the device oracle does once Ctrl-C, an error or the deadline stopped it; like that
    /// oracle, it says it stopped only once it refused a trial (the deadline is met by the
    /// trial asked after it).
    struct Stopping {
        inner: Simulated,
        answers: usize,
        refused: bool,
    }

    impl Oracle for Stopping {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            if self.inner.asked.len() >= self.answers {
                self.refused = true;
                return Trial::Fail { runs: 0 };
            }
            self.inner.trial(sites, runs_needed)
        }

        fn stopped(&self) -> bool {
            self.refused
        }
    }

    #[test]
    fn a_stopped_oracle_leaves_the_smallest_set_that_passed() {
        let all: Vec<usize> = (0..16).collect();
        for answers in 0..12 {
            let mut oracle = Stopping {
                inner: Simulated::new(&[11], 1.0, 0),
                answers,
                refused: false,
            };
            let found = ddmin(
                &all,
                Sizing::first(FailureRate::new(1.0).unwrap()),
                &mut oracle,
            );
            let asked = &oracle.inner.asked;
            let passed = asked.iter().filter(|s| s.contains(&11));
            let smallest = passed.map(Vec::len).min().unwrap_or(16);
            assert_eq!(found.sites.len(), smallest, "{answers} answers: {asked:?}");
            assert!(found.sites.contains(&11));
        }
    }
}
