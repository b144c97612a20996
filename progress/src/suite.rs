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

/// A row of Table 4: a model's distinguishing (D) and conformance (C) tests, among the weak
/// tests (those that terminate under weak fairness) under its weak variant and among the strong
/// tests (those that need strong fairness) under its strong variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ModelRow {
    pub model: Model,
    pub weak_distinguishing: usize,
    pub weak_conformance: usize,
    pub strong_distinguishing: usize,
    pub strong_conformance: usize,
}

/// Table 4, counted two ways, with the suite's split into weak and strong tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Table {
    pub tests: usize,
    pub weak_tests: usize,
    pub strong_tests: usize,
    /// Tests that terminate under neither fairness (none, by the constraints).
    pub other: usize,
    /// HSA, OBE, LOBE and full, counted as the seed's Table 4 is (its numbers add up only this
    /// way: its LOBE C is its HSA, OBE and LOBE D together, its OBE C its OBE D): each test goes to the first of HSA, OBE and LOBE that guarantees its termination,
    /// else to full, and that model's D counts it; a model's C is its D and the D of the models
    /// below it (HSA and OBE below LOBE, all three below full). So a test that HSA and OBE both
    /// guarantee is HSA's alone, and OBE's C is only the tests HSA does not guarantee.
    pub rows: Vec<ModelRow>,
    /// Each model's own counts, by the seed's definitions (§5.6) applied to each model: C every
    /// test the model guarantees, D those of them that none of the models below it guarantees
    /// (HSA and OBE: unfair; LOBE: HSA and OBE; full: LOBE; HSA+OBE, which the seed leaves
    /// out: HSA and OBE). These are not what the seed's table counts.
    pub per_model: Vec<ModelRow>,
}

/// The models of Table 4 in the seed's order; the seed's counting gives each test to the
/// first of the first three that guarantees it.
const SEED_ORDER: [Model; 4] = [Model::Hsa, Model::Obe, Model::Lobe, Model::Fair];

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
        // The seed's counting: per model, the tests it is the first to guarantee (D), and
        // with them those of the models below it (C).
        let first = |tests: &[&Verdicts], fairness: Fairness| -> [(usize, usize); 4] {
            let mut d = [0usize; SEED_ORDER.len()];
            for v in tests {
                // Full, last, takes the tests none of the others guarantees: every test of
                // the split terminates under full of its fairness.
                let at = SEED_ORDER[..SEED_ORDER.len() - 1]
                    .iter()
                    .position(|&m| v.under(m, fairness))
                    .unwrap_or(SEED_ORDER.len() - 1);
                d[at] += 1;
            }
            std::array::from_fn(|i| {
                let c = (0..SEED_ORDER.len())
                    .filter(|&j| SEED_ORDER[j].at_most(SEED_ORDER[i]))
                    .map(|j| d[j])
                    .sum();
                (d[i], c)
            })
        };
        let weak_first = first(&weak, Fairness::Weak);
        let strong_first = first(&strong, Fairness::Strong);
        let rows = SEED_ORDER
            .iter()
            .enumerate()
            .map(|(i, &model)| ModelRow {
                model,
                weak_distinguishing: weak_first[i].0,
                weak_conformance: weak_first[i].1,
                strong_distinguishing: strong_first[i].0,
                strong_conformance: strong_first[i].1,
            })
            .collect();
        // Each model's own: the models it must beat to distinguish.
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
        let per_model = below
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
            per_model,
        }
    }
}

/// The seed's Table 4, of its 483 tests (323 weak, 160 strong), counted as `Table::rows` is.
pub const SEED_TABLE_4: [ModelRow; 4] = [
    seed_row(Model::Hsa, 90, 90, 94, 94),
    seed_row(Model::Obe, 12, 12, 0, 0),
    seed_row(Model::Lobe, 20, 122, 16, 110),
    seed_row(Model::Fair, 201, 323, 50, 160),
];

const fn seed_row(model: Model, wd: usize, wc: usize, sd: usize, sc: usize) -> ModelRow {
    ModelRow {
        model,
        weak_distinguishing: wd,
        weak_conformance: wc,
        strong_distinguishing: sd,
        strong_conformance: sc,
    }
}

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

#[cfg(test)]
mod tests {
    use super::{ModelRow, Table, Verdicts};
    use crate::model::{Fairness, Model, ProgressScheduler};

    /// Verdicts that terminate under the weak variants of `weak` and the strong of `strong`.
    fn verdicts(weak: &[Model], strong: &[Model]) -> Verdicts {
        Verdicts(
            ProgressScheduler::all()
                .iter()
                .map(|s| match s.fairness {
                    Fairness::Weak => weak.contains(&s.model),
                    Fairness::Strong => strong.contains(&s.model),
                })
                .collect(),
        )
    }

    fn row(table: &[ModelRow], model: Model) -> [usize; 4] {
        let r = table.iter().find(|r| r.model == model).unwrap();
        [
            r.weak_distinguishing,
            r.weak_conformance,
            r.strong_distinguishing,
            r.strong_conformance,
        ]
    }

    #[test]
    fn the_seeds_counting_gives_each_test_to_the_first_of_hsa_obe_and_lobe_that_ends_it() {
        use Model::{Fair, Hsa, HsaObe, Lobe, Obe};
        let all = [Hsa, Obe, HsaObe, Lobe, Fair];
        let table = Table::of(&[
            // Weak tests: one that HSA and OBE both end, one OBE alone, one LOBE, one full.
            verdicts(&all, &all),
            verdicts(&[Obe, HsaObe, Lobe, Fair], &[Obe, HsaObe, Lobe, Fair]),
            verdicts(&[Lobe, Fair], &[Lobe, Fair]),
            verdicts(&[Fair], &[Fair]),
            // A strong test that strong HSA and OBE both end.
            verdicts(&[], &all),
        ]);
        assert_eq!((table.weak_tests, table.strong_tests), (4, 1));
        assert_eq!(row(&table.rows, Hsa), [1, 1, 1, 1]);
        assert_eq!(row(&table.rows, Obe), [1, 1, 0, 0]);
        assert_eq!(row(&table.rows, Lobe), [1, 3, 0, 1]);
        assert_eq!(row(&table.rows, Fair), [1, 4, 0, 1]);
        // Per model, OBE's own: both tests it ends, against unfair.
        assert_eq!(row(&table.per_model, Obe), [2, 2, 1, 1]);
        assert_eq!(row(&table.per_model, Lobe), [1, 3, 0, 1]);
        assert_eq!(row(&table.per_model, HsaObe), [0, 2, 0, 1]);
    }
}
