//! What an item's attempts add up to, what a baseline expects of it, and how the two
//! compare, as Mesa's deqp-runner does for conformance suites: a failure that passes when
//! re-run is a flake, not a regression.

use crate::shard_log::Exit;
use serde::{Deserialize, Serialize};

/// What one session of an item (its run, and its re-runs) showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionOutcome {
    Pass,
    /// Failed, and passed in a re-run.
    Flaky,
    Fail,
    /// The command ended in an error (a hang, a lost device, bad input) or could not start.
    Error,
    /// Interrupted or killed before it ended: what finished still counts, but no verdict.
    Incomplete,
}

impl SessionOutcome {
    /// The outcome of `attempts` (the first the item's own run, the rest re-runs of it;
    /// `None` for one that never ended).
    pub(crate) fn of(attempts: &[Option<Exit>]) -> SessionOutcome {
        match attempts.first().copied().flatten() {
            None => SessionOutcome::Incomplete,
            Some(e) if e.passed() => SessionOutcome::Pass,
            Some(e) if e.failed() => {
                match attempts[1..].iter().any(|a| a.is_some_and(Exit::passed)) {
                    true => SessionOutcome::Flaky,
                    false => SessionOutcome::Fail,
                }
            }
            Some(e) if e.interrupted() => SessionOutcome::Incomplete,
            Some(_) => SessionOutcome::Error,
        }
    }

    /// The outcome of several sessions of one item on one GPU: an error first, then a
    /// failure, a flake, a pass; incomplete only when nothing else is known.
    pub(crate) fn pool(outcomes: impl IntoIterator<Item = SessionOutcome>) -> SessionOutcome {
        let rank = |o: &SessionOutcome| match o {
            SessionOutcome::Error => 0,
            SessionOutcome::Fail => 1,
            SessionOutcome::Flaky => 2,
            SessionOutcome::Pass => 3,
            SessionOutcome::Incomplete => 4,
        };
        outcomes
            .into_iter()
            .min_by_key(rank)
            .unwrap_or(SessionOutcome::Incomplete)
    }

    pub fn name(self) -> &'static str {
        match self {
            SessionOutcome::Pass => "pass",
            SessionOutcome::Flaky => "flaky",
            SessionOutcome::Fail => "fail",
            SessionOutcome::Error => "error",
            SessionOutcome::Incomplete => "incomplete",
        }
    }
}

/// What a baseline expects of an item on an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedOutcome {
    Pass,
    Fail,
    /// Passes or fails.
    Flaky,
}

impl ExpectedOutcome {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ExpectedOutcome::Pass => "pass",
            ExpectedOutcome::Fail => "fail",
            ExpectedOutcome::Flaky => "flaky",
        }
    }
}

/// An outcome held against its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineJudgement {
    Expected,
    /// Expected to pass, failed, then passed in a re-run: reported, not a regression.
    Flake,
    UnexpectedPass,
    UnexpectedFail,
    UnexpectedError,
    /// Cut short before a verdict.
    Incomplete,
}

impl BaselineJudgement {
    pub fn of(expected: ExpectedOutcome, outcome: SessionOutcome) -> BaselineJudgement {
        match (expected, outcome) {
            (_, SessionOutcome::Error) => BaselineJudgement::UnexpectedError,
            (_, SessionOutcome::Incomplete) => BaselineJudgement::Incomplete,
            (ExpectedOutcome::Flaky, _) => BaselineJudgement::Expected,
            (ExpectedOutcome::Pass, SessionOutcome::Pass) => BaselineJudgement::Expected,
            (ExpectedOutcome::Pass, SessionOutcome::Flaky) => BaselineJudgement::Flake,
            (ExpectedOutcome::Pass, SessionOutcome::Fail) => BaselineJudgement::UnexpectedFail,
            (ExpectedOutcome::Fail, SessionOutcome::Pass) => BaselineJudgement::UnexpectedPass,
            (ExpectedOutcome::Fail, SessionOutcome::Fail | SessionOutcome::Flaky) => {
                BaselineJudgement::Expected
            }
        }
    }

    /// Whether it makes `merge` (and a shard) exit 1.
    pub fn unexpected(self) -> bool {
        matches!(
            self,
            BaselineJudgement::UnexpectedPass
                | BaselineJudgement::UnexpectedFail
                | BaselineJudgement::UnexpectedError
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            BaselineJudgement::Expected => "expected",
            BaselineJudgement::Flake => "flake",
            BaselineJudgement::UnexpectedPass => "unexpected pass",
            BaselineJudgement::UnexpectedFail => "unexpected fail",
            BaselineJudgement::UnexpectedError => "unexpected error",
            BaselineJudgement::Incomplete => "incomplete",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_that_passes_on_a_rerun_is_a_flake() {
        let (pass, fail) = (Some(Exit::Status(0)), Some(Exit::Status(1)));
        assert_eq!(SessionOutcome::of(&[pass]), SessionOutcome::Pass);
        assert_eq!(
            SessionOutcome::of(&[fail, fail, fail]),
            SessionOutcome::Fail
        );
        assert_eq!(
            SessionOutcome::of(&[fail, fail, pass]),
            SessionOutcome::Flaky
        );
        assert_eq!(
            SessionOutcome::of(&[Some(Exit::Status(2))]),
            SessionOutcome::Error
        );
        assert_eq!(SessionOutcome::of(&[None]), SessionOutcome::Incomplete);
        assert_eq!(
            SessionOutcome::of(&[Some(Exit::Signal(11))]),
            SessionOutcome::Error
        );
        assert_eq!(
            SessionOutcome::of(&[Some(Exit::Signal(9))]),
            SessionOutcome::Incomplete
        );
        assert_eq!(
            SessionOutcome::of(&[Some(Exit::Signal(15))]),
            SessionOutcome::Incomplete
        );
    }

    #[test]
    fn only_unexpected_passes_failures_and_errors_count() {
        use ExpectedOutcome as E;
        use SessionOutcome as O;
        assert!(!BaselineJudgement::of(E::Fail, O::Fail).unexpected());
        assert!(!BaselineJudgement::of(E::Flaky, O::Pass).unexpected());
        assert!(!BaselineJudgement::of(E::Flaky, O::Fail).unexpected());
        assert_eq!(
            BaselineJudgement::of(E::Pass, O::Flaky),
            BaselineJudgement::Flake
        );
        assert!(BaselineJudgement::of(E::Fail, O::Pass).unexpected());
        assert!(BaselineJudgement::of(E::Pass, O::Fail).unexpected());
        assert!(BaselineJudgement::of(E::Flaky, O::Error).unexpected());
        assert!(!BaselineJudgement::of(E::Pass, O::Incomplete).unexpected());
        assert_eq!(O::pool([O::Pass, O::Flaky, O::Incomplete]), O::Flaky);
        assert_eq!(O::pool([O::Incomplete]), O::Incomplete);
    }
}
