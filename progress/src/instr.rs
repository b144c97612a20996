//! The one instruction of the AXB language (the seed's §3): an atomic read of a shared
//! location with an optional write and an optional branch, in its three forms, and the bounds
//! of a test's shape. A test (axb.rs) is threads of these; its transition system
//! (explore.rs) steps them.

use serde::Serialize;
use std::fmt;

/// Shared locations: 0 and 1, each holding 0 or 1, both 0 at the start.
pub(crate) const LOCATIONS: usize = 2;
/// Threads a test may have (the oracle packs a state into 64 bits).
pub const MAX_THREADS: usize = 8;
/// Instructions a thread may have (a pc, one past the last included, fits 4 bits).
pub const MAX_INSTRUCTIONS: usize = 15;

/// Where a branch goes: an instruction of the same thread, or past its last (the thread ends).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub enum BranchTarget {
    Inst(u8),
    End,
}

impl BranchTarget {
    /// The program counter it sets in a thread of `len` instructions.
    pub(crate) fn pc(self, len: usize) -> usize {
        match self {
            BranchTarget::Inst(i) => usize::from(i),
            BranchTarget::End => len,
        }
    }
}

/// One AXB instruction: read a location, compare, maybe exchange, maybe jump.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub enum Instr {
    /// `atomic_exch_branch(L, C, E, T)`: exchange L with E; jump to T if the old value was C.
    Exch {
        loc: u8,
        check: u8,
        exch: u8,
        target: BranchTarget,
    },
    /// `atomic_chk_branch(L, C, T)`: read L; jump to T if it equals C.
    Chk {
        loc: u8,
        check: u8,
        target: BranchTarget,
    },
    /// `atomic_store(L, V)`: write V to L (the seed's AXB whose target is the next instruction).
    Store { loc: u8, value: u8 },
}

impl Instr {
    pub(crate) fn loc(self) -> u8 {
        match self {
            Instr::Exch { loc, .. } | Instr::Chk { loc, .. } | Instr::Store { loc, .. } => loc,
        }
    }

    /// The value it writes, if it writes.
    pub(crate) fn writes(self) -> Option<u8> {
        match self {
            Instr::Exch { exch, .. } => Some(exch),
            Instr::Store { value, .. } => Some(value),
            Instr::Chk { .. } => None,
        }
    }

    /// The comparison and its target, for the instructions that branch.
    pub(crate) fn branch(self) -> Option<(u8, BranchTarget)> {
        match self {
            Instr::Exch { check, target, .. } | Instr::Chk { check, target, .. } => {
                Some((check, target))
            }
            Instr::Store { .. } => None,
        }
    }

    /// Executes it at `pc` of a thread of `len` instructions on `mem`: the next pc and whether
    /// the branch was taken.
    pub fn step(self, pc: usize, len: usize, mem: &mut [u8; LOCATIONS]) -> (usize, bool) {
        let loc = usize::from(self.loc());
        let old = mem[loc];
        if let Some(value) = self.writes() {
            mem[loc] = value;
        }
        match self.branch() {
            Some((check, target)) if old == check => (target.pc(len), true),
            _ => (pc + 1, false),
        }
    }
}

impl fmt::Display for BranchTarget {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            BranchTarget::Inst(i) => write!(f, "{i}"),
            BranchTarget::End => f.write_str("END"),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Instr::Exch {
                loc,
                check,
                exch,
                target,
            } => write!(f, "atomic_exch_branch({loc}, {check}, {exch}, {target})"),
            Instr::Chk { loc, check, target } => {
                write!(f, "atomic_chk_branch({loc}, {check}, {target})")
            }
            Instr::Store { loc, value } => write!(f, "atomic_store({loc}, {value})"),
        }
    }
}
