//! wgstress-progress: progress litmus tests, after "Specifying and Testing GPU Workgroup
//! Progress Models" (OOPSLA 2021). A test is threads of AXB instructions over two shared
//! boolean locations (`axb`); a progress model says which threads are guaranteed fair
//! execution in each state (`model`); the oracle explores a test's states and decides whether
//! the test is guaranteed to terminate under a model, with the starving execution as evidence
//! when not (`oracle`); `generate` enumerates the tests that meet the seed's synthesis
//! constraints, `suite` counts them as the seed's Table 4 does, and `wgsl` compiles a test to a
//! compute shader with bounded loops (`interpret`: one shader for every test of a thread count,
//! the test as data); `hold` says which hold of one workgroup must starve a
//! test under a model (what the scheduler emulation is checked against). Pure: no GPU, no printing.

#![deny(unreachable_pub)]

mod axb;
mod explore;
pub mod generate;
pub mod hold;
mod instr;
pub mod interpret;
pub mod model;
pub mod observe;
pub mod oracle;
pub mod sequential;
pub mod suite;
pub mod wgsl;

pub use axb::{AxbTest, ParseError};
pub use explore::MAX_STATES;
pub use instr::{BranchTarget, Instr, MAX_INSTRUCTIONS, MAX_THREADS};
pub use model::{Fairness, Model, ProgressScheduler};
pub use oracle::{EndlessExecution, TerminationVerdict};
