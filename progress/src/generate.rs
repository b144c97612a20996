//! The suite: every test within bounds that meets the seed's synthesis constraints (§5.1-5.2),
//! enumerated exhaustively instead of searched for with a SAT solver, in a fixed order.
//!
//! Constraints, as decided on the test's transition system:
//! - well-formed (start state, always enabled, end state): by construction of the language;
//! - possible termination: from every reachable state the end (every thread terminated) is
//!   reachable;
//! - non-termination cycle: the transition system has a cycle (so no test is guaranteed to
//!   terminate under the unfair model);
//! - inter-thread influence, as the seed states it: "a store from one thread must be loaded by
//!   and influence the control flow of another thread". Per write, the seed's reading (§5.3,
//!   the mutex: "both stores of thread 0 can influence the control flow of thread 1", because
//!   thread 1 branches on the mutex): every instruction that writes writes a location that an
//!   instruction of another thread branches on, so it can influence that thread's control
//!   flow. Whether the value it writes ever changes that branch in an execution is not asked:
//!   a store that writes 0 over the 0 already there, or an exchange that changes the location
//!   only once the threads that branch on it have ended, is allowed, as in the seed's tests.
//!   The seed's redundant test t' (an instruction on a location nobody else reads) is not.
//!   And for the test as a whole: some write does change, in some execution, the branch that
//!   another thread is about to take. With every branch possible (below) this makes every
//!   thread take part: a thread's branch goes both ways only if someone writes its location,
//!   and a thread that writes is read by another;
//! - all branches possible: every instruction executes in some execution, and every branch is
//!   both taken and not taken in some execution;
//! - meaningful comparisons: an instruction whose target is the next instruction is a store
//!   (`atomic_store`), with no comparison; a read whose target is the next one does nothing
//!   but take a step and is not generated.
//!
//! Tests are kept up to symmetry: of a test and the one with its two locations swapped, only
//! the smaller (in the order of `AxbTest`) is kept. Threads are not permuted: HSA and LOBE order
//! threads by id.

use crate::axb::AxbTest;
use crate::explore::{Graph, StateId};
use crate::instr::{BranchTarget, Instr, LOCATIONS};

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

/// Whether every instruction that writes writes a location that an instruction of another
/// thread branches on: the seed's inter-thread influence, per write.
fn writes_are_read<T: AsRef<[Instr]>>(threads: &[T]) -> bool {
    let mut branches = [0u8; LOCATIONS];
    for (t, thread) in threads.iter().enumerate() {
        for i in thread.as_ref() {
            if i.branch().is_some() {
                branches[usize::from(i.loc())] |= 1 << t;
            }
        }
    }
    threads.iter().enumerate().all(|(t, thread)| {
        thread
            .as_ref()
            .iter()
            .all(|i| i.writes().is_none() || branches[usize::from(i.loc())] & !(1 << t) != 0)
    })
}

/// Cheap necessary conditions, before the transition system is built: a jump back (a cycle
/// needs one) and every write read by another thread's branch.
fn may_qualify(threads: &[&Vec<Instr>]) -> bool {
    let back = threads.iter().any(|thread| {
        thread
            .iter()
            .enumerate()
            .any(|(pc, i)| matches!(i.branch(), Some((_, BranchTarget::Inst(t))) if usize::from(t) <= pc))
    });
    back && writes_are_read(threads)
}

/// Whether a test meets the constraints (the module's list).
pub fn qualifies(test: &AxbTest) -> bool {
    let threads = test.threads();
    if !writes_are_read(threads) {
        return false;
    }
    let graph = Graph::of(test.threads());
    // Possible termination: every state reaches a final one (backwards from the finals).
    let into = graph.predecessors();
    let mut reaches = vec![false; graph.len()];
    let mut stack: Vec<StateId> = graph.ids().filter(|&s| graph.is_final(s)).collect();
    for &s in &stack {
        reaches[s as usize] = true;
    }
    while let Some(s) = stack.pop() {
        for &(p, _) in into.of(s) {
            if !reaches[p as usize] {
                reaches[p as usize] = true;
                stack.push(p);
            }
        }
    }
    if reaches.iter().any(|&r| !r) {
        return false;
    }
    // Every instruction executes; every branch goes both ways; some write changes the branch
    // another thread is about to take.
    let mut ran: Vec<Vec<u8>> = threads.iter().map(|t| vec![0; t.len()]).collect();
    let mut influence = false;
    for (s, e) in graph.steps() {
        ran[usize::from(e.thread)][usize::from(e.pc)] |= if e.taken { 2 } else { 1 };
        let (before, after) = (graph.memory(s), graph.memory(e.to));
        influence |= threads.iter().enumerate().any(|(t, thread)| {
            t != usize::from(e.thread)
                && thread.get(graph.pc(s, t)).is_some_and(|next| {
                    let loc = usize::from(next.loc());
                    next.branch().is_some() && before[loc] != after[loc]
                })
        });
    }
    let all_ran = threads.iter().zip(&ran).all(|(thread, ran)| {
        thread.iter().zip(ran).all(|(instr, &how)| {
            let wanted = if instr.branch().is_some() { 3 } else { 1 };
            how & wanted == wanted
        })
    });
    if !all_ran || !influence {
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
