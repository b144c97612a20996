//! A test's transition system: every state reachable from the start (memory 0, every pc 0,
//! nobody has stepped) and every step between them. A state holds the memory, each thread's
//! pc and which threads have stepped, all that the progress models need; a thread whose pc is
//! past its last instruction has terminated (its termination is folded into its last step).
//!
//! A test reaches at most `MAX_STATES` states: `AxbTest::new` and `AxbTest::parse` refuse one
//! that reaches more (`within_limit`), so that every test is decided within seconds and well
//! under a gigabyte, and a state's index fits the `u32` it is kept in.

use crate::instr::{Instr, LOCATIONS, MAX_THREADS};
use crate::model::Threads;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The most states a test may reach. The oracle keeps, per state, its packed form, its steps
/// and the steps into it, and a few words per verdict; past this many, a test of eight long
/// threads would take the oracle more than the ten seconds and the gigabyte any test must be
/// decided within (docs/progress.md gives the measurement).
pub const MAX_STATES: usize = 1 << 20;

/// A state's index: states are numbered in the order the exploration finds them, 0 the start.
pub(crate) type StateId = u32;

// Every state's index and every step's place in the flat list of steps fit a `StateId`: a
// state has at most one step per thread.
const _: () = assert!(MAX_STATES * MAX_THREADS <= StateId::MAX as usize);

/// A state packed into 64 bits: memory in bits 0-1, who has stepped in bits 2-9, thread t's
/// pc in the 4 bits from 10 + 4t.
pub(crate) type Packed = u64;

/// A step of the transition system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) thread: u8,
    /// The instruction it executed.
    pub(crate) pc: u8,
    /// Whether its branch was taken (always false for a store).
    pub(crate) taken: bool,
    pub(crate) to: StateId,
}

/// Every reachable state (state 0 is the start) and its steps.
pub(crate) struct Graph {
    pub(crate) threads: usize,
    states: Vec<Packed>,
    /// The steps out of state s are `edges[first[s]..first[s + 1]]`.
    first: Vec<StateId>,
    edges: Vec<Edge>,
    lens: Vec<usize>,
}

/// The steps into each state, as (from, thread): those into s are
/// `from[first[s]..first[s + 1]]`.
pub(crate) struct Predecessors {
    first: Vec<StateId>,
    from: Vec<(StateId, u8)>,
}

impl Predecessors {
    pub(crate) fn of(&self, state: StateId) -> &[(StateId, u8)] {
        let s = state as usize;
        &self.from[self.first[s] as usize..self.first[s + 1] as usize]
    }
}

/// A state as a person reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct State {
    pub memory: [u8; LOCATIONS],
    /// Each thread's next instruction; its instruction count once it has terminated.
    pub pcs: Vec<usize>,
    /// The threads that have taken a step.
    pub stepped: Vec<usize>,
}

fn pc_of(state: Packed, t: usize) -> usize {
    ((state >> (10 + 4 * t)) & 0xf) as usize
}

/// Thread `t`'s step from `state`, unless it has terminated: the instruction it executes,
/// whether its branch is taken, and the state it leads to.
fn step(threads: &[Vec<Instr>], state: Packed, t: usize) -> Option<(usize, bool, Packed)> {
    let thread = &threads[t];
    let pc = pc_of(state, t);
    let instr = thread.get(pc)?;
    let mut mem = [(state & 1) as u8, ((state >> 1) & 1) as u8];
    let (to_pc, taken) = instr.step(pc, thread.len(), &mut mem);
    let shift = 10 + 4 * t;
    let to = (state & !(0xf << shift) & !0b11)
        | ((to_pc as u64) << shift)
        | u64::from(mem[0])
        | (u64::from(mem[1]) << 1)
        | (1 << (2 + t));
    Some((pc, taken, to))
}

/// Hashes a packed state for the exploration's index: a multiply by a large odd constant
/// spreads every bit into the high half, folded back into the low half that the table indexes
/// by. The default hasher, built to resist chosen keys, costs several times as much per state.
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let h = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type ByState = BuildHasherDefault<StateHasher>;

/// Whether a test of these threads reaches at most `MAX_STATES` states. Each thread is at one
/// of its pcs, or at its start before its first step: when the product of those counts and the
/// memory's four values is within the limit, so is the test; else its states are counted, up
/// to one past the limit.
pub(crate) fn within_limit(threads: &[Vec<Instr>]) -> bool {
    let bound = threads
        .iter()
        .try_fold(1usize << LOCATIONS, |n, t| n.checked_mul(t.len() + 2));
    if bound.is_some_and(|n| n <= MAX_STATES) {
        return true;
    }
    let mut seen: HashSet<Packed, ByState> = HashSet::default();
    seen.insert(0);
    let mut todo: Vec<Packed> = vec![0];
    while let Some(state) = todo.pop() {
        for t in 0..threads.len() {
            if let Some((_, _, to)) = step(threads, state, t) {
                if seen.insert(to) {
                    if seen.len() > MAX_STATES {
                        return false;
                    }
                    todo.push(to);
                }
            }
        }
    }
    true
}

impl Graph {
    /// The transition system of a test's threads (`AxbTest::threads`, whose constructors
    /// refused any test that reaches more than `MAX_STATES` states).
    pub(crate) fn of(threads: &[Vec<Instr>]) -> Graph {
        let lens: Vec<usize> = threads.iter().map(Vec::len).collect();
        let mut index: HashMap<Packed, StateId, ByState> = HashMap::default();
        let mut states: Vec<Packed> = vec![0];
        let mut first: Vec<StateId> = vec![0];
        let mut edges: Vec<Edge> = Vec::new();
        index.insert(0, 0);
        let mut next = 0;
        while next < states.len() {
            let state = states[next];
            for t in 0..threads.len() {
                let Some((pc, taken, to)) = step(threads, state, t) else {
                    continue;
                };
                let id = *index.entry(to).or_insert_with(|| {
                    states.push(to);
                    // AxbTest's constructors refused any test that reaches more.
                    assert!(
                        states.len() <= MAX_STATES,
                        "a test reaches at most MAX_STATES states"
                    );
                    (states.len() - 1) as StateId
                });
                edges.push(Edge {
                    thread: t as u8,
                    pc: pc as u8,
                    taken,
                    to: id,
                });
            }
            first.push(edges.len() as StateId);
            next += 1;
        }
        drop(index);
        states.shrink_to_fit();
        edges.shrink_to_fit();
        Graph {
            threads: threads.len(),
            states,
            first,
            edges,
            lens,
        }
    }

    /// How many states the test reaches.
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    /// Every state's index, in order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = StateId> {
        0..self.states.len() as StateId
    }

    /// The steps out of `state`, one per thread that has not terminated, in thread order.
    pub(crate) fn out(&self, state: StateId) -> &[Edge] {
        let s = state as usize;
        &self.edges[self.first[s] as usize..self.first[s + 1] as usize]
    }

    /// Every step, with the state it leaves.
    pub(crate) fn steps(&self) -> impl Iterator<Item = (StateId, &Edge)> {
        self.ids()
            .flat_map(move |s| self.out(s).iter().map(move |e| (s, e)))
    }

    /// The steps into each state.
    pub(crate) fn predecessors(&self) -> Predecessors {
        let n = self.states.len();
        let mut first: Vec<StateId> = vec![0; n + 1];
        for e in &self.edges {
            first[e.to as usize + 1] += 1;
        }
        for s in 0..n {
            first[s + 1] += first[s];
        }
        let mut at: Vec<StateId> = first[..n].to_vec();
        let mut from = vec![(0, 0); self.edges.len()];
        for (s, e) in self.steps() {
            let slot = &mut at[e.to as usize];
            from[*slot as usize] = (s, e.thread);
            *slot += 1;
        }
        Predecessors { first, from }
    }

    pub(crate) fn pc(&self, state: StateId, thread: usize) -> usize {
        pc_of(self.states[state as usize], thread)
    }

    pub(crate) fn memory(&self, state: StateId) -> [u8; LOCATIONS] {
        let s = self.states[state as usize];
        [(s & 1) as u8, ((s >> 1) & 1) as u8]
    }

    /// The state's memory and pcs, without who has stepped: the state as the seed's
    /// transition system has it, and what a step that only marks its thread stepped leaves
    /// unchanged.
    pub(crate) fn memory_and_pcs(&self, state: StateId) -> Packed {
        self.states[state as usize] & !(0xff << 2)
    }

    pub(crate) fn stepped(&self, state: StateId) -> Threads {
        ((self.states[state as usize] >> 2) & 0xff) as Threads
    }

    pub(crate) fn done(&self, state: StateId) -> Threads {
        let mut done = 0;
        for t in 0..self.threads {
            if self.pc(state, t) == self.lens[t] {
                done |= 1 << t;
            }
        }
        done
    }

    /// Whether every thread has terminated.
    pub(crate) fn is_final(&self, state: StateId) -> bool {
        self.out(state).is_empty()
    }

    pub(crate) fn view(&self, state: StateId) -> State {
        let stepped = self.stepped(state);
        State {
            memory: self.memory(state),
            pcs: (0..self.threads).map(|t| self.pc(state, t)).collect(),
            stepped: (0..self.threads)
                .filter(|t| stepped >> t & 1 == 1)
                .collect(),
        }
    }

    /// The size of the seed's transition system, whose states are memory and pcs only (not
    /// who has stepped): its states and its steps (Table 2's and Table 3's "States" and
    /// "Actions").
    #[cfg(test)]
    pub(crate) fn seed_size(&self) -> (usize, usize) {
        let project = |s: StateId| self.memory_and_pcs(s);
        let mut states: Vec<Packed> = self.ids().map(project).collect();
        let mut steps: Vec<(Packed, u8, Packed)> = self
            .steps()
            .map(|(s, e)| (project(s), e.thread, project(e.to)))
            .collect();
        states.sort_unstable();
        states.dedup();
        steps.sort_unstable();
        steps.dedup();
        (states.len(), steps.len())
    }

    /// Strongly connected components (Tarjan's, iterative): each state's component, and
    /// whether the component holds a cycle (a step that stays inside it).
    pub(crate) fn components(&self) -> (Vec<StateId>, Vec<bool>) {
        let n = self.states.len();
        const NONE: StateId = StateId::MAX;
        let mut index = vec![NONE; n];
        let mut low: Vec<StateId> = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<StateId> = Vec::new();
        let mut component = vec![NONE; n];
        let mut count: StateId = 0;
        let mut counter: StateId = 0;
        // The states being visited, each with the number of its steps looked at so far.
        let mut calls: Vec<(StateId, u8)> = Vec::new();
        for root in self.ids() {
            if index[root as usize] != NONE {
                continue;
            }
            calls.push((root, 0));
            while let Some(&mut (v, ref mut i)) = calls.last_mut() {
                let vu = v as usize;
                if *i == 0 && index[vu] == NONE {
                    index[vu] = counter;
                    low[vu] = counter;
                    counter += 1;
                    stack.push(v);
                    on_stack[vu] = true;
                }
                if let Some(edge) = self.out(v).get(usize::from(*i)) {
                    *i += 1;
                    let w = edge.to as usize;
                    if index[w] == NONE {
                        calls.push((edge.to, 0));
                    } else if on_stack[w] {
                        low[vu] = low[vu].min(index[w]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    let p = parent as usize;
                    low[p] = low[p].min(low[vu]);
                }
                if low[vu] == index[vu] {
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        on_stack[w as usize] = false;
                        component[w as usize] = count;
                        if w == v {
                            break;
                        }
                    }
                    count += 1;
                }
            }
        }
        let mut cyclic = vec![false; count as usize];
        for (s, e) in self.steps() {
            if component[e.to as usize] == component[s as usize] {
                cyclic[component[s as usize] as usize] = true;
            }
        }
        (component, cyclic)
    }
}

#[cfg(test)]
mod tests {
    use super::{within_limit, Graph, MAX_STATES};
    use crate::instr::{BranchTarget, Instr};
    use crate::suite::seed_examples;

    #[test]
    fn transition_systems_are_as_large_as_the_seeds_table_3_says() {
        // (actions, states) of Table 3.
        for (name, actions, states) in [
            ("prodcons-increasing", 3, 3),
            ("prodcons-decreasing", 3, 3),
            ("prodcons-bidirectional", 7, 5),
            ("simplified-mutex", 7, 6),
            ("dining-philosophers", 8, 8),
        ] {
            let (_, test) = seed_examples()
                .into_iter()
                .find(|(n, _)| *n == name)
                .unwrap();
            let graph = Graph::of(test.threads());
            assert_eq!(graph.seed_size(), (states, actions), "{name}");
        }
    }

    #[test]
    fn the_limit_counts_the_states_a_test_reaches_not_the_ones_it_could() {
        // Threads of stores of 0, which never jump: each is at its start or past one of its
        // stores, and the memory stays 0, so n threads of k stores reach (k + 1)^n states.
        let stores = |lens: &[usize]| -> Vec<Vec<Instr>> {
            lens.iter()
                .map(|&k| vec![Instr::Store { loc: 0, value: 0 }; k])
                .collect()
        };
        // Five threads of 15 stores reach 16^5 = 2^20 states, the cap; one more thread of one
        // store doubles them.
        assert_eq!(MAX_STATES, 16usize.pow(5));
        let five = stores(&[15; 5]);
        assert!(within_limit(&five));
        let test = crate::AxbTest::new(five).unwrap();
        assert_eq!(Graph::of(test.threads()).len(), MAX_STATES);
        assert!(!within_limit(&stores(&[15, 15, 15, 15, 15, 1])));
        // Eight threads of 15 stores reach every interleaving of their pcs, 16^8 states; where
        // all but the first spin at their start on a location nobody sets, only thread 0's 16
        // places by which of the others have stepped.
        assert!(!within_limit(&stores(&[15; 8])));
        let wait = Instr::Chk {
            loc: 1,
            check: 0,
            target: BranchTarget::Inst(0),
        };
        let mut waiting = stores(&[15]);
        waiting.extend(vec![vec![wait; 15]; 7]);
        assert!(within_limit(&waiting));
        let test = crate::AxbTest::new(waiting).unwrap();
        assert_eq!(Graph::of(test.threads()).len(), 16 << 7);
    }
}
