//! The generated suite at the seed's bounds: the seed's examples that fit are in it, every
//! test meets the constraints the generator promises, and its Table 4.

use std::collections::HashSet;
use wgstress_progress::generate::{generate, qualifies, Bounds};
use wgstress_progress::model::{Fairness, Model};
use wgstress_progress::suite::{seed_examples, Table, Verdicts};
use wgstress_progress::{AxbTest, Instr};

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
    // The seed's counting gives every test to one model: the D columns add up to the split,
    // and full's C is all of it.
    let sum = |d: fn(&wgstress_progress::suite::ModelRow) -> usize| -> usize {
        table.rows.iter().map(d).sum()
    };
    assert_eq!(sum(|r| r.weak_distinguishing), table.weak_tests);
    assert_eq!(sum(|r| r.strong_distinguishing), table.strong_tests);
    let full = table.rows.last().unwrap();
    assert_eq!(full.model, Model::Fair);
    assert_eq!(
        (full.weak_conformance, full.strong_conformance),
        (table.weak_tests, table.strong_tests)
    );
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

/// A step of an execution: the memory and every pc before it, the thread, the memory after.
struct Step {
    before: [u8; 2],
    pcs: Vec<usize>,
    thread: usize,
    after: [u8; 2],
}

/// Every step of every execution of `test`, from an exploration of its own (memory and pcs,
/// the threads interleaved every way).
fn every_step(test: &AxbTest) -> Vec<Step> {
    let threads = test.threads();
    let start = ([0u8; 2], vec![0usize; threads.len()]);
    let mut seen = HashSet::from([start.clone()]);
    let mut todo = vec![start];
    let mut steps = Vec::new();
    while let Some((memory, pcs)) = todo.pop() {
        for (t, thread) in threads.iter().enumerate() {
            let Some(instr) = thread.get(pcs[t]) else {
                continue;
            };
            let mut after = memory;
            let (pc, _) = instr.step(pcs[t], thread.len(), &mut after);
            steps.push(Step {
                before: memory,
                pcs: pcs.clone(),
                thread: t,
                after,
            });
            let mut next = pcs.clone();
            next[t] = pc;
            if seen.insert((after, next.clone())) {
                todo.push((after, next));
            }
        }
    }
    steps
}

fn in_suite(suite: &[wgstress_progress::generate::Generated], test: &AxbTest) -> bool {
    let canonical = test.clone().min(test.swap_locations());
    suite.iter().any(|g| g.test == canonical)
}

#[test]
fn writes_that_never_change_another_threads_branch_are_allowed_as_the_seed_allows_them() {
    let suite = generate(&Bounds::seed());
    // A store that writes 0 over 0: thread 1 stores 0, then the 1 that thread 0 waits for.
    // Thread 0 branches on location 0, so the store can influence it (the seed's reading);
    // the 0 is there already in every execution.
    let zero_over_zero = AxbTest::parse(
        "THREAD0\natomic_chk_branch(0, 0, 0)\n\
         THREAD1\natomic_store(0, 0)\natomic_store(0, 1)\n",
    )
    .unwrap();
    assert_eq!(
        zero_over_zero.threads()[1][0],
        Instr::Store { loc: 0, value: 0 }
    );
    for step in every_step(&zero_over_zero) {
        if (step.thread, step.pcs[1]) == (1, 0) {
            assert_eq!((step.before[0], step.after[0]), (0, 0));
        }
    }
    // An exchange that writes only after the other thread has ended: thread 1 hands thread 0
    // a 1, waits until thread 0 has taken it (which ends thread 0), then exchanges 1 in until
    // it finds it there. Thread 0 branches on location 0 all along.
    let after_the_end = AxbTest::parse(
        "THREAD0\natomic_exch_branch(0, 0, 0, 0)\n\
         THREAD1\natomic_store(0, 1)\natomic_chk_branch(0, 1, 1)\natomic_exch_branch(0, 0, 1, 2)\n",
    )
    .unwrap();
    let mut exchanged = 0;
    for step in every_step(&after_the_end) {
        if (step.thread, step.pcs[1]) == (1, 2) {
            assert_eq!(step.pcs[0], 1, "thread 0 has ended");
            exchanged += 1;
        }
    }
    assert!(exchanged > 0);
    for (name, test) in [
        ("zero over zero", &zero_over_zero),
        ("after the end", &after_the_end),
    ] {
        assert!(qualifies(test), "{name}");
        assert!(in_suite(&suite, test), "{name} is missing from the suite");
    }
}

#[test]
fn the_suite_has_the_seeds_counts_where_its_search_found_them_all() {
    // The seed's run of 2 threads and 2 instructions completed (8 tests); its run of 2 threads
    // and 3 found 176 within a state bound that every such test meets. Its influence rule,
    // read per write as a location another thread branches on, gives both counts.
    let suite = generate(&Bounds::seed());
    let count = |threads: usize, instructions: usize| {
        suite
            .iter()
            .filter(|g| g.threads == threads && g.instructions == instructions)
            .count()
    };
    assert_eq!(count(2, 2), 8);
    assert_eq!(count(2, 3), 176);
}
