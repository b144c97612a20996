//! The MC Mutants test suite: conformance tests instantiated from the paper's three
//! happens-before templates (its Fig. 3) and the mutants its three edge disruptors make of
//! them. Table 2 of the paper: 8 + 6 + 6 = 20 conformance tests, 8 + 6 + 18 = 32 mutants.

use super::test::{Event, Loc, Op, Test};
use wgstress_model::litmus::kind::{Kind, Mutator};

/// An abstract memory event of a template, concretised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Access {
    Read,
    Write,
    /// A read-modify-write (atomicExchange).
    Rmw,
}

use Access::{Read, Rmw, Write};

/// A test under construction: operations carry the template's event labels, so that the
/// mutators can move them and the cycle still names the right events.
#[derive(Clone)]
struct Draft {
    threads: Vec<Vec<(char, Op)>>,
    cycle: Vec<(char, char)>,
}

impl Draft {
    /// Threads of (label, access, location) or fences ('|'); values and registers are
    /// numbered in order, writes with unique increasing values as in the paper.
    fn new(threads: &[&[(char, Option<Access>, Loc)]], cycle: &[(char, char)]) -> Draft {
        let (mut value, mut register) = (0, 0);
        let mut built: Vec<Vec<(char, Op)>> = threads
            .iter()
            .map(|thread| {
                thread
                    .iter()
                    .map(|&(label, access, loc)| {
                        let op = match access {
                            None => Op::Fence,
                            Some(Read) => {
                                register += 1;
                                Op::Load(loc, register - 1)
                            }
                            Some(Write) => {
                                value += 1;
                                Op::Store(loc, value)
                            }
                            Some(Rmw) => {
                                value += 1;
                                register += 1;
                                Op::Exchange(loc, value, register - 1)
                            }
                        };
                        (label, op)
                    })
                    .collect()
            })
            .collect();
        // Only plain writes: co is then visible only to an observer reading x twice.
        let all_writes = built
            .iter()
            .flatten()
            .all(|(_, op)| matches!(op, Op::Store(..) | Op::Fence));
        if all_writes {
            built.push(vec![
                ('o', Op::Load(Loc::X, register)),
                ('p', Op::Load(Loc::X, register + 1)),
            ]);
        }
        Draft {
            threads: built,
            cycle: cycle.to_vec(),
        }
    }

    fn event(&self, label: char) -> Event {
        for (t, thread) in self.threads.iter().enumerate() {
            if let Some(i) = thread.iter().position(|(l, _)| *l == label) {
                return (t, i);
            }
        }
        panic!("no event {label}")
    }

    fn test(&self, name: String, kind: Kind, weak: &str) -> Test {
        Test {
            name,
            kind,
            threads: self
                .threads
                .iter()
                .map(|t| t.iter().map(|(_, op)| *op).collect())
                .collect(),
            weak: weak.into(),
            cycle: self
                .cycle
                .iter()
                .map(|(a, b)| (self.event(*a), self.event(*b)))
                .collect(),
        }
    }

    /// Mutator 1's disruptor: swap the two events of thread 0.
    fn reversed(&self) -> Draft {
        let mut d = self.clone();
        d.threads[0].swap(0, 1);
        d
    }

    /// Mutator 2's disruptor: events b and c move to location y.
    fn relocated(&self) -> Draft {
        let mut d = self.clone();
        for (label, op) in d.threads.iter_mut().flatten() {
            if *label == 'b' || *label == 'c' {
                *op = match *op {
                    Op::Store(_, v) => Op::Store(Loc::Y, v),
                    Op::Load(_, r) => Op::Load(Loc::Y, r),
                    Op::Exchange(_, v, r) => Op::Exchange(Loc::Y, v, r),
                    Op::Fence => Op::Fence,
                };
            }
        }
        d
    }

    /// Mutator 3's disruptor: drop the fence of the given threads.
    fn unfenced(&self, threads: &[usize]) -> Draft {
        let mut d = self.clone();
        for &t in threads {
            d.threads[t].retain(|(_, op)| *op != Op::Fence);
        }
        d
    }
}

fn code(access: Access) -> char {
    match access {
        Read => 'r',
        Write => 'w',
        Rmw => 'x',
    }
}

/// Mutator 1 (Fig. 3a): thread 0 runs a then b on x, thread 1 runs c on x; the cycle
/// b -com-> c -com-> a closes with a -po-loc-> b. c must write. The RMW variant replaces b
/// and c (the events whose trailing or leading part keeps the cycle) by exchanges.
fn reversing_po_loc() -> Vec<Test> {
    let weak = "b -com-> c -com-> a, with a before b in one thread";
    let mut tests = Vec::new();
    for rmw in [false, true] {
        for a in [Read, Write] {
            for b in [Read, Write] {
                let (b_, c_) = if rmw { (Rmw, Rmw) } else { (b, Write) };
                let x = Loc::X;
                let draft = Draft::new(
                    &[
                        &[('a', Some(a), x), ('b', Some(b_), x)],
                        &[('c', Some(c_), x)],
                    ],
                    &[('b', 'c'), ('c', 'a')],
                );
                let name = format!("co{}{}{}", code(a), code(b), if rmw { "-rmw" } else { "" });
                let m = Mutator::ReversingPoLoc;
                tests.push(draft.test(format!("conf-{name}"), Kind::Conformance(m), weak));
                tests.push(
                    draft
                        .reversed()
                        .test(format!("mut-{name}"), Kind::Mutant(m), weak),
                );
            }
        }
    }
    tests
}

/// The six four-event shapes (a b | c d) with a write on each communication edge (b-c and
/// d-a), one of each pair that swapping the threads maps onto each other.
fn four_event_shapes() -> Vec<[Access; 4]> {
    let mut shapes: Vec<[Access; 4]> = Vec::new();
    for bits in 0..16u32 {
        let s: Vec<Access> = (0..4)
            .map(|i| {
                if bits >> (3 - i) & 1 == 1 {
                    Read
                } else {
                    Write
                }
            })
            .collect();
        let shape = [s[0], s[1], s[2], s[3]];
        let writes_on_edges =
            (shape[1] == Write || shape[2] == Write) && (shape[3] == Write || shape[0] == Write);
        let swapped = [shape[2], shape[3], shape[0], shape[1]];
        if writes_on_edges && !shapes.contains(&swapped) {
            shapes.push(shape);
        }
    }
    shapes
}

/// The textbook name of a shape once b and c are on y.
fn shape_name(shape: [Access; 4]) -> &'static str {
    match shape {
        [Write, Write, Write, Write] => "2+2w",
        [Write, Write, Write, Read] => "r",
        [Write, Write, Read, Write] => "s",
        [Write, Write, Read, Read] => "mp",
        [Write, Read, Write, Read] => "sb",
        [Read, Write, Read, Write] => "lb",
        _ => unreachable!("four_event_shapes makes only these"),
    }
}

/// Mutator 2 (Fig. 3b): a b | c d all on x, cycle b -com-> c, d -com-> a, closed by po-loc
/// in both threads; the mutant moves b and c to y, weakening po-loc to po.
fn weakening_po_loc() -> Vec<Test> {
    let weak = "b -com-> c and d -com-> a, with a before b and c before d";
    let m = Mutator::WeakeningPoLoc;
    four_event_shapes()
        .into_iter()
        .flat_map(|s| {
            let x = Loc::X;
            let draft = Draft::new(
                &[
                    &[('a', Some(s[0]), x), ('b', Some(s[1]), x)],
                    &[('c', Some(s[2]), x), ('d', Some(s[3]), x)],
                ],
                &[('b', 'c'), ('d', 'a')],
            );
            let name = shape_name(s);
            [
                draft.test(format!("conf-{name}-co"), Kind::Conformance(m), weak),
                draft
                    .relocated()
                    .test(format!("mut-{name}"), Kind::Mutant(m), weak),
            ]
        })
        .collect()
}

/// Mutator 3 (Fig. 3c): a(x) fence b(y) | c(y) fence d(x); b -rf-> c makes the fences
/// synchronise, so a happens before d, and d -com-> a closes the cycle. b must write and c
/// read, so shapes where they do not become exchanges. Each conformance test has three
/// mutants: without thread 0's fence, without thread 1's, without both.
fn weakening_sw() -> Vec<Test> {
    let weak = "b -rf-> c and d -com-> a across fences in both threads";
    let m = Mutator::WeakeningSw;
    let mut tests = Vec::new();
    for s in four_event_shapes() {
        let b = if s[1] == Read { Rmw } else { s[1] };
        let c = if s[2] == Write { Rmw } else { s[2] };
        let (x, y) = (Loc::X, Loc::Y);
        let draft = Draft::new(
            &[
                &[('a', Some(s[0]), x), ('|', None, x), ('b', Some(b), y)],
                &[('c', Some(c), y), ('|', None, x), ('d', Some(s[3]), x)],
            ],
            &[('b', 'c'), ('d', 'a')],
        );
        let rmw = if b == Rmw || c == Rmw { "-rmw" } else { "" };
        let name = format!("{}{rmw}-relacq", shape_name(s));
        tests.push(draft.test(format!("conf-{name}"), Kind::Conformance(m), weak));
        for (threads, tag) in [(&[0][..], "no-f0"), (&[1], "no-f1"), (&[0, 1], "no-fences")] {
            tests.push(draft.unfenced(threads).test(
                format!("mut-{name}-{tag}"),
                Kind::Mutant(m),
                weak,
            ));
        }
    }
    tests
}

/// The whole suite, grouped by mutator.
pub(crate) fn suite() -> Vec<Test> {
    let mut tests = reversing_po_loc();
    tests.extend(weakening_po_loc());
    tests.extend(weakening_sw());
    tests
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(kind: Kind) -> usize {
        suite().iter().filter(|t| t.kind == kind).count()
    }

    #[test]
    fn each_mutator_makes_the_papers_table_2_counts() {
        let table_2 = [
            (Mutator::ReversingPoLoc, 8, 8),
            (Mutator::WeakeningPoLoc, 6, 6),
            (Mutator::WeakeningSw, 6, 18),
        ];
        for (m, conformance, mutants) in table_2 {
            assert_eq!(count(Kind::Conformance(m)), conformance, "{m:?}");
            assert_eq!(count(Kind::Mutant(m)), mutants, "{m:?}");
        }
        assert_eq!(suite().len(), 20 + 32);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<String> = crate::catalog::all().into_iter().map(|t| t.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    /// The point of the method: a conformance test's target is disallowed, a mutant's allowed.
    #[test]
    fn targets_are_disallowed_in_conformance_tests_and_allowed_in_mutants() {
        for test in suite() {
            let o = test.outcomes();
            let targets: Vec<usize> = (0..o.target.len()).filter(|&i| o.target[i]).collect();
            assert!(!targets.is_empty(), "{} has no target outcome", test.name);
            for &t in &targets {
                match test.kind {
                    Kind::Conformance(_) => {
                        assert!(!o.allowed[t], "{}: {}", test.name, test.describe(t))
                    }
                    Kind::Mutant(_) => {
                        assert!(o.allowed[t], "{}: {}", test.name, test.describe(t))
                    }
                    Kind::Classic => unreachable!(),
                }
            }
        }
    }

    /// Mutators 1 and 2 test coherence, which WGSL promises; mutator 3 tests fences as
    /// release/acquire, which it no longer promises across workgroups.
    #[test]
    fn only_mutator_3_targets_are_coherent() {
        for test in suite() {
            let Kind::Conformance(m) = test.kind else {
                continue;
            };
            let o = test.outcomes();
            for t in (0..o.target.len()).filter(|&i| o.target[i]) {
                assert_eq!(o.coherent[t], m == Mutator::WeakeningSw, "{}", test.name);
            }
        }
    }

    #[test]
    fn known_targets() {
        let target = |name: &str| {
            let t = crate::catalog::find(name).unwrap();
            let o = t.outcomes();
            (0..o.target.len())
                .filter(|&i| o.target[i])
                .map(|i| t.describe(i))
                .collect::<Vec<_>>()
        };
        // CoRR: the first read sees the write, the second the initial value.
        assert_eq!(target("conf-corr"), ["r0=1 r1=0 x=1"]);
        // Its mutant reads in the other order: r1 first sees 0, then r0 sees 1.
        assert_eq!(target("mut-corr"), ["r0=1 r1=0 x=1"]);
        // MP: the flag (y = 2) is seen, the data (x = 1) is not.
        assert_eq!(target("mut-mp"), ["r0=2 r1=0 x=1 y=2"]);
        // MP-CO on one location: the second write is seen, then the initial value.
        let mp_co = target("conf-mp-co");
        assert!(mp_co.contains(&"r0=2 r1=0 x=2".to_string()), "{mp_co:?}");
        assert!(mp_co.iter().all(|o| o.starts_with("r0=2 ")), "{mp_co:?}");
        // The fenced MP with the flag seen and the data not is disallowed.
        assert_eq!(target("conf-mp-relacq"), ["r0=2 r1=0 x=1 y=2"]);
        // Only the observer tells which of two writes came first.
        let coww = target("mut-coww");
        assert!(coww.iter().all(|o| o.ends_with("x=1")), "{coww:?}");
        assert!(coww.contains(&"r0=2 r1=3 x=1".to_string()), "{coww:?}");
        // SB needs exchanges to synchronise: thread 1's exchange reads thread 0's.
        let sb = crate::catalog::find("conf-sb-rmw-relacq").unwrap();
        assert!(sb.ops().any(|op| matches!(op, Op::Exchange(..))));
    }

    #[test]
    fn mutator_3_mutants_drop_fences() {
        let fences = |name: &str| {
            crate::catalog::find(name)
                .unwrap()
                .ops()
                .filter(|op| **op == Op::Fence)
                .count()
        };
        assert_eq!(fences("conf-lb-relacq"), 2);
        assert_eq!(fences("mut-lb-relacq-no-f0"), 1);
        assert_eq!(fences("mut-lb-relacq-no-f1"), 1);
        assert_eq!(fences("mut-lb-relacq-no-fences"), 0);
    }
}
