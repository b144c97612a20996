//! Litmus tests as data: threads of loads, stores, exchanges and fences on locations x and y.
//! Everything else (the WGSL, the outcome classes, the `--list` text) is derived from this one
//! description per test.

use serde::Serialize;
use wgstress_model::litmus::kind::Kind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum Loc {
    X,
    Y,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Store a value (unique within the test, from 1 up).
    Store(Loc, u32),
    /// Load into register r.
    Load(Loc, usize),
    /// atomicExchange: store a value, the old one into register r (a read-modify-write).
    Exchange(Loc, u32, usize),
    /// storageBarrier(), used as a release/acquire fence as in the MC Mutants paper.
    Fence,
}

impl Op {
    pub fn loc(&self) -> Option<Loc> {
        match *self {
            Op::Store(l, _) | Op::Load(l, _) | Op::Exchange(l, _, _) => Some(l),
            Op::Fence => None,
        }
    }
    pub fn written(&self) -> Option<u32> {
        match *self {
            Op::Store(_, v) | Op::Exchange(_, v, _) => Some(v),
            _ => None,
        }
    }
    pub(crate) fn register(&self) -> Option<usize> {
        match *self {
            Op::Load(_, r) | Op::Exchange(_, _, r) => Some(r),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Test {
    pub name: String,
    pub kind: Kind,
    /// Two threads, or three when an observer thread reads x twice.
    pub threads: Vec<Vec<Op>>,
    /// The target behaviour, for people.
    pub weak: String,
    /// The template's communication edges (thread, op index) -> (thread, op index) that the
    /// target behaviour proves; empty for classic tests, whose target is every weak outcome.
    pub cycle: Vec<(Event, Event)>,
}

/// An operation of a test: (thread, index in the thread).
pub(crate) type Event = (usize, usize);

/// How an outcome relates to sequential consistency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// The threads one after the other, in some order.
    Sequential = 0,
    /// Some other interleaving.
    Interleaved = 1,
    /// No interleaving gives it.
    Weak = 2,
}

/// Everything known about each outcome of a test, indexed by outcome.
#[derive(Clone, Debug)]
pub struct Outcomes {
    pub class: Vec<Class>,
    /// Allowed by the test's memory model (SC per location plus release/acquire fences).
    pub allowed: Vec<bool>,
    /// Allowed by SC per location alone; what WGSL promises across workgroups. An outcome
    /// allowed here but not above breaks only the paper's release/acquire fences.
    pub coherent: Vec<bool>,
    /// The behaviour the test looks for.
    pub target: Vec<bool>,
}

use Loc::{X, Y};
use Op::{Load, Store};

fn classic(name: &str, threads: [Vec<Op>; 2], weak: &str) -> Test {
    Test {
        name: name.into(),
        kind: Kind::Classic,
        threads: threads.into(),
        weak: weak.into(),
        cycle: vec![],
    }
}

/// The textbook tests the engine has always known (tune uses mp, sb and lb).
pub fn classics() -> Vec<Test> {
    vec![
        classic(
            "mp",
            [vec![Store(X, 1), Store(Y, 1)], vec![Load(Y, 0), Load(X, 1)]],
            "r0 = 1, r1 = 0: the flag is seen, the data is not",
        ),
        classic(
            "sb",
            [vec![Store(X, 1), Load(Y, 0)], vec![Store(Y, 1), Load(X, 1)]],
            "r0 = 0, r1 = 0: both stores buffered",
        ),
        classic(
            "lb",
            [vec![Load(X, 0), Store(Y, 1)], vec![Load(Y, 1), Store(X, 1)]],
            "r0 = 1, r1 = 1: both loads see the future",
        ),
        classic(
            "corr",
            [vec![Store(X, 1)], vec![Load(X, 0), Load(X, 1)]],
            "r0 = 1, r1 = 0: reads of one location go back in time",
        ),
        classic(
            "coww",
            [vec![Store(X, 1), Store(X, 2)], vec![Load(X, 0)]],
            "x = 1 at the end: a thread's own writes reordered",
        ),
        classic(
            "cowr",
            [vec![Store(X, 1), Load(X, 0)], vec![Store(X, 2)]],
            "r0 = 2 and x = 1: a read sees a write coherence-before its own",
        ),
        classic(
            "corw",
            [vec![Load(X, 0), Store(X, 1)], vec![Store(X, 2)]],
            "r0 = 2 and x = 2: a read sees a write coherence-after its own",
        ),
        classic(
            "2+2w",
            [
                vec![Store(X, 1), Store(Y, 2)],
                vec![Store(Y, 1), Store(X, 2)],
            ],
            "x = 1 and y = 1: each thread's first store wins",
        ),
    ]
}

impl Test {
    pub fn ops(&self) -> impl Iterator<Item = &Op> {
        self.threads.iter().flatten()
    }

    pub fn registers(&self) -> usize {
        self.ops()
            .filter_map(Op::register)
            .max()
            .map_or(0, |r| r + 1)
    }

    /// Values a register or location can hold: 0 and every stored value.
    pub fn values(&self) -> u32 {
        self.ops().filter_map(Op::written).max().unwrap_or(0) + 1
    }

    /// Outcomes: registers, then the final x and y, each a digit in base `values()`.
    pub(crate) fn outcome_count(&self) -> usize {
        (self.values() as usize).pow(self.registers() as u32 + 2)
    }

    pub fn encode(&self, registers: &[u32], x: u32, y: u32) -> usize {
        let base = self.values() as usize;
        registers
            .iter()
            .chain([x, y].iter())
            .rev()
            .fold(0, |acc, v| acc * base + *v as usize)
    }

    /// Registers and final x, y of an outcome index.
    pub fn decode(&self, mut outcome: usize) -> (Vec<u32>, u32, u32) {
        let base = self.values() as usize;
        let mut digits = Vec::new();
        for _ in 0..self.registers() + 2 {
            digits.push((outcome % base) as u32);
            outcome /= base;
        }
        let y = digits.pop().expect("y digit");
        let x = digits.pop().expect("x digit");
        (digits, x, y)
    }

    /// An outcome for people: `r0=1 r1=0 x=1 y=1`.
    pub fn describe(&self, outcome: usize) -> String {
        let (registers, x, y) = self.decode(outcome);
        let mut parts: Vec<String> = registers
            .iter()
            .enumerate()
            .map(|(i, v)| format!("r{i}={v}"))
            .collect();
        parts.push(format!("x={x}"));
        if self.uses_y() {
            parts.push(format!("y={y}"));
        }
        parts.join(" ")
    }

    pub(crate) fn uses_y(&self) -> bool {
        self.ops().any(|op| op.loc() == Some(Y))
    }

    /// The class of every outcome index: sequential, interleaved, or weak.
    pub fn classes(&self) -> Vec<Class> {
        let mut classes = vec![Class::Weak; self.outcome_count()];
        let lens: Vec<usize> = self.threads.iter().map(Vec::len).collect();
        for order in orders(&lens) {
            let outcome = self.execute(&order);
            if classes[outcome] == Class::Weak {
                classes[outcome] = Class::Interleaved;
            }
        }
        for order in serial_orders(&lens) {
            classes[self.execute(&order)] = Class::Sequential;
        }
        classes
    }

    /// The outcome of running the threads one after the other, in order.
    pub fn in_order_outcome(&self) -> usize {
        let order: Vec<usize> = (0..self.threads.len())
            .flat_map(|t| std::iter::repeat_n(t, self.threads[t].len()))
            .collect();
        self.execute(&order)
    }

    /// Runs the threads in `order` (a thread index per step) under sequential consistency.
    fn execute(&self, order: &[usize]) -> usize {
        let (mut memory, mut registers) = ([0u32; 2], vec![0u32; self.registers()]);
        let mut next = vec![0usize; self.threads.len()];
        for &t in order {
            match self.threads[t][next[t]] {
                Op::Store(loc, v) => memory[loc as usize] = v,
                Op::Load(loc, r) => registers[r] = memory[loc as usize],
                Op::Exchange(loc, v, r) => {
                    registers[r] = memory[loc as usize];
                    memory[loc as usize] = v;
                }
                Op::Fence => {}
            }
            next[t] += 1;
        }
        self.encode(&registers, memory[0], memory[1])
    }
}

/// Every order of whole threads.
fn serial_orders(lens: &[usize]) -> Vec<Vec<usize>> {
    permutations(lens.len())
        .into_iter()
        .map(|p| {
            p.iter()
                .flat_map(|&t| std::iter::repeat_n(t, lens[t]))
                .collect()
        })
        .collect()
}

pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Every interleaving of threads with `lens` steps each.
fn orders(lens: &[usize]) -> Vec<Vec<usize>> {
    if lens.iter().all(|l| *l == 0) {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for t in 0..lens.len() {
        if lens[t] == 0 {
            continue;
        }
        let mut rest = lens.to_vec();
        rest[t] -= 1;
        for mut order in orders(&rest) {
            order.insert(0, t);
            out.push(order);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(test: &str, registers: [u32; 2], x: u32, y: u32) -> Class {
        let t = classics().into_iter().find(|t| t.name == test).unwrap();
        t.classes()[t.encode(&registers[..t.registers()], x, y)]
    }

    #[test]
    fn weak_outcomes_are_the_textbook_ones() {
        assert_eq!(class_of("mp", [1, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("mp", [1, 1], 1, 1), Class::Sequential);
        assert_eq!(class_of("mp", [0, 1], 1, 1), Class::Interleaved);
        assert_eq!(class_of("sb", [0, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("sb", [1, 1], 1, 1), Class::Interleaved);
        assert_eq!(class_of("lb", [1, 1], 1, 1), Class::Weak);
        assert_eq!(class_of("corr", [1, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("coww", [0, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("coww", [2, 0], 2, 0), Class::Sequential);
        assert_eq!(class_of("cowr", [2, 0], 1, 0), Class::Weak);
        assert_eq!(class_of("corw", [2, 0], 2, 0), Class::Weak);
        assert_eq!(class_of("2+2w", [0, 0], 1, 1), Class::Weak);
        assert_eq!(class_of("2+2w", [0, 0], 2, 2), Class::Interleaved);
    }

    #[test]
    fn every_test_has_weak_and_sequential_outcomes() {
        for test in classics() {
            let classes = test.classes();
            assert!(classes.contains(&Class::Sequential), "{}", test.name);
            assert!(classes.contains(&Class::Weak), "{}", test.name);
        }
    }
}
