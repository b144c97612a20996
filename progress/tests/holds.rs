//! The starving holds (`hold`) against the oracle over the whole suite at the seed's bounds: a
//! hold of one workgroup starves a test only under a model that the oracle says does not
//! guarantee its termination. Two computations of one question, one over the transition
//! system's cycles, one over what the others do with a thread frozen.

use wgstress_progress::generate::{generate, Bounds};
use wgstress_progress::oracle::TerminationOracle;
use wgstress_progress::{Fairness, Model, ProgressScheduler};

#[test]
fn a_hold_starves_a_test_only_where_the_oracle_says_the_model_may_not_end_it() {
    let suite = generate(&Bounds::seed());
    let mut wrong = Vec::new();
    for g in &suite {
        let oracle = TerminationOracle::new(&g.test);
        for model in Model::ALL {
            let guaranteed = oracle.terminates(ProgressScheduler {
                model,
                fairness: Fairness::Weak,
            });
            if guaranteed {
                if let Some(hold) = oracle.starving_hold(model) {
                    wrong.push(format!("{} under {}: {hold:?}", g.name, model.name()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
