//! How a round of the search shrinks the sites, all of which passed: ddmin in an order of
//! preference, and, after a fix failed its verification, around that fix first.
//!
//! ddmin keeps the first passing part it meets at each granularity, so the order of the
//! sites chooses between fixes that pass alike; before it descends, the first few sites of
//! the order are asked alone (`GUESSES`). Sites in called functions go first, callees
//! before their callers and the entry point last: one barrier in a function serves every
//! call of it, and the hand-written fixes of the bundled applications sit in their
//! synchronization functions (lock, push, steal, global_barrier). On the H100, ct-octree's
//! search in source order (the entry point first) kept six barriers around the calls of its
//! work loop, where the hand-written fix has four, inside push, pop and steal.
//!
//! A later round's trials are larger, sized for the rate the failed fix left. Each site of
//! that fix was kept because a trial without it failed, certain evidence, so the round first
//! keeps the fix and looks among the other sites for what it lacks (ddmin over them, the fix
//! always on), then shrinks the fix and what was added together: starting over would spend
//! the larger trials finding the fix's sites again.

use super::ddmin::{ddmin_after, ddmin_knowing, guess_alone, singles, Guessed, Search};
use super::trial::{Oracle, Sizing, Trial};
use wgstress_instrument::placement::FenceSite;

/// The site indices in the order ddmin should prefer them: the functions in reverse of their
/// numbering (sites are numbered in the entry point first, then callers before callees), each
/// function's sites in their own order.
pub(crate) fn callees_first(sites: &[FenceSite]) -> Vec<usize> {
    let mut functions: Vec<&str> = Vec::new();
    for site in sites {
        if !functions.contains(&site.function.as_str()) {
            functions.push(&site.function);
        }
    }
    functions
        .iter()
        .rev()
        .flat_map(|f| (0..sites.len()).filter(move |&i| sites[i].function == *f))
        .collect()
}

/// A 1-minimal passing subset of `order` (every site, in the order of preference; all of
/// them passed). `failed`: the last round's fix, which failed its verification, kept while
/// the other sites are searched for what it lacks; empty in a first round.
pub(crate) fn shrink(
    order: &[usize],
    failed: &[usize],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    shrink_knowing(order, failed, &[], sizing, oracle)
}

/// `shrink`, knowing `failing`: sets a run of an earlier round failed. A failing run is
/// certain at any trial size, so no set within one is asked again (ct-octree's second rounds
/// on an H200 asked `[24]`, `[27]` and `[28]` again, which the first round had seen fail).
pub(crate) fn shrink_knowing(
    order: &[usize],
    failed: &[usize],
    failing: &[&[usize]],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    if failed.is_empty() {
        return ordered(order, &within(order, failing), sizing, oracle);
    }
    // ddmin's premises hold: the rest with the fix is every site, which passed, and the fix
    // alone failed.
    let rest: Vec<usize> = order
        .iter()
        .copied()
        .filter(|s| !failed.contains(s))
        .collect();
    // A set of the rest is asked with the fix: it is known to fail where it lies within a
    // failing set that holds the fix.
    let with_fix: Vec<&[usize]> = failing
        .iter()
        .copied()
        .filter(|f| failed.iter().all(|s| f.contains(s)))
        .collect();
    let mut with = With {
        base: failed,
        oracle,
        failed: Vec::new(),
    };
    let added = ordered(&rest, &within(&rest, &with_fix), sizing, &mut with);
    let With {
        failed: failed_with_fix,
        oracle,
        ..
    } = with;
    // The fix with what was added passed, and no fence failed; the fix itself failed, and
    // so does every set within it.
    let union: Vec<usize> = order
        .iter()
        .copied()
        .filter(|s| failed.contains(s) || added.sites.contains(s))
        .collect();
    let known: Vec<&[usize]> = failing
        .iter()
        .copied()
        .chain([failed])
        .chain(failed_with_fix.iter().map(Vec::as_slice))
        .collect();
    let last = ordered(&union, &within(&union, &known), sizing, oracle);
    Search {
        sites: last.sites,
        trials: added.trials + last.trials,
        runs: added.runs + last.runs,
    }
}

/// The positions in `order` of each failing set's sites (a set within it fails too); none
/// that holds all of `order`, which passed.
fn within(order: &[usize], failing: &[&[usize]]) -> Vec<Vec<usize>> {
    failing
        .iter()
        .map(|f| {
            (0..order.len())
                .filter(|&p| f.contains(&order[p]))
                .collect::<Vec<usize>>()
        })
        .filter(|positions| positions.len() < order.len())
        .collect()
}

/// Sites of the order asked alone before ddmin descends. The bundled applications' one-site
/// fixes (nofence, size large) are the second to fifth of their orders, but for ls-bh's (the
/// twelfth); a guess that fails ends at its first failing run.
const GUESSES: usize = 6;

/// ddmin over the positions of `order`: it prefers what comes first, and asks the first
/// sites alone first; the sets of positions `known` (and every set within one) fail.
fn ordered(
    order: &[usize],
    known: &[Vec<usize>],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    let found = ddmin_knowing(
        &positions(order),
        GUESSES,
        known,
        sizing,
        &mut Ordered { order, oracle },
    );
    in_order(order, found)
}

/// The sets `guess_first` asks, in order.
pub(crate) fn first_guesses(order: &[usize]) -> Vec<Vec<usize>> {
    singles(order, GUESSES)
}

/// A first round's guesses, asked before a barrier at every site is (`guess_alone`): the
/// sites of the first guess that passed, if one did, and what `shrink_guessed` needs.
pub(crate) fn guess_first(
    order: &[usize],
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> (Option<Vec<usize>>, Guessed) {
    let guessed = guess_alone(
        &positions(order),
        GUESSES,
        sizing,
        &mut Ordered { order, oracle },
    );
    let kept = guessed.kept.as_ref().map(|kept| at(order, kept));
    (kept, guessed)
}

/// `shrink` in a first round whose guesses (`guess_first`) all failed and whose every site
/// then passed: ddmin in the order of preference, not asking the guesses again.
pub(crate) fn shrink_guessed(
    order: &[usize],
    guessed: &Guessed,
    sizing: Sizing,
    oracle: &mut dyn Oracle,
) -> Search {
    let found = ddmin_after(
        &positions(order),
        guessed,
        sizing,
        &mut Ordered { order, oracle },
    );
    in_order(order, found)
}

/// Every position of `order`.
fn positions(order: &[usize]) -> Vec<usize> {
    (0..order.len()).collect()
}

/// The sites at `positions` of `order`, ascending.
fn at(order: &[usize], positions: &[usize]) -> Vec<usize> {
    ascending(positions.iter().map(|&p| order[p]))
}

/// A search over positions of `order`, as the sites there.
fn in_order(order: &[usize], found: Search) -> Search {
    Search {
        sites: at(order, &found.sites),
        ..found
    }
}

fn ascending(sites: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut sites: Vec<usize> = sites.collect();
    sites.sort_unstable();
    sites.dedup();
    sites
}

/// Asks about positions in `order` as the sites there.
struct Ordered<'a> {
    order: &'a [usize],
    oracle: &'a mut dyn Oracle,
}

impl Ordered<'_> {
    /// The sites at `positions` of the order.
    fn sites(&self, positions: &[usize]) -> Vec<usize> {
        at(self.order, positions)
    }
}

impl Oracle for Ordered<'_> {
    fn trial(&mut self, positions: &[usize], runs_needed: u64) -> Trial {
        let sites = self.sites(positions);
        self.oracle.trial(&sites, runs_needed)
    }

    fn upcoming(&mut self, sets: &[Vec<usize>]) {
        let sets: Vec<Vec<usize>> = sets.iter().map(|positions| self.sites(positions)).collect();
        self.oracle.upcoming(&sets);
    }

    fn stopped(&self) -> bool {
        self.oracle.stopped()
    }
}

/// Asks about sets with `base` always added.
struct With<'a> {
    base: &'a [usize],
    oracle: &'a mut dyn Oracle,
    /// The sets asked (the base among them) that a run failed: every set within one fails
    /// too, so the stage after this one does not ask them again.
    failed: Vec<Vec<usize>>,
}

impl With<'_> {
    /// `sites` with the base added.
    fn sites(&self, sites: &[usize]) -> Vec<usize> {
        ascending(sites.iter().chain(self.base).copied())
    }
}

impl Oracle for With<'_> {
    fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
        let sites = self.sites(sites);
        let trial = self.oracle.trial(&sites, runs_needed);
        // A trial the search's stop cut short failed without a failing run: it says nothing.
        if !trial.passed() && !self.oracle.stopped() {
            self.failed.push(sites);
        }
        trial
    }

    fn upcoming(&mut self, sets: &[Vec<usize>]) {
        let sets: Vec<Vec<usize>> = sets.iter().map(|sites| self.sites(sites)).collect();
        self.oracle.upcoming(&sets);
    }

    fn stopped(&self) -> bool {
        self.oracle.stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgstress_instrument::placement::Side;

    /// Passes exactly when the set holds every site of one of `fixes`; remembers what it was
    /// asked.
    struct Fixes {
        fixes: Vec<Vec<usize>>,
        asked: Vec<Vec<usize>>,
    }

    impl Fixes {
        fn new(fixes: &[&[usize]]) -> Fixes {
            Fixes {
                fixes: fixes.iter().map(|f| f.to_vec()).collect(),
                asked: Vec::new(),
            }
        }

        /// Asserts that none of `sets` was asked.
        fn never_asked(&self, sets: &[&[usize]]) {
            for set in sets {
                assert!(
                    !self.asked.iter().any(|a| a == set),
                    "{set:?}: {:?}",
                    self.asked
                );
            }
        }
    }

    impl Oracle for Fixes {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            self.asked.push(sites.to_vec());
            if self
                .fixes
                .iter()
                .any(|f| f.iter().all(|s| sites.contains(s)))
            {
                Trial::Pass { runs: runs_needed }
            } else {
                Trial::Fail { runs: 1 }
            }
        }
    }

    fn certain() -> Sizing {
        Sizing::first(crate::fences::trial::FailureRate::new(1.0).unwrap())
    }

    fn site(id: u32, function: &str) -> FenceSite {
        FenceSite {
            id,
            side: Side::Before,
            function: function.into(),
            line: 1,
            column: 1,
            point: Default::default(),
        }
    }

    #[test]
    fn callees_come_before_their_callers_and_the_entry_point_last() {
        let sites = [
            site(0, "main"),
            site(1, "main"),
            site(2, "steal"),
            site(3, "pop"),
            site(4, "pop"),
            site(5, "main"),
        ];
        assert_eq!(callees_first(&sites), vec![3, 4, 2, 0, 1, 5]);
    }

    #[test]
    fn the_order_chooses_between_fixes_that_pass_alike() {
        // Two barriers around a call in the entry point (0, 1) or one in the callee (6).
        let all: Vec<usize> = (0..8).collect();
        let mut source_order = Fixes::new(&[&[0, 1], &[6]]);
        assert_eq!(
            shrink(&all, &[], certain(), &mut source_order).sites,
            [0, 1]
        );
        let mut preferred = Fixes::new(&[&[0, 1], &[6]]);
        let order = [6, 7, 0, 1, 2, 3, 4, 5];
        let found = shrink(&order, &[], certain(), &mut preferred);
        assert_eq!(found.sites, [6]);
        assert_eq!(found.trials as usize, preferred.asked.len());
        assert!(preferred.asked.iter().all(|s| s.is_sorted()));
    }

    #[test]
    fn a_failed_fix_is_kept_while_what_it_lacks_is_found() {
        let all: Vec<usize> = (0..24).collect();
        let mut oracle = Fixes::new(&[&[3, 9, 20]]);
        let found = shrink(&all, &[3, 9], certain(), &mut oracle);
        assert_eq!(found.sites, [3, 9, 20]);
        // Until the fix and what it lacks stand together, every set asked holds the fix.
        let first_pass = oracle.asked.iter().position(|s| s.contains(&20)).unwrap();
        for set in &oracle.asked[..first_pass] {
            assert!(set.contains(&3) && set.contains(&9), "{set:?}");
        }
        let from_scratch = shrink(&all, &[], certain(), &mut Fixes::new(&[&[3, 9, 20]]));
        assert_eq!(from_scratch.sites, [3, 9, 20]);
        assert!(
            found.trials < from_scratch.trials,
            "{found:?} {from_scratch:?}"
        );
    }

    #[test]
    fn the_failed_fix_and_its_parts_are_not_asked_again() {
        // ct-octree's second round on an H200: the fix [27, 28] failed, [24] added to it
        // passed, and [24, 28] is the fix.
        let order = [27, 28, 29, 22, 23, 24, 25, 26, 16];
        let mut oracle = Fixes::new(&[&[24, 28]]);
        let found = shrink(&order, &[27, 28], certain(), &mut oracle);
        assert_eq!(found.sites, [24, 28]);
        oracle.never_asked(&[&[27, 28], &[27], &[28]]);
    }

    #[test]
    fn what_failed_with_the_fix_is_not_asked_again_in_the_same_round() {
        // ct-octree's second round on an H100: with the failed fix [27], the guesses
        // [27, 28] and [27, 29] failed, and ddmin then found [27, 28, 29]; its last stage
        // asked [28], [29], [27, 28] and [27, 29], each within a set that had failed.
        let order = [27, 28, 29, 22, 23, 24, 25, 26, 16];
        let mut oracle = Fixes::new(&[&[27, 28, 29]]);
        let found = shrink(&order, &[27], certain(), &mut oracle);
        assert_eq!(found.sites, [27, 28, 29]);
        let failed_first = [vec![27, 28], vec![27, 29]];
        for set in &failed_first {
            let times = oracle.asked.iter().filter(|a| *a == set).count();
            assert_eq!(times, 1, "{set:?}: {:?}", oracle.asked);
        }
        oracle.never_asked(&[&[28], &[29]]);
    }

    #[test]
    fn sets_an_earlier_round_saw_fail_are_not_asked_again() {
        // The first round saw [22, 27, 28] and [24] fail; with the fix [27, 28] kept, the
        // guess of 22 is that set again, and 24 alone lies within the second.
        let order = [27, 28, 29, 22, 23, 24, 25, 26, 16];
        let mut oracle = Fixes::new(&[&[24, 28]]);
        let failing: [&[usize]; 2] = [&[22, 27, 28], &[24]];
        let found = shrink_knowing(&order, &[27, 28], &failing, certain(), &mut oracle);
        assert_eq!(found.sites, [24, 28]);
        oracle.never_asked(&[&[22, 27, 28], &[24], &[27, 28], &[28]]);
        // Not knowing them, the search asks both.
        let mut unknowing = Fixes::new(&[&[24, 28]]);
        shrink(&order, &[27, 28], certain(), &mut unknowing);
        assert!(unknowing.asked.contains(&vec![22, 27, 28]));
        assert!(unknowing.asked.contains(&vec![24]));
    }

    #[test]
    fn a_site_of_the_failed_fix_that_became_needless_goes() {
        // The failed fix {0, 1} lacks 7, and 5 alone would do what all three do.
        let order = [5, 6, 7, 8, 9, 0, 1, 2, 3, 4];
        let mut oracle = Fixes::new(&[&[0, 1, 7], &[5]]);
        assert_eq!(shrink(&order, &[0, 1], certain(), &mut oracle).sites, [5]);
    }
}
