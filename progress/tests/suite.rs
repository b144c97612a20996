//! The generated suite at the seed's bounds: the seed's examples that fit are in it, every
//! test meets the constraints the generator promises, and its Table 4.

use wgstress_progress::generate::{generate, qualifies, Bounds};
use wgstress_progress::model::{Fairness, Model};
use wgstress_progress::suite::{seed_examples, Table, Verdicts};

#[test]
fn the_suite_holds_the_seeds_examples_and_only_tests_that_need_fairness() {
    let suite = generate(&Bounds::seed());
    let verdicts: Vec<Verdicts> = suite.iter().map(|g| Verdicts::of(&g.test)).collect();
    for (name, example) in seed_examples() {
        // Up to the naming of locations: the suite keeps the smaller of a test and its swap.
        let canonical = example.clone().min(example.swap_locations());
        assert!(
            suite.iter().any(|g| g.test == canonical),
            "{name} is missing from the suite"
        );
        assert!(qualifies(&example), "{name}");
    }
    for (g, v) in suite.iter().zip(&verdicts) {
        assert!(!v.under(Model::Unfair, Fairness::Weak), "{}", g.name);
        assert!(v.under(Model::Fair, Fairness::Strong), "{}", g.name);
        assert!(g.test <= g.test.swap_locations(), "{}", g.name);
        // Running threads one at a time in id order is a schedule LOBE allows (the running
        // thread is the only one that has stepped and not terminated, all lower ones have).
        if v.under(Model::Lobe, Fairness::Strong) {
            assert_eq!(
                wgstress_progress::sequential::first_stuck(&g.test),
                None,
                "{}",
                g.name
            );
        }
    }
    let mut names: Vec<&str> = suite.iter().map(|g| g.name.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), suite.len());
    let table = Table::of(&verdicts);
    assert_eq!(table.other, 0);
    assert_eq!(table.weak_tests + table.strong_tests, suite.len());
    eprintln!("{} tests: {table:#?}", suite.len());
    for (threads, instructions) in Bounds::seed().configurations() {
        let n = suite
            .iter()
            .filter(|g| g.threads == threads && g.instructions == instructions)
            .count();
        eprintln!("{threads} threads, {instructions} instructions: {n}");
    }
}

#[test]
fn a_test_that_only_one_thread_touches_is_not_generated() {
    // Thread 1 spins on a location thread 0 never writes: no influence, and no way out.
    let lonely = wgstress_progress::AxbTest::parse(
        "THREAD0\natomic_store(0, 1)\nTHREAD1\natomic_chk_branch(1, 0, 0)\n",
    )
    .unwrap();
    assert!(!qualifies(&lonely));
    // The producer-consumer with a store that nobody reads added: the seed's redundant t'.
    let dead = wgstress_progress::AxbTest::parse(
        "THREAD0\natomic_chk_branch(0, 0, 0)\nTHREAD1\natomic_store(0, 1)\natomic_store(1, 1)\n",
    )
    .unwrap();
    assert!(!qualifies(&dead));
}
