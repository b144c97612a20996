//! One question to the oracle: do these fences stop the failures? A failing run answers it
//! at once; a pass needs enough runs that a failure at the measured rate would have shown.

use std::time::Duration;
// What a trial saw is the model's: the search reports it in its events (`SearchEvent::Trial`).
pub use wgstress_model::fences::measured::Trial;

/// A failure rate measured without fences: a probability in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FailureRate(f64);

impl FailureRate {
    /// `failures` of `runs`; none when no run failed (nothing to search for) or no run ran.
    pub fn measured(failures: u64, runs: u64) -> Option<FailureRate> {
        (failures > 0 && failures <= runs).then(|| FailureRate(failures as f64 / runs as f64))
    }

    /// A rate given as a probability; none outside (0, 1].
    pub(crate) fn new(p: f64) -> Option<FailureRate> {
        (p > 0.0 && p <= 1.0).then_some(FailureRate(p))
    }

    pub(crate) fn get(self) -> f64 {
        self.0
    }

    /// Runs that show at least one failure with 99% confidence at this rate:
    /// the least n with (1 - p)^n <= 0.01, n = ceil(ln 0.01 / ln(1 - p)), at least 1.
    pub(crate) fn runs_needed(self) -> u64 {
        if self.0 >= 1.0 {
            return 1;
        }
        let n = (0.01f64.ln() / (1.0 - self.0).ln()).ceil();
        (n as u64).max(1)
    }
}

/// Runs the application with a set of fences.
pub trait Oracle {
    /// Runs with a barrier at exactly `sites` (indices of the candidate sites): `Fail` at
    /// the first failing run, `Pass` after `runs_needed` passing runs.
    fn trial(&mut self, sites: &[usize], runs_needed: u64) -> Trial;

    /// The sets that may be asked next, most likely first: a lab may build their programs
    /// while it runs others (a trial's build is compiling a pipeline, which for a large
    /// stressed shader takes longer than many trials' runs).
    fn upcoming(&mut self, _sets: &[Vec<usize>]) {}

    /// Whether it has stopped answering (Ctrl-C, an error, the search's deadline): every
    /// trial from now on fails without running.
    fn stopped(&self) -> bool {
        false
    }
}

/// How a set is asked about: trials sized for `rate`, and how many passing trials in a row
/// make it pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    pub rate: FailureRate,
    pub passes: u32,
}

impl Sizing {
    /// A first round's: the set kept passes two trials in a row (ddmin.rs says why and
    /// which sets are asked once).
    pub fn first(rate: FailureRate) -> Sizing {
        Sizing { rate, passes: 2 }
    }

    /// A later round's: one. Its trials are sized for the low rate a failed fix left, each
    /// often dearer than a whole first round, and the verification that follows catches a
    /// chance pass that dropped a needed site, starting another round.
    pub fn later(rate: FailureRate) -> Sizing {
        Sizing { rate, passes: 1 }
    }

    /// A first round's guesses, asked alone before anything else (shrink.rs): a guess that
    /// passes goes to the verification, which runs at least a trial's runs under every
    /// strategy that failed (verify.rs), as strong a check as a second trial. A second trial
    /// only spares a wrong guess's chance pass (1 in 100) the verification's failure and the
    /// later round that follows it; it is asked where it is cheap, at most a tenth of the
    /// `verification`'s time at `seconds_per_run`, and else left to the verification: a
    /// second trial of seconds, cut short at the guesses' deadline, only delays the verdict.
    pub fn guesses(rate: FailureRate, seconds_per_run: f64, verification: Duration) -> Sizing {
        let trial = rate.runs_needed() as f64 * seconds_per_run;
        match trial > verification.as_secs_f64() / 10.0 {
            true => Sizing { rate, passes: 1 },
            false => Sizing::first(rate),
        }
    }

    pub fn runs_needed(self) -> u64 {
        self.rate.runs_needed()
    }
}

/// What asking whether a set passes cost: a set passes only after `Sizing::passes` passing
/// trials in a row, so a failing set costs one trial and a passing one that many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Passes {
    pub passed: bool,
    pub trials: u64,
    pub runs: u64,
}

/// Whether `sites` passes, as the search counts a pass: `sizing.passes` passing trials in a
/// row.
pub(crate) fn passes(oracle: &mut dyn Oracle, sites: &[usize], sizing: Sizing) -> Passes {
    let mut asked = Passes {
        passed: true,
        trials: 0,
        runs: 0,
    };
    while asked.passed && asked.trials < u64::from(sizing.passes.max(1)) {
        let trial = oracle.trial(sites, sizing.runs_needed());
        asked.passed = trial.passed();
        asked.trials += 1;
        asked.runs += trial.runs();
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_needed_is_the_99_percent_count() {
        // (1 - 0.5)^7 = 0.0078 <= 0.01 < (1 - 0.5)^6 = 0.0156.
        assert_eq!(FailureRate::new(0.5).unwrap().runs_needed(), 7);
        // ln 0.01 / ln 0.99 = 458.2.
        assert_eq!(FailureRate::new(0.01).unwrap().runs_needed(), 459);
        // ln 0.01 / ln 0.9 = 43.7.
        assert_eq!(FailureRate::new(0.1).unwrap().runs_needed(), 44);
        assert_eq!(FailureRate::new(1.0).unwrap().runs_needed(), 1);
        assert_eq!(FailureRate::new(0.995).unwrap().runs_needed(), 1);
        for p in [0.001, 0.02, 0.3, 0.77] {
            let n = FailureRate::new(p).unwrap().runs_needed();
            let miss = |n: u64| (1.0 - p).powi(n as i32);
            assert!(miss(n) <= 0.01 && miss(n - 1) > 0.01, "p {p}: n {n}");
        }
    }

    #[test]
    fn rates_outside_zero_to_one_are_refused() {
        assert_eq!(FailureRate::measured(0, 100), None);
        assert_eq!(FailureRate::measured(3, 0), None);
        assert_eq!(
            FailureRate::measured(1, 4).map(FailureRate::get),
            Some(0.25)
        );
        assert_eq!(FailureRate::new(0.0), None);
        assert_eq!(FailureRate::new(1.5), None);
        assert_eq!(FailureRate::new(f64::NAN), None);
    }

    #[test]
    fn a_guess_is_asked_twice_only_where_a_trial_is_cheap_against_the_verification() {
        let thirty = Duration::from_secs(30);
        // As global-barrier's search: 3 failures in 720 runs of 13.7 ms, 1,103 runs a trial.
        let rare = FailureRate::measured(3, 720).unwrap();
        assert_eq!(Sizing::guesses(rare, 0.0137, thirty).passes, 1);
        // ct-octree: 33 in 390 runs of 2.8 ms, 53 runs a trial.
        let common = FailureRate::measured(33, 390).unwrap();
        assert_eq!(
            Sizing::guesses(common, 0.0028, thirty),
            Sizing::first(common)
        );
        // At the bound: 44 runs of 68.2 ms are 3.0 s, a tenth of the verification.
        let tenth = FailureRate::new(0.1).unwrap();
        assert_eq!(Sizing::guesses(tenth, 3.0 / 44.0, thirty).passes, 2);
        assert_eq!(Sizing::guesses(tenth, 3.01 / 44.0, thirty).passes, 1);
    }
}
