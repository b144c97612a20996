//! A later round's search for what a failed fix lacks: every set is asked with the fix, and,
//! where the fix has two sites or more, first without the site of it that the evidence
//! needs least.
//!
//! A first round's trials are small, sized for the rate without fences, so the set it keeps
//! can hold a site that only lowered the rate (ct-octree's first round at times keeps
//! `[27, 28]` where `[28]` is what the fix needs). The next round then finds that the fix
//! lacks 24 by passing `[24, 27, 28]` and shrinks that to `[24, 28]`: two passing trials,
//! a later round's dearest, where a round that had kept `[28]` passes one. Asking `[24, 28]` before
//! `[24, 27, 28]` costs one trial more for each set that lacks what the fix needs, and that
//! trial fails sooner than the one with the whole fix (fewer barriers never fail less
//! often); where the site left out was needless, it saves a passing trial, the dearest of a
//! round.

use crate::ddmin::{ascending, lies_within};
use crate::trial::{Oracle, Trial};

/// A trial an earlier round ran of barriers alone (a make-atomic trial's sites are another
/// shader's): its sites, its runs, and whether a run failed. Trials cut short are not seen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen<'a> {
    pub sites: &'a [usize],
    pub runs: u64,
    pub failed: bool,
}

/// A site whose absence failed this unlikely often, were its rate the doubtful site's, is
/// decidedly needed more, and not left out in turn (a one-sided binomial test).
const DECIDED: f64 = 0.05;

/// The most sites left out in turn: each more adds as many guesses as the first, and a fix
/// kept from small trials most often holds one needless site, which the evidence puts among
/// the two it needs least.
const DOUBTS: usize = 2;

/// The sites of `fix` (two sites or more) to leave out in turn, the one the earlier trials
/// show needed least first: for each site, the failures per run of every trial of a set that
/// lacks it and holds the rest of the fix; the lowest rate first, the latest of `order` on a
/// tie. A set that holds more barriers fails no more often, so each of those trials samples a
/// rate no higher than the fix without the site: a low one says the site did little that the
/// rest did not. The others follow unless their failures decide that they are needed more
/// (`DECIDED`): trials of a few dozen runs rarely tell two sites apart, and naming the
/// wrong one alone costs a later round two passing trials. The first `DOUBTS` not decided against;
/// none where no trial lacked one site.
pub(crate) fn doubtful(order: &[usize], fix: &[usize], seen: &[Seen]) -> Vec<usize> {
    if fix.len() < 2 {
        return Vec::new();
    }
    let evidence = |site: usize| {
        seen.iter()
            .filter(|t| {
                !t.sites.contains(&site) && fix.iter().all(|&s| s == site || t.sites.contains(&s))
            })
            .fold((0u64, 0u64), |(f, r), t| {
                (f + u64::from(t.failed), r + t.runs)
            })
    };
    let rate = |(failures, runs): (u64, u64)| match runs {
        0 => 0.0,
        runs => failures as f64 / runs as f64,
    };
    // The latest of the order first, so that a stable sort keeps it first on a tie; at one
    // rate, the site with more runs without it first (500 clean runs say more than none).
    let mut sites: Vec<(usize, (u64, u64))> = order
        .iter()
        .rev()
        .filter(|s| fix.contains(s))
        .map(|&s| (s, evidence(s)))
        .collect();
    // No trial lacked any one site: nothing tells them apart, and the fix is asked whole.
    if sites.iter().all(|(_, (_, runs))| *runs == 0) {
        return Vec::new();
    }
    sites.sort_by(|a, b| {
        rate(a.1)
            .total_cmp(&rate(b.1))
            .then_with(|| b.1 .1.cmp(&a.1 .1))
    });
    let least = sites[0].1;
    sites
        .iter()
        .filter(|(_, seen)| !decidedly_more(*seen, least))
        .map(|&(site, _)| site)
        .take(DOUBTS)
        .collect()
}

/// Whether `more`'s failures are too many (`DECIDED`) for a rate no higher than `least`'s:
/// given the failures of both, each falls to `more` with the share of the runs it had.
fn decidedly_more(more: (u64, u64), least: (u64, u64)) -> bool {
    let (failures, total_runs) = (more.0 + least.0, more.1 + least.1);
    if more.0 == 0 || more.1 == 0 || least.1 == 0 {
        return false;
    }
    let share = more.1 as f64 / total_runs as f64;
    binomial_tail(failures, more.0, share) < DECIDED
}

/// P(X >= k) for X ~ Binomial(n, p).
fn binomial_tail(n: u64, k: u64, p: f64) -> f64 {
    match () {
        _ if k == 0 => return 1.0,
        _ if k > n || p <= 0.0 => return 0.0,
        _ if p >= 1.0 => return 1.0,
        _ => {}
    }
    let mut term = (1.0 - p).powf(n as f64);
    let mut below = 0.0;
    for i in 0..k {
        below += term;
        term *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    (1.0 - below).max(0.0)
}

/// Asks about sets with `base` (the failed fix) always added, and, where a site of it is
/// `doubtful`, first without that site: a pass there is the set's pass (a barrier added never
/// adds a failure) and what the next stage shrinks.
pub(crate) struct With<'a> {
    base: &'a [usize],
    doubtful: Option<usize>,
    /// Sets a run failed, of earlier rounds and this one: a set within one is not asked.
    known: Vec<Vec<usize>>,
    pub oracle: &'a mut dyn Oracle,
    /// The sets asked (the base among them) that a run failed: every set within one fails
    /// too, so the stage after this one does not ask them again.
    pub failed: Vec<Vec<usize>>,
    /// Each set asked that passed without the doubtful site, as the sites it passed with.
    passed_without: Vec<(Vec<usize>, Vec<usize>)>,
    /// Trials asked beyond one a set.
    pub extra_trials: u64,
}

impl<'a> With<'a> {
    pub(crate) fn new(
        base: &'a [usize],
        doubtful: Option<usize>,
        known: &[&[usize]],
        oracle: &'a mut dyn Oracle,
    ) -> With<'a> {
        With {
            base,
            doubtful: doubtful.filter(|d| base.contains(d)),
            known: known.iter().map(|k| k.to_vec()).collect(),
            oracle,
            failed: Vec::new(),
            passed_without: Vec::new(),
            extra_trials: 0,
        }
    }

    /// `sites` with the base added.
    fn sites(&self, sites: &[usize]) -> Vec<usize> {
        ascending(sites.iter().chain(self.base).copied())
    }

    /// `sites` with the base but its doubtful site added, unless that is the base with them.
    fn without_doubtful(&self, sites: &[usize]) -> Option<Vec<usize>> {
        let doubtful = self.doubtful?;
        (!sites.contains(&doubtful)).then(|| {
            ascending(
                sites
                    .iter()
                    .chain(self.base.iter().filter(|&&s| s != doubtful))
                    .copied(),
            )
        })
    }

    /// The sites `added` to the base passed with: without the doubtful site where that
    /// passed, else with the whole base.
    pub(crate) fn passed_with(&self, added: &[usize]) -> Vec<usize> {
        let added = ascending(added.iter().copied());
        self.passed_without
            .iter()
            .find(|(asked, _)| *asked == added)
            .map_or_else(|| self.sites(&added), |(_, sites)| sites.clone())
    }

    fn known_to_fail(&self, sites: &[usize]) -> bool {
        lies_within(sites, &self.known) || lies_within(sites, &self.failed)
    }

    /// One trial of `sites`, remembered when a run failed.
    fn ask(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
        let trial = self.oracle.trial(sites, runs_needed);
        // A trial the search's stop cut short failed without a failing run: it says nothing.
        if !trial.passed() && !self.oracle.stopped() {
            self.failed.push(sites.to_vec());
        }
        trial
    }
}

impl Oracle for With<'_> {
    fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
        let mut before = 0;
        if let Some(without) = self
            .without_doubtful(sites)
            .filter(|w| !self.known_to_fail(w))
        {
            match self.ask(&without, runs_needed) {
                Trial::Pass { runs } => {
                    self.passed_without
                        .push((ascending(sites.iter().copied()), without));
                    return Trial::Pass { runs };
                }
                Trial::Fail { runs } if self.oracle.stopped() => return Trial::Fail { runs },
                Trial::Fail { runs } => {
                    before = runs;
                    self.extra_trials += 1;
                }
            }
        }
        let whole = self.sites(sites);
        match self.ask(&whole, runs_needed) {
            Trial::Pass { runs } => Trial::Pass {
                runs: runs + before,
            },
            Trial::Fail { runs } => Trial::Fail {
                runs: runs + before,
            },
        }
    }

    fn upcoming(&mut self, sets: &[Vec<usize>]) {
        let sets: Vec<Vec<usize>> = sets
            .iter()
            .flat_map(|sites| [self.without_doubtful(sites), Some(self.sites(sites))])
            .flatten()
            .collect();
        self.oracle.upcoming(&sets);
    }

    fn stopped(&self) -> bool {
        self.oracle.stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(sites: &[usize], runs: u64, failed: bool) -> Seen<'_> {
        Seen {
            sites,
            runs,
            failed,
        }
    }

    #[test]
    fn the_doubtful_site_is_the_one_whose_absence_failed_least_often() {
        // A ct-octree first round: 27 alone failed at once, 28 alone after most
        // of a trial, and larger sets without 27 passed; 28 decidedly did more.
        let order = [27, 28, 29, 22, 23, 24];
        let trials = [
            seen(&[27], 2, true),
            seen(&[27, 29], 3, true),
            seen(&[28], 41, true),
            seen(&[28, 29, 22], 150, false),
            seen(&[28, 29, 22], 150, false),
            seen(&[27, 28], 50, false),
        ];
        assert_eq!(doubtful(&order, &[27, 28], &trials), [27]);
        // The other way round, 28 is.
        let trials = [
            seen(&[27], 345, true),
            seen(&[28], 3, true),
            seen(&[28, 22], 2, true),
        ];
        assert_eq!(doubtful(&order, &[27, 28], &trials), [28]);
        // A fix of one site has none to leave out, and no trial that lacked a site of the
        // fix tells its sites apart.
        assert_eq!(doubtful(&order, &[28], &trials), [] as [usize; 0]);
        let trials = [seen(&[22, 27, 28], 9, true), seen(&[24], 1, true)];
        assert_eq!(doubtful(&order, &[27, 28], &trials), [] as [usize; 0]);
    }

    #[test]
    fn sites_the_evidence_does_not_tell_apart_are_each_left_out_in_turn() {
        let order = [27, 28, 29, 22, 23, 24];
        // Alike, the later of the order goes first.
        let trials = [seen(&[27], 5, true), seen(&[28], 5, true)];
        assert_eq!(doubtful(&order, &[27, 28], &trials), [28, 27]);
        // A ct-octree search: 2 failures in 108 runs without 28, 3 in 108
        // without 29. Naming 28 alone, the site the fix needed, cost two passing trials.
        let trials = [
            seen(&[28], 36, true),
            seen(&[29], 36, false),
            seen(&[29], 36, true),
            seen(&[22, 29], 36, true),
            seen(&[27, 28], 36, true),
            seen(&[22, 28], 36, true),
        ];
        assert_eq!(doubtful(&order, &[28, 29], &trials), [28, 29]);
        // One failure in 9 runs against none in 82: still no decision at 5%.
        let trials = [
            seen(&[27], 9, true),
            seen(&[28], 41, false),
            seen(&[28], 41, false),
        ];
        assert_eq!(doubtful(&order, &[27, 28], &trials), [27, 28]);
        // At one rate, the site with more runs without it goes first.
        let trials = [
            seen(&[28, 29], 500, false),
            seen(&[27, 29], 20, false),
            seen(&[27, 28], 9, true),
        ];
        assert_eq!(doubtful(&order, &[27, 28, 29], &trials), [27, 28]);
        // A site without evidence of its own is not told apart from the others; of three
        // alike, the two needed least are left out in turn.
        let trials = [seen(&[27, 28], 9, true), seen(&[27, 29], 9, true)];
        assert_eq!(doubtful(&order, &[27, 28, 29], &trials), [27, 29]);
    }

    #[test]
    fn the_binomial_tail_is_the_sum_of_its_terms() {
        assert!((binomial_tail(5, 3, 0.5) - 0.5).abs() < 1e-12);
        assert!((binomial_tail(1, 1, 0.099) - 0.099).abs() < 1e-12);
        assert!((binomial_tail(4, 0, 0.3) - 1.0).abs() < 1e-12);
        assert_eq!(binomial_tail(2, 3, 0.5), 0.0);
        assert_eq!(binomial_tail(2, 1, 1.0), 1.0);
        assert_eq!(binomial_tail(2, 1, 0.0), 0.0);
        let exact = 3.0 * 0.2f64.powi(2) * 0.8 + 0.2f64.powi(3);
        assert!((binomial_tail(3, 2, 0.2) - exact).abs() < 1e-12);
    }

    /// Passes exactly when the set holds every site of `fix`; remembers what it was asked.
    struct Needs {
        fix: Vec<usize>,
        asked: Vec<Vec<usize>>,
    }

    impl Oracle for Needs {
        fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial {
            self.asked.push(sites.to_vec());
            match self.fix.iter().all(|s| sites.contains(s)) {
                true => Trial::Pass { runs: runs_needed },
                false => Trial::Fail { runs: 1 },
            }
        }
    }

    #[test]
    fn a_set_is_asked_without_the_doubtful_site_first() {
        let mut needs = Needs {
            fix: vec![24, 28],
            asked: Vec::new(),
        };
        let mut with = With::new(&[27, 28], Some(27), &[&[22, 27, 28]], &mut needs);
        assert_eq!(with.trial(&[29], 10), Trial::Fail { runs: 2 });
        // [22, 28] lies within a set known to fail: only the whole is asked.
        assert_eq!(with.trial(&[22], 10), Trial::Fail { runs: 1 });
        assert_eq!(with.trial(&[24], 10), Trial::Pass { runs: 10 });
        assert_eq!(with.passed_with(&[24]), [24, 28]);
        assert_eq!(with.passed_with(&[29]), [27, 28, 29]);
        assert_eq!(with.extra_trials, 1);
        let failed = with.failed.clone();
        assert_eq!(failed, [vec![28, 29], vec![27, 28, 29], vec![22, 27, 28]]);
        assert_eq!(
            needs.asked,
            [
                vec![28, 29],
                vec![27, 28, 29],
                vec![22, 27, 28],
                vec![24, 28]
            ]
        );
    }

    #[test]
    fn where_the_doubtful_site_is_needed_the_whole_fix_passes() {
        let mut needs = Needs {
            fix: vec![24, 27, 28],
            asked: Vec::new(),
        };
        let mut with = With::new(&[27, 28], Some(27), &[], &mut needs);
        assert_eq!(with.trial(&[24], 10), Trial::Pass { runs: 11 });
        assert_eq!(with.passed_with(&[24]), [24, 27, 28]);
        assert_eq!(with.failed, [vec![24, 28]]);
    }
}
