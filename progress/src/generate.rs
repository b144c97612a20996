//! The suite: every test within bounds that meets the seed's synthesis constraints (§5.1-5.2),
//! enumerated exhaustively instead of searched for with a SAT solver, in a fixed order.
//!
//! Constraints, as decided on the test's transition system:
//! - well-formed (start state, always enabled, end state): by construction of the language;
//! - possible termination: from every reachable state the end (every thread terminated) is
//!   reachable;
//! - non-termination cycle: the transition system has a cycle (so no test is guaranteed to
//!   terminate under the unfair model);
//! - inter-thread influence: every thread writes a location in a way that changes the branch
//!   of another thread's next instruction, or has its own branch changed so by another thread
//!   (a thread that does neither only adds thread-local behaviour); and every instruction that
//!   writes does so in some execution (the seed's redundant test t' adds a write nobody reads;
//!   an exchange whose write never matters to another thread is a read with a needless write);
//! - all branches possible: every instruction executes in some execution, and every branch is
//!   both taken and not taken in some execution;
//! - meaningful comparisons: an instruction whose target is the next instruction is a store
//!   (`atomic_store`), with no comparison; a read whose target is the next one does nothing
//!   but take a step and is not generated.
//!
//! Tests are kept up to symmetry: of a test and the one with its two locations swapped, only
//! the smaller (in the order of `AxbTest`) is kept. Threads are not permuted: HSA and LOBE order
//! threads by id.

use crate::axb::{AxbTest, BranchTarget, Instr, LOCATIONS};
use crate::explore::Graph;

/// Which tests to enumerate: thread counts and total instruction counts, every combination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub threads: std::ops::RangeInclusive<usize>,
    pub instructions: std::ops::RangeInclusive<usize>,
}

impl Bounds {
    /// The seed's: 2-3 threads, 2-4 instructions in all (its Table 2's five runs).
    pub fn seed() -> Bounds {
        Bounds {
            threads: 2..=3,
            instructions: 2..=4,
        }
    }

    /// The (threads, instructions) pairs, in order, where every thread has an instruction.
    pub fn configurations(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for t in self.threads.clone() {
            for i in self.instructions.clone() {
                if i >= t {
                    out.push((t, i));
                }
            }
        }
        out
    }
}

/// A generated test and its name: threads, instructions and place in that configuration's
/// enumeration (`2t3i-0007`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    pub name: String,
    pub threads: usize,
    pub instructions: usize,
    pub test: AxbTest,
}

/// Every instruction a thread of `len` instructions may hold at `pc`.
fn alphabet(pc: usize, len: usize) -> Vec<Instr> {
    let next = if pc + 1 == len {
        BranchTarget::End
    } else {
        BranchTarget::Inst((pc + 1) as u8)
    };
    let targets: Vec<BranchTarget> = (0..len as u8)
        .map(BranchTarget::Inst)
        .chain([BranchTarget::End])
        .filter(|&t| t != next)
        .collect();
    let mut out = Vec::new();
    for loc in 0..LOCATIONS as u8 {
        for value in 0..2 {
            out.push(Instr::Store { loc, value });
        }
    }
    for loc in 0..LOCATIONS as u8 {
        for check in 0..2 {
            for &target in &targets {
                out.push(Instr::Chk { loc, check, target });
            }
        }
    }
    for loc in 0..LOCATIONS as u8 {
        for check in 0..2 {
            for exch in 0..2 {
                for &target in &targets {
                    out.push(Instr::Exch {
                        loc,
                        check,
                        exch,
                        target,
                    });
                }
            }
        }
    }
    out
}

/// Every thread of `len` instructions, in order.
fn programs(len: usize) -> Vec<Vec<Instr>> {
    let mut out: Vec<Vec<Instr>> = vec![Vec::new()];
    for pc in 0..len {
        let letters = alphabet(pc, len);
        out = out
            .into_iter()
            .flat_map(|prefix| {
                letters.iter().map(move |&i| {
                    let mut p = prefix.clone();
                    p.push(i);
                    p
                })
            })
            .collect();
    }
    out
}

/// The ways to give `threads` threads `total` instructions, each at least one, in order.
fn compositions(threads: usize, total: usize) -> Vec<Vec<usize>> {
    if threads == 1 {
        return vec![vec![total]];
    }
    let mut out = Vec::new();
    for first in 1..=total.saturating_sub(threads - 1) {
        for mut rest in compositions(threads - 1, total - first) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

/// Cheap necessary conditions, before the transition system is built: a jump back (a
/// cycle needs one), every write to a location another thread branches on, and every
/// thread writing where another branches or branching where another writes.
fn may_qualify(threads: &[&Vec<Instr>]) -> bool {
    let back = threads.iter().any(|thread| {
        thread
            .iter()
            .enumerate()
            .any(|(pc, i)| matches!(i.branch(), Some((_, BranchTarget::Inst(t))) if usize::from(t) <= pc))
    });
    if !back {
        return false;
    }
    let mut writes = [0u8; LOCATIONS];
    let mut reads = [0u8; LOCATIONS];
    for (t, thread) in threads.iter().enumerate() {
        for i in thread.iter() {
            let loc = usize::from(i.loc());
            if i.writes().is_some() {
                writes[loc] |= 1 << t;
            }
            if i.branch().is_some() {
                reads[loc] |= 1 << t;
            }
        }
    }
    let mut involved = 0u8;
    for (t, thread) in threads.iter().enumerate() {
        let me = 1u8 << t;
        for i in thread.iter() {
            let loc = usize::from(i.loc());
            if i.writes().is_some() {
                if reads[loc] & !me == 0 {
                    return false;
                }
                involved |= me | reads[loc] & !me;
            }
            if i.branch().is_some() && writes[loc] & !me != 0 {
                involved |= me | writes[loc] & !me;
            }
        }
    }
    involved.count_ones() as usize == threads.len()
}

/// Whether a test meets the constraints (the module's list).
pub fn qualifies(test: &AxbTest) -> bool {
    let graph = Graph::of(test);
    let threads = test.threads();
    let n = graph.states.len();
    // Possible termination: every state reaches a final one (backwards from the finals).
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (s, out) in graph.edges.iter().enumerate() {
        for e in out {
            into[e.to as usize].push(s as u32);
        }
    }
    let mut reaches = vec![false; n];
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| graph.is_final(s)).collect();
    for &s in &stack {
        reaches[s as usize] = true;
    }
    while let Some(s) = stack.pop() {
        for &p in &into[s as usize] {
            if !reaches[p as usize] {
                reaches[p as usize] = true;
                stack.push(p);
            }
        }
    }
    if reaches.iter().any(|&r| !r) {
        return false;
    }
    // Every instruction executes; every branch goes both ways; threads influence each other.
    let mut ran: Vec<Vec<u8>> = threads.iter().map(|t| vec![0; t.len()]).collect();
    let mut influences: Vec<Vec<bool>> = threads.iter().map(|t| vec![false; t.len()]).collect();
    let mut involved = 0u8;
    for (s, out) in graph.edges.iter().enumerate() {
        let s = s as u32;
        let before = graph.memory(s);
        for e in out {
            ran[usize::from(e.thread)][usize::from(e.pc)] |= if e.taken { 2 } else { 1 };
            let after = graph.memory(e.to);
            for (t, thread) in threads.iter().enumerate() {
                if t == usize::from(e.thread) {
                    continue;
                }
                let pc = graph.pc(s, t);
                let Some(instr) = thread.get(pc) else {
                    continue;
                };
                let loc = usize::from(instr.loc());
                if instr.branch().is_some() && before[loc] != after[loc] {
                    involved |= (1 << t) | (1 << e.thread);
                    influences[usize::from(e.thread)][usize::from(e.pc)] = true;
                }
            }
        }
    }
    for ((thread, ran), influences) in threads.iter().zip(&ran).zip(&influences) {
        for ((instr, &how), &influences) in thread.iter().zip(ran).zip(influences) {
            let wanted = if instr.branch().is_some() { 3 } else { 1 };
            if how & wanted != wanted || (instr.writes().is_some() && !influences) {
                return false;
            }
        }
    }
    if involved.count_ones() as usize != threads.len() {
        return false;
    }
    // A cycle: some step stays in its strongly connected component.
    let (_, cyclic) = graph.components();
    cyclic.iter().any(|&c| c)
}

/// The suite within `bounds`, configuration by configuration, each in enumeration order.
pub fn generate(bounds: &Bounds) -> Vec<Generated> {
    let mut out = Vec::new();
    let mut by_len: Vec<Vec<Vec<Instr>>> = Vec::new();
    for (threads, total) in bounds.configurations() {
        let mut count = 0;
        for lens in compositions(threads, total) {
            for &len in &lens {
                while by_len.len() <= len {
                    by_len.push(programs(by_len.len()));
                }
            }
            let mut index = vec![0usize; threads];
            'tests: loop {
                let chosen: Vec<&Vec<Instr>> =
                    (0..threads).map(|t| &by_len[lens[t]][index[t]]).collect();
                if may_qualify(&chosen) {
                    let test = AxbTest::new(chosen.iter().map(|p| (*p).clone()).collect())
                        .expect("generated within the language's limits");
                    if test <= test.swap_locations() && qualifies(&test) {
                        count += 1;
                        out.push(Generated {
                            name: format!("{threads}t{total}i-{count:04}"),
                            threads,
                            instructions: total,
                            test,
                        });
                    }
                }
                // The next combination, the last thread fastest.
                for t in (0..threads).rev() {
                    index[t] += 1;
                    if index[t] < by_len[lens[t]].len() {
                        continue 'tests;
                    }
                    index[t] = 0;
                }
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{alphabet, compositions, programs, Bounds};

    #[test]
    fn the_seed_bounds_are_its_five_runs() {
        assert_eq!(
            Bounds::seed().configurations(),
            vec![(2, 2), (2, 3), (2, 4), (3, 3), (3, 4)]
        );
        assert_eq!(
            compositions(3, 4),
            vec![vec![1, 1, 2], vec![1, 2, 1], vec![2, 1, 1]]
        );
    }

    #[test]
    fn no_instruction_branches_to_where_it_would_go_anyway() {
        // One instruction: 4 stores, 4 reads and 8 exchanges that jump back to themselves.
        assert_eq!(alphabet(0, 1).len(), 16);
        assert_eq!(programs(2).len(), 28 * 28);
    }
}
