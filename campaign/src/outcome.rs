//! What an item's attempts add up to, what a baseline expects of it, and how the two
//! compare, as Mesa's deqp-runner does for conformance suites: a failure that passes when
//! re-run is a flake, not a regression.

use crate::record::Exit;
use serde::{Deserialize, Serialize};

/// What one session of an item (its run, and its re-runs) showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    /// Failed, and passed in a re-run.
    Flaky,
    Fail,
    /// The command ended in an error (a hang, a lost device, bad input) or could not start.
    Error,
    /// Interrupted or killed before it ended: what finished still counts, but no verdict.
    Incomplete,
}

impl Outcome {
    /// The outcome of `attempts` (the first the item's own run, the rest re-runs of it;
    /// `None` for one that never ended).
    pub fn of(attempts: &[Option<Exit>]) -> Outcome {
        match attempts.first().copied().flatten() {
            None => Outcome::Incomplete,
            Some(e) if e.passed() => Outcome::Pass,
            Some(e) if e.failed() => {
                match attempts[1..].iter().any(|a| a.is_some_and(Exit::passed)) {
                    true => Outcome::Flaky,
                    false => Outcome::Fail,
                }
            }
            Some(e) if e.interrupted() => Outcome::Incomplete,
            Some(_) => Outcome::Error,
        }
    }

    /// The outcome of several sessions of one item on one GPU: an error first, then a
    /// failure, a flake, a pass; incomplete only when nothing else is known.
    pub fn pool(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
        let rank = |o: &Outcome| match o {
            Outcome::Error => 0,
            Outcome::Fail => 1,
            Outcome::Flaky => 2,
            Outcome::Pass => 3,
            Outcome::Incomplete => 4,
        };
        outcomes
            .into_iter()
            .min_by_key(rank)
            .unwrap_or(Outcome::Incomplete)
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Flaky => "flaky",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
            Outcome::Incomplete => "incomplete",
        }
    }
}

/// What a baseline expects of an item on an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    Pass,
    Fail,
    /// Passes or fails.
    Flaky,
}

impl Expected {
    pub fn name(self) -> &'static str {
        match self {
            Expected::Pass => "pass",
            Expected::Fail => "fail",
            Expected::Flaky => "flaky",
        }
    }
}

/// An outcome held against its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Expected,
    /// Expected to pass, failed, then passed in a re-run: reported, not a regression.
    Flake,
    UnexpectedPass,
    UnexpectedFail,
    UnexpectedError,
    /// Cut short before a verdict.
    Incomplete,
}

impl Judgement {
    pub fn of(expected: Expected, outcome: Outcome) -> Judgement {
        match (expected, outcome) {
            (_, Outcome::Error) => Judgement::UnexpectedError,
            (_, Outcome::Incomplete) => Judgement::Incomplete,
            (Expected::Flaky, _) => Judgement::Expected,
            (Expected::Pass, Outcome::Pass) => Judgement::Expected,
            (Expected::Pass, Outcome::Flaky) => Judgement::Flake,
            (Expected::Pass, Outcome::Fail) => Judgement::UnexpectedFail,
            (Expected::Fail, Outcome::Pass) => Judgement::UnexpectedPass,
            (Expected::Fail, Outcome::Fail | Outcome::Flaky) => Judgement::Expected,
        }
    }

    /// Whether it makes `merge` (and a shard) exit 1.
    pub fn unexpected(self) -> bool {
        matches!(
            self,
            Judgement::UnexpectedPass | Judgement::UnexpectedFail | Judgement::UnexpectedError
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Judgement::Expected => "expected",
            Judgement::Flake => "flake",
            Judgement::UnexpectedPass => "unexpected pass",
            Judgement::UnexpectedFail => "unexpected fail",
            Judgement::UnexpectedError => "unexpected error",
            Judgement::Incomplete => "incomplete",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_that_passes_on_a_rerun_is_a_flake() {
        let (pass, fail) = (Some(Exit::Status(0)), Some(Exit::Status(1)));
        assert_eq!(Outcome::of(&[pass]), Outcome::Pass);
        assert_eq!(Outcome::of(&[fail, fail, fail]), Outcome::Fail);
        assert_eq!(Outcome::of(&[fail, fail, pass]), Outcome::Flaky);
        assert_eq!(Outcome::of(&[Some(Exit::Status(2))]), Outcome::Error);
        assert_eq!(Outcome::of(&[None]), Outcome::Incomplete);
        assert_eq!(Outcome::of(&[Some(Exit::Signal(11))]), Outcome::Error);
        assert_eq!(Outcome::of(&[Some(Exit::Signal(9))]), Outcome::Incomplete);
        assert_eq!(Outcome::of(&[Some(Exit::Signal(15))]), Outcome::Incomplete);
    }

    #[test]
    fn only_unexpected_passes_failures_and_errors_count() {
        use Expected as E;
        use Outcome as O;
        assert!(!Judgement::of(E::Fail, O::Fail).unexpected());
        assert!(!Judgement::of(E::Flaky, O::Pass).unexpected());
        assert!(!Judgement::of(E::Flaky, O::Fail).unexpected());
        assert_eq!(Judgement::of(E::Pass, O::Flaky), Judgement::Flake);
        assert!(Judgement::of(E::Fail, O::Pass).unexpected());
        assert!(Judgement::of(E::Pass, O::Fail).unexpected());
        assert!(Judgement::of(E::Flaky, O::Error).unexpected());
        assert!(!Judgement::of(E::Pass, O::Incomplete).unexpected());
        assert_eq!(O::pool([O::Pass, O::Flaky, O::Incomplete]), O::Flaky);
        assert_eq!(O::pool([O::Incomplete]), O::Incomplete);
    }
}
