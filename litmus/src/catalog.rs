//! Every litmus test wgstress knows, by name: the classics, then the MC Mutants suite.

use crate::suite::suite;
use crate::test::{classics, Test};

/// Every test: the classics, then the MC Mutants suite (conformance tests and mutants).
pub fn all() -> Vec<Test> {
    let mut tests = classics();
    tests.extend(suite());
    tests
}

/// The test called `name`, in any case.
pub fn find(name: &str) -> Option<Test> {
    all()
        .into_iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_decode_what_they_encode() {
        for test in all() {
            for outcome in [0, test.outcome_count() - 1, test.outcome_count() / 3] {
                let (r, x, y) = test.decode(outcome);
                assert_eq!(test.encode(&r, x, y), outcome, "{}", test.name);
            }
        }
    }
}
