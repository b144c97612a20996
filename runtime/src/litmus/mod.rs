//! Parallel litmus tests: the classic MP, SB, LB and coherence tests, and the MC Mutants
//! suite (conformance tests and their mutants), many instances per dispatch.

pub mod choose;
pub mod env;
pub mod env_file;
pub mod model;
pub mod mutants;
pub mod runner;
pub mod search;
pub mod shader;
pub mod suite;
pub mod test;
