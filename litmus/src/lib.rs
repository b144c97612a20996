//! wgstress-litmus: parallel litmus tests on a real GPU. The classic MP, SB, LB and coherence
//! tests and the MC Mutants suite (conformance tests and their mutants), many instances per
//! dispatch; the search for the environment that kills the most mutants; and `tune`, which
//! fits systematic stress to a device. It shares only the device, the error type, stress
//! sequences and profiles with wgstress-runtime, and prints nothing.
//!
//! Tests are data (`test`, `suite`): the WGSL (`shader`) and the outcome classes (`model`)
//! are derived from them; `catalog` lists them.

#![deny(unreachable_pub)]

pub mod axb_runs;
pub mod catalog;
pub mod choose;
mod env;
pub mod env_file;
mod model;
pub mod mutants;
pub mod runner;
pub mod search;
pub mod shader;
mod suite;
pub mod test;
pub mod tuning;
