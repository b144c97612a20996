//! A test's transition system: every state reachable from the start (memory 0, every pc 0,
//! nobody has stepped) and every step between them. A state holds the memory, each thread's
//! pc and which threads have stepped, all that the progress models need; a thread whose pc is
//! past its last instruction has terminated (its termination is folded into its last step).

use crate::axb::{AxbTest, LOCATIONS};
use crate::model::Threads;
use serde::Serialize;
use std::collections::HashMap;

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
    pub(crate) to: u32,
}

/// Every reachable state (state 0 is the start) and its steps.
pub(crate) struct Graph {
    pub(crate) threads: usize,
    pub(crate) states: Vec<Packed>,
    pub(crate) edges: Vec<Vec<Edge>>,
    lens: Vec<usize>,
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

impl Graph {
    pub(crate) fn of(test: &AxbTest) -> Graph {
        let threads = test.threads();
        let lens: Vec<usize> = threads.iter().map(Vec::len).collect();
        let mut index: HashMap<Packed, u32> = HashMap::new();
        let mut states = vec![0];
        let mut edges: Vec<Vec<Edge>> = Vec::new();
        index.insert(0, 0);
        let mut next = 0;
        while next < states.len() {
            let state = states[next];
            let mut out = Vec::with_capacity(threads.len());
            for (t, thread) in threads.iter().enumerate() {
                let pc = pc_of(state, t);
                if pc == lens[t] {
                    continue;
                }
                let mut mem = [(state & 1) as u8, ((state >> 1) & 1) as u8];
                let (to_pc, taken) = thread[pc].step(pc, lens[t], &mut mem);
                let shift = 10 + 4 * t;
                let to = (state & !(0xf << shift) & !0b11)
                    | ((to_pc as u64) << shift)
                    | u64::from(mem[0])
                    | (u64::from(mem[1]) << 1)
                    | (1 << (2 + t));
                let id = *index.entry(to).or_insert_with(|| {
                    states.push(to);
                    (states.len() - 1) as u32
                });
                out.push(Edge {
                    thread: t as u8,
                    pc: pc as u8,
                    taken,
                    to: id,
                });
            }
            edges.push(out);
            next += 1;
        }
        Graph {
            threads: threads.len(),
            states,
            edges,
            lens,
        }
    }

    pub(crate) fn pc(&self, state: u32, thread: usize) -> usize {
        pc_of(self.states[state as usize], thread)
    }

    pub(crate) fn memory(&self, state: u32) -> [u8; LOCATIONS] {
        let s = self.states[state as usize];
        [(s & 1) as u8, ((s >> 1) & 1) as u8]
    }

    /// The state's memory and pcs, without who has stepped: the state as the seed's
    /// transition system has it, and what a step that only marks its thread stepped leaves
    /// unchanged.
    pub(crate) fn memory_and_pcs(&self, state: u32) -> Packed {
        self.states[state as usize] & !(0xff << 2)
    }

    pub(crate) fn stepped(&self, state: u32) -> Threads {
        ((self.states[state as usize] >> 2) & 0xff) as Threads
    }

    pub(crate) fn done(&self, state: u32) -> Threads {
        let mut done = 0;
        for t in 0..self.threads {
            if self.pc(state, t) == self.lens[t] {
                done |= 1 << t;
            }
        }
        done
    }

    /// Whether every thread has terminated.
    pub(crate) fn is_final(&self, state: u32) -> bool {
        self.edges[state as usize].is_empty()
    }

    pub(crate) fn view(&self, state: u32) -> State {
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
        let project = |s: u32| self.memory_and_pcs(s);
        let mut states: Vec<Packed> = (0..self.states.len() as u32).map(project).collect();
        let mut steps: Vec<(Packed, u8, Packed)> = Vec::new();
        for (s, out) in self.edges.iter().enumerate() {
            for e in out {
                steps.push((project(s as u32), e.thread, project(e.to)));
            }
        }
        states.sort_unstable();
        states.dedup();
        steps.sort_unstable();
        steps.dedup();
        (states.len(), steps.len())
    }

    /// Strongly connected components (Tarjan's, iterative): each state's component, and
    /// whether the component holds a cycle (a step that stays inside it).
    pub(crate) fn components(&self) -> (Vec<u32>, Vec<bool>) {
        let n = self.states.len();
        const NONE: u32 = u32::MAX;
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut component = vec![NONE; n];
        let mut count = 0u32;
        let mut counter = 0u32;
        let mut calls: Vec<(u32, usize)> = Vec::new();
        for root in 0..n as u32 {
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
                if let Some(edge) = self.edges[vu].get(*i) {
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
        for (s, out) in self.edges.iter().enumerate() {
            for e in out {
                if component[e.to as usize] == component[s] {
                    cyclic[component[s] as usize] = true;
                }
            }
        }
        (component, cyclic)
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;
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
            let graph = Graph::of(&test);
            assert_eq!(graph.seed_size(), (states, actions), "{name}");
        }
    }
}
