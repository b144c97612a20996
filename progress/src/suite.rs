//! The suite's verdicts and how they count: every test's verdict under every scheduler, and
//! the seed's Table 4 (distinguishing and conformance tests per model, for the tests that
//! terminate under weak fairness and for those that need strong fairness). Also the seed's
//! example tests (its Figures 2, 3, 8 and 9), written in the text format.

use crate::axb::AxbTest;
use crate::model::{Fairness, Model, ProgressScheduler};
use crate::oracle::TerminationOracle;
use serde::Serialize;

/// Whether a test terminates under each scheduler, in `ProgressScheduler::all`'s order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Verdicts(Vec<bool>);

impl Verdicts {
    pub fn of(test: &AxbTest) -> Verdicts {
        let oracle = TerminationOracle::new(test);
        Verdicts(
            ProgressScheduler::all()
                .into_iter()
                .map(|s| oracle.terminates(s))
                .collect(),
        )
    }

    pub fn terminates(&self, scheduler: ProgressScheduler) -> bool {
        let index = ProgressScheduler::all()
            .iter()
            .position(|s| {
                *s == scheduler || (s.model == Model::Unfair && scheduler.model == Model::Unfair)
            })
            .expect("every scheduler is listed");
        self.0[index]
    }

    pub fn under(&self, model: Model, fairness: Fairness) -> bool {
        self.terminates(ProgressScheduler { model, fairness })
    }
}

/// A row of Table 4: a model's distinguishing and conformance tests, among the weak tests
/// (those that terminate under weak fairness) under its weak variant and among the strong
/// tests (those that need strong fairness) under its strong variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ModelRow {
    pub model: Model,
    pub weak_distinguishing: usize,
    pub weak_conformance: usize,
    pub strong_distinguishing: usize,
    pub strong_conformance: usize,
}

/// Table 4, with the suite's split into weak and strong tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Table {
    pub tests: usize,
    pub weak_tests: usize,
    pub strong_tests: usize,
    /// Tests that terminate under neither fairness (none, by the constraints).
    pub other: usize,
    /// HSA, OBE, LOBE and full as the seed's; HSA+OBE, which the seed leaves out, after them
    /// (distinguishing against HSA and OBE).
    pub rows: Vec<ModelRow>,
}

impl Table {
    pub fn of(verdicts: &[Verdicts]) -> Table {
        let weak: Vec<&Verdicts> = verdicts
            .iter()
            .filter(|v| v.under(Model::Fair, Fairness::Weak))
            .collect();
        let strong: Vec<&Verdicts> = verdicts
            .iter()
            .filter(|v| {
                !v.under(Model::Fair, Fairness::Weak) && v.under(Model::Fair, Fairness::Strong)
            })
            .collect();
        // A model's tests and the models it must beat to distinguish.
        let below: [(Model, &[Model]); 5] = [
            (Model::Hsa, &[]),
            (Model::Obe, &[]),
            (Model::Lobe, &[Model::Hsa, Model::Obe]),
            (Model::Fair, &[Model::Lobe]),
            (Model::HsaObe, &[Model::Hsa, Model::Obe]),
        ];
        let count = |tests: &[&Verdicts], fairness: Fairness, model: Model, lower: &[Model]| {
            let conformance = tests.iter().filter(|v| v.under(model, fairness));
            let c = conformance.clone().count();
            let d = conformance
                .filter(|v| !lower.iter().any(|&m| v.under(m, fairness)))
                .count();
            (d, c)
        };
        let rows = below
            .iter()
            .map(|&(model, lower)| {
                let (wd, wc) = count(&weak, Fairness::Weak, model, lower);
                let (sd, sc) = count(&strong, Fairness::Strong, model, lower);
                ModelRow {
                    model,
                    weak_distinguishing: wd,
                    weak_conformance: wc,
                    strong_distinguishing: sd,
                    strong_conformance: sc,
                }
            })
            .collect();
        Table {
            tests: verdicts.len(),
            weak_tests: weak.len(),
            strong_tests: strong.len(),
            other: verdicts.len() - weak.len() - strong.len(),
            rows,
        }
    }
}

/// The seed's Table 4: (model, weak D, weak C, strong D, strong C), of its 483 tests.
pub const SEED_TABLE_4: [(Model, usize, usize, usize, usize); 4] = [
    (Model::Hsa, 90, 90, 94, 94),
    (Model::Obe, 12, 12, 0, 0),
    (Model::Lobe, 20, 122, 16, 110),
    (Model::Fair, 201, 323, 50, 160),
];

/// The seed's example tests, by name: Figure 2's mutex, Figure 3's and 8's one-way
/// producer-consumer (increasing and decreasing id), Figure 8's bidirectional
/// producer-consumer, simplified mutex and simplified dining philosophers, Figure 9's second
/// bidirectional producer-consumer.
pub fn seed_examples() -> Vec<(&'static str, AxbTest)> {
    let tests = [
        (
            "mutex",
            "THREAD0\natomic_exch_branch(0, 1, 1, 0)\natomic_store(0, 0)\n\
             THREAD1\natomic_exch_branch(0, 1, 1, 0)\natomic_store(0, 0)\n",
        ),
        (
            "prodcons-increasing",
            "THREAD0\natomic_store(0, 1)\nTHREAD1\natomic_chk_branch(0, 0, 0)\n",
        ),
        (
            "prodcons-decreasing",
            "THREAD0\natomic_chk_branch(0, 0, 0)\nTHREAD1\natomic_store(0, 1)\n",
        ),
        (
            "prodcons-bidirectional",
            "THREAD0\natomic_store(0, 1)\natomic_chk_branch(0, 1, 1)\n\
             THREAD1\natomic_chk_branch(0, 0, 0)\natomic_store(0, 0)\n",
        ),
        (
            "prodcons-bidirectional-2",
            "THREAD0\natomic_chk_branch(0, 0, 0)\natomic_store(0, 0)\n\
             THREAD1\natomic_store(0, 1)\natomic_chk_branch(0, 1, 1)\n",
        ),
        (
            "simplified-mutex",
            "THREAD0\natomic_chk_branch(0, 1, 0)\nTHREAD1\natomic_store(0, 1)\natomic_store(0, 0)\n",
        ),
        (
            "dining-philosophers",
            "THREAD0\natomic_exch_branch(0, 1, 0, 0)\nTHREAD1\natomic_exch_branch(0, 0, 1, 0)\n",
        ),
    ];
    tests
        .into_iter()
        .map(|(name, text)| {
            (
                name,
                AxbTest::parse(text).expect("the seed's examples parse"),
            )
        })
        .collect()
}
