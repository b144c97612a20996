//! Parallel litmus tests: MP, SB, LB and the coherence tests, many instances per dispatch.

pub mod env;
pub mod runner;
pub mod shader;
pub mod test;
