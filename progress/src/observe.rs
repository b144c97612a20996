//! What runs on a device say about its progress model: a model is conformed to when every
//! one of its conformance tests (the tests the oracle says it guarantees to terminate) that
//! ran terminated under every mapping; the strongest models consistent with the runs are the
//! conformed ones no other conformed model is above.

use crate::model::{Model, ProgressScheduler};
use crate::suite::Verdicts;
use crate::wgsl::Mapping;
use serde::Serialize;

/// A test's runs under one mapping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Observed {
    pub test: String,
    pub mapping: Mapping,
    pub instances: u32,
    pub iterations: u32,
    /// Iterations in which some instance did not terminate.
    pub hung_iterations: u32,
    /// Instances that did not terminate, over all iterations.
    pub hung_instances: u64,
    /// Per test thread, the instances in which it gave up at its loop bound, over all
    /// iterations: who starved.
    pub gave_up: Vec<u64>,
}

impl Observed {
    pub fn hung(&self) -> bool {
        self.hung_iterations > 0
    }
}

/// A test that did not terminate under a mapping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Hang {
    pub test: String,
    pub mapping: Mapping,
    pub hung_iterations: u32,
    pub iterations: u32,
}

/// One scheduler's conformance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Conformance {
    pub scheduler: ProgressScheduler,
    /// Its conformance tests among those run.
    pub tests: usize,
    /// Those that did not terminate, with their mapping.
    pub violations: Vec<Hang>,
}

impl Conformance {
    pub fn conformed(&self) -> bool {
        self.violations.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ConformanceJudgement {
    pub schedulers: Vec<Conformance>,
    /// Every test that did not terminate, with its mapping.
    pub hangs: Vec<Hang>,
    /// The conformed schedulers with no conformed scheduler above them, among those with a
    /// conformance test that ran (and the unfair model, which has none and which every
    /// device conforms to).
    pub strongest: Vec<ProgressScheduler>,
}

/// Judges `observed` runs of tests whose verdicts `verdicts` gives (by test name).
pub fn judge(verdicts: &[(String, Verdicts)], observed: &[Observed]) -> ConformanceJudgement {
    let hangs: Vec<Hang> = observed
        .iter()
        .filter(|o| o.hung())
        .map(|o| Hang {
            test: o.test.clone(),
            mapping: o.mapping,
            hung_iterations: o.hung_iterations,
            iterations: o.iterations,
        })
        .collect();
    let verdict = |name: &str| verdicts.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let ran: Vec<&(String, Verdicts)> = verdicts
        .iter()
        .filter(|(name, _)| observed.iter().any(|o| &o.test == name))
        .collect();
    let schedulers: Vec<Conformance> = ProgressScheduler::all()
        .into_iter()
        .map(|scheduler| Conformance {
            scheduler,
            tests: ran.iter().filter(|(_, v)| v.terminates(scheduler)).count(),
            violations: hangs
                .iter()
                .filter(|h| verdict(&h.test).is_some_and(|v| v.terminates(scheduler)))
                .cloned()
                .collect(),
        })
        .collect();
    let conformed: Vec<ProgressScheduler> = schedulers
        .iter()
        .filter(|c| c.conformed() && (c.tests > 0 || c.scheduler.model == Model::Unfair))
        .map(|c| c.scheduler)
        .collect();
    let strongest = conformed
        .iter()
        .filter(|&&s| !conformed.iter().any(|&o| o != s && s.at_most(o)))
        .copied()
        .collect();
    ConformanceJudgement {
        schedulers,
        hangs,
        strongest,
    }
}
