//! The oracle against the seed's stated verdicts (§2.3, §5.4-5.5, §6.1).

use wgstress_progress::model::{Fairness, Model, ProgressScheduler};
use wgstress_progress::oracle::TerminationOracle;
use wgstress_progress::suite::seed_examples;
use wgstress_progress::{AxbTest, BranchTarget, Instr};

fn example(name: &str) -> AxbTest {
    seed_examples()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1
}

fn terminates(test: &AxbTest, model: Model, fairness: Fairness) -> bool {
    TerminationOracle::new(test).terminates(ProgressScheduler { model, fairness })
}

#[test]
fn the_mutex_terminates_under_obe_not_under_hsa() {
    let mutex = example("mutex");
    for fairness in [Fairness::Weak, Fairness::Strong] {
        assert!(terminates(&mutex, Model::Obe, fairness));
        assert!(!terminates(&mutex, Model::Hsa, fairness));
        assert!(terminates(&mutex, Model::Lobe, fairness));
        assert!(terminates(&mutex, Model::Fair, fairness));
    }
    // The starving execution under HSA: thread 1 holds the mutex while thread 0, the only
    // thread HSA guarantees, spins.
    let verdict = TerminationOracle::new(&mutex).decide(ProgressScheduler {
        model: Model::Hsa,
        fairness: Fairness::Weak,
    });
    let evidence = verdict.evidence.unwrap();
    assert_eq!(evidence.fair, vec![0]);
    assert!(evidence.cycle.iter().all(|s| s.thread == 0));
    assert_eq!(evidence.cycle.last().unwrap().to.memory, [1, 0]);
    assert_eq!(evidence.cycle.last().unwrap().to.pcs, vec![0, 1]);
}

#[test]
fn producer_consumer_is_the_opposite_and_its_id_order_matters() {
    let increasing = example("prodcons-increasing");
    for fairness in [Fairness::Weak, Fairness::Strong] {
        assert!(terminates(&increasing, Model::Hsa, fairness));
        assert!(terminates(&increasing, Model::Fair, fairness));
        assert!(!terminates(&increasing, Model::Obe, fairness));
    }
    let decreasing = example("prodcons-decreasing");
    for fairness in [Fairness::Weak, Fairness::Strong] {
        assert!(!terminates(&decreasing, Model::Hsa, fairness));
        assert!(!terminates(&decreasing, Model::Lobe, fairness));
        assert!(!terminates(&decreasing, Model::Obe, fairness));
        assert!(terminates(&decreasing, Model::Fair, fairness));
    }
}

#[test]
fn dining_philosophers_needs_strong_fairness() {
    let dining = example("dining-philosophers");
    assert!(!terminates(&dining, Model::Fair, Fairness::Weak));
    assert!(terminates(&dining, Model::Fair, Fairness::Strong));
    // Listing 2 counts a state with F empty as a way out: under OBE thread 1 alone ends,
    // leaving F empty, and thread 0 then runs alone to its end (docs/progress.md: the seed's
    // Table 4 has no strong OBE test, this one is).
    assert!(!terminates(&dining, Model::Obe, Fairness::Weak));
    assert!(terminates(&dining, Model::Obe, Fairness::Strong));
    // The livelock: both threads keep stepping, neither gets out.
    let verdict = TerminationOracle::new(&dining).decide(ProgressScheduler {
        model: Model::Fair,
        fairness: Fairness::Weak,
    });
    let evidence = verdict.evidence.unwrap();
    assert_eq!(evidence.fair, vec![0, 1]);
    let mut threads: Vec<usize> = evidence.cycle.iter().map(|s| s.thread).collect();
    threads.sort();
    threads.dedup();
    assert_eq!(threads, vec![0, 1]);
}

#[test]
fn no_example_is_guaranteed_under_unfair_and_all_are_under_strong_fair() {
    for (name, test) in seed_examples() {
        let oracle = TerminationOracle::new(&test);
        for fairness in [Fairness::Weak, Fairness::Strong] {
            let unfair = oracle.decide(ProgressScheduler {
                model: Model::Unfair,
                fairness,
            });
            assert!(!unfair.terminates, "{name}");
            assert!(!unfair.evidence.unwrap().cycle.is_empty(), "{name}");
        }
        assert!(
            oracle.terminates(ProgressScheduler {
                model: Model::Fair,
                fairness: Fairness::Strong
            }),
            "{name}"
        );
    }
}

#[test]
fn a_test_without_a_cycle_terminates_under_every_scheduler() {
    let test =
        AxbTest::parse("THREAD0\natomic_store(0, 1)\nTHREAD1\natomic_chk_branch(0, 1, END)\n")
            .unwrap();
    let oracle = TerminationOracle::new(&test);
    for scheduler in ProgressScheduler::all() {
        assert!(oracle.terminates(scheduler), "{scheduler}");
        assert!(oracle.decide(scheduler).evidence.is_none());
    }
}

#[test]
fn every_evidence_is_an_execution_of_the_test_that_returns_to_where_its_cycle_began() {
    for (name, test) in seed_examples() {
        let oracle = TerminationOracle::new(&test);
        for verdict in oracle.verdicts() {
            let Some(evidence) = verdict.evidence else {
                continue;
            };
            // Replay it: every step executes the thread's instruction from the state before.
            let mut memory = evidence.start.memory;
            let mut pcs = evidence.start.pcs.clone();
            let steps: Vec<_> = evidence.prefix.iter().chain(&evidence.cycle).collect();
            let mut cycle_start = None;
            for (i, step) in steps.iter().enumerate() {
                if i == evidence.prefix.len() {
                    cycle_start = Some((memory, pcs.clone()));
                }
                let thread = &test.threads()[step.thread];
                assert_eq!(
                    pcs[step.thread], step.instruction,
                    "{name} {}",
                    verdict.scheduler
                );
                let (pc, _) =
                    thread[step.instruction].step(step.instruction, thread.len(), &mut memory);
                pcs[step.thread] = pc;
                assert_eq!((memory, pcs.clone()), (step.to.memory, step.to.pcs.clone()));
            }
            assert_eq!(
                cycle_start,
                Some((memory, pcs)),
                "{name} {}",
                verdict.scheduler
            );
            // Every thread the cycle must schedule steps in it (weak fairness's condition).
            if verdict.scheduler.fairness == Fairness::Weak {
                for t in &evidence.fair {
                    assert!(evidence.cycle.iter().any(|s| s.thread == *t), "{name}");
                }
            }
        }
    }
}

#[test]
fn a_device_that_hangs_the_decreasing_producer_consumer_conforms_to_hsa_and_obe_not_fair() {
    use wgstress_progress::observe::{judge, Observed};
    use wgstress_progress::suite::Verdicts;
    use wgstress_progress::wgsl::Mapping;
    let names = ["mutex", "prodcons-increasing", "prodcons-decreasing"];
    let verdicts: Vec<(String, Verdicts)> = names
        .iter()
        .map(|n| (n.to_string(), Verdicts::of(&example(n))))
        .collect();
    let observed: Vec<Observed> = names
        .iter()
        .map(|n| Observed {
            test: n.to_string(),
            mapping: Mapping::Chunked,
            instances: 64,
            iterations: 3,
            hung_iterations: u32::from(*n == "prodcons-decreasing") * 3,
            hung_instances: 0,
            gave_up: vec![0, 0],
        })
        .collect();
    let judgement = judge(&verdicts, &observed);
    assert_eq!(judgement.hangs.len(), 1);
    let conformed = |model, fairness| {
        judgement
            .schedulers
            .iter()
            .find(|c| c.scheduler == ProgressScheduler { model, fairness })
            .unwrap()
            .conformed()
    };
    for fairness in [Fairness::Weak, Fairness::Strong] {
        assert!(conformed(Model::Hsa, fairness));
        assert!(conformed(Model::Obe, fairness));
        assert!(conformed(Model::Lobe, fairness));
        assert!(!conformed(Model::Fair, fairness));
    }
    // LOBE (strong) is above HSA and OBE: it alone is the strongest consistent model.
    assert_eq!(
        judgement.strongest,
        vec![ProgressScheduler {
            model: Model::Lobe,
            fairness: Fairness::Strong
        }]
    );
}

/// Eight threads of 15 instructions, the most the language allows: each thread stores, checks
/// and spins on an exchange, on both locations, with jumps back.
fn eight_long_threads() -> Vec<Vec<Instr>> {
    (0..8u8)
        .map(|t| {
            (0..15u8)
                .map(|i| {
                    let loc = (t + i) % 2;
                    match i % 3 {
                        0 => Instr::Store {
                            loc,
                            value: i / 3 % 2,
                        },
                        1 => Instr::Chk {
                            loc,
                            check: 1,
                            target: BranchTarget::Inst(i + 1),
                        },
                        _ => Instr::Exch {
                            loc,
                            check: 0,
                            exch: 1,
                            target: BranchTarget::Inst(i - 2),
                        },
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_test_that_reaches_more_states_than_the_oracle_explores_is_refused_naming_the_cap() {
    use wgstress_progress::MAX_STATES;
    let threads = eight_long_threads();
    let mut text = String::new();
    for (t, thread) in threads.iter().enumerate() {
        text.push_str(&format!("THREAD{t}\n"));
        for instr in thread {
            text.push_str(&format!("{instr}\n"));
        }
    }
    let error = AxbTest::parse(&text).unwrap_err();
    assert_eq!((error.line, error.column), (1, 1));
    let cap = format!("more than {MAX_STATES} states");
    assert!(error.message.contains(&cap), "{error}");
    // The same through the constructor and through JSON: no test the oracle cannot decide is
    // made.
    let made = AxbTest::new(threads.clone()).unwrap_err();
    assert!(made.contains(&cap), "{made}");
    let json = serde_json::json!({ "threads": threads });
    let read = serde_json::from_value::<AxbTest>(json).unwrap_err();
    assert!(read.to_string().contains(&cap), "{read}");
}

#[test]
fn a_test_of_eight_long_threads_within_the_cap_is_answered() {
    // Thread 0 runs 15 stores; the other seven spin at their start on location 1, which
    // nobody sets: few states, and no thread but 0 ever gets past its first instruction.
    let mut text = String::from("THREAD0\n");
    text.push_str(&"atomic_store(0, 1)\n".repeat(15));
    for t in 1..8 {
        text.push_str(&format!("THREAD{t}\n"));
        text.push_str(&"atomic_chk_branch(1, 0, 0)\n".repeat(15));
    }
    let test = AxbTest::parse(&text).unwrap();
    let oracle = TerminationOracle::new(&test);
    for verdict in oracle.verdicts() {
        assert!(!verdict.terminates, "{}", verdict.scheduler);
        let evidence = verdict.evidence.unwrap();
        assert!(evidence
            .cycle
            .iter()
            .all(|s| s.thread != 0 && s.instruction == 0));
    }
}
