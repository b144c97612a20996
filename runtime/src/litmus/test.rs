//! Litmus tests as data: two threads of loads and stores on locations x and y. Everything
//! else (the WGSL, the outcome classes) is derived from this one description per test.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    X,
    Y,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Store a value (1 or 2).
    Store(Loc, u32),
    /// Load into register r (0..REGISTERS).
    Load(Loc, usize),
}

pub const REGISTERS: usize = 3;
/// Every value a register or location can hold: 0, 1, 2.
const VALUES: u32 = 3;
/// Outcome = registers and the final values of x and y, each a base-3 digit.
pub const OUTCOMES: usize = 3usize.pow(REGISTERS as u32 + 2);

#[derive(Clone, Debug)]
pub struct Test {
    pub name: &'static str,
    pub threads: [Vec<Op>; 2],
    /// What the weak behaviour is, for people.
    pub weak: &'static str,
}

/// How an outcome relates to sequential consistency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// One thread entirely before the other.
    Sequential = 0,
    /// Some other interleaving.
    Interleaved = 1,
    /// No interleaving gives it: the weak behaviour.
    Weak = 2,
}

use Loc::{X, Y};
use Op::{Load, Store};

/// The tests the engine knows.
pub fn all() -> Vec<Test> {
    vec![
        Test {
            name: "mp",
            threads: [vec![Store(X, 1), Store(Y, 1)], vec![Load(Y, 0), Load(X, 1)]],
            weak: "r0 = 1, r1 = 0: the flag is seen, the data is not",
        },
        Test {
            name: "sb",
            threads: [vec![Store(X, 1), Load(Y, 0)], vec![Store(Y, 1), Load(X, 1)]],
            weak: "r0 = 0, r1 = 0: both stores buffered",
        },
        Test {
            name: "lb",
            threads: [vec![Load(X, 0), Store(Y, 1)], vec![Load(Y, 1), Store(X, 1)]],
            weak: "r0 = 1, r1 = 1: both loads see the future",
        },
        Test {
            name: "corr",
            threads: [vec![Store(X, 1)], vec![Load(X, 0), Load(X, 1)]],
            weak: "r0 = 1, r1 = 0: reads of one location go back in time",
        },
        Test {
            name: "coww",
            threads: [vec![Store(X, 1), Store(X, 2)], vec![Load(X, 0)]],
            weak: "x = 1 at the end: a thread's own writes reordered",
        },
        Test {
            name: "cowr",
            threads: [vec![Store(X, 1), Load(X, 0)], vec![Store(X, 2)]],
            weak: "r0 = 2 and x = 1: a read sees a write coherence-before its own",
        },
        Test {
            name: "corw",
            threads: [vec![Load(X, 0), Store(X, 1)], vec![Store(X, 2)]],
            weak: "r0 = 2 and x = 2: a read sees a write coherence-after its own",
        },
        Test {
            name: "2+2w",
            threads: [
                vec![Store(X, 1), Store(Y, 2)],
                vec![Store(Y, 1), Store(X, 2)],
            ],
            weak: "x = 1 and y = 1: each thread's first store wins",
        },
    ]
}

pub fn find(name: &str) -> Option<Test> {
    all()
        .into_iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
}

/// The outcome index of registers and final memory.
pub fn encode(registers: [u32; REGISTERS], x: u32, y: u32) -> usize {
    registers
        .iter()
        .chain([x, y].iter())
        .rev()
        .fold(0, |acc, v| acc * VALUES as usize + *v as usize)
}

impl Test {
    /// The class of every outcome index: sequential, interleaved, or weak.
    pub fn classes(&self) -> Vec<Class> {
        let mut classes = vec![Class::Weak; OUTCOMES];
        let [a, b] = &self.threads;
        let sequential = [
            self.execute(&interleave_order(a.len(), b.len(), true)),
            self.execute(&interleave_order(a.len(), b.len(), false)),
        ];
        for order in orders(a.len(), b.len()) {
            let outcome = self.execute(&order);
            if classes[outcome] == Class::Weak {
                classes[outcome] = Class::Interleaved;
            }
        }
        for outcome in sequential {
            classes[outcome] = Class::Sequential;
        }
        classes
    }

    /// Runs the threads in `order` (0 = a step of thread 0) under sequential consistency.
    fn execute(&self, order: &[usize]) -> usize {
        let (mut memory, mut registers, mut next) = ([0u32; 2], [0u32; REGISTERS], [0usize; 2]);
        for &t in order {
            match self.threads[t][next[t]] {
                Op::Store(loc, v) => memory[loc as usize] = v,
                Op::Load(loc, r) => registers[r] = memory[loc as usize],
            }
            next[t] += 1;
        }
        encode(registers, memory[0], memory[1])
    }

    pub fn uses_y(&self) -> bool {
        self.threads
            .iter()
            .flatten()
            .any(|op| matches!(op, Op::Store(Y, _) | Op::Load(Y, _)))
    }
}

fn interleave_order(a: usize, b: usize, a_first: bool) -> Vec<usize> {
    let (first, second) = if a_first { (0, 1) } else { (1, 0) };
    let (n1, n2) = if a_first { (a, b) } else { (b, a) };
    std::iter::repeat_n(first, n1)
        .chain(std::iter::repeat_n(second, n2))
        .collect()
}

/// Every interleaving of a steps of thread 0 and b steps of thread 1.
fn orders(a: usize, b: usize) -> Vec<Vec<usize>> {
    if a == 0 || b == 0 {
        return vec![interleave_order(a, b, a > 0)];
    }
    let mut out = Vec::new();
    for mut rest in orders(a - 1, b) {
        rest.insert(0, 0);
        out.push(rest);
    }
    for mut rest in orders(a, b - 1) {
        rest.insert(0, 1);
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(test: &str, registers: [u32; REGISTERS], x: u32, y: u32) -> Class {
        find(test).unwrap().classes()[encode(registers, x, y)]
    }

    #[test]
    fn weak_outcomes_are_the_textbook_ones() {
        assert_eq!(class_of("mp", [1, 0, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("mp", [1, 1, 0], 1, 1), Class::Sequential);
        assert_eq!(class_of("mp", [0, 1, 0], 1, 1), Class::Interleaved);
        assert_eq!(class_of("sb", [0, 0, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("sb", [1, 1, 0], 1, 1), Class::Interleaved);
        assert_eq!(class_of("lb", [1, 1, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("corr", [1, 0, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("coww", [0, 0, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("coww", [2, 0, 0], 2, 0), Class::Sequential);
        assert_eq!(class_of("cowr", [2, 0, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("corw", [2, 0, 0], 2, 0), Class::Weak);
        assert_eq!(class_of("2+2w", [0, 0, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("2+2w", [0, 0, 0], 2, 2), Class::Interleaved);
    }

    #[test]
    fn every_test_has_weak_and_sequential_outcomes() {
        for test in all() {
            let classes = test.classes();
            assert!(classes.contains(&Class::Sequential), "{}", test.name);
            assert!(classes.contains(&Class::Weak), "{}", test.name);
        }
    }
}
