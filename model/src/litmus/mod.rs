//! Litmus tests' results as data: environments (`env`), what a test is for (`kind`), outcome
//! counts (`counts`), the MC Mutants suite's results and scores (`mutants`), the environment
//! search's candidates (`search`) and tuning's grids and evidence (`tune`).

pub mod counts;
pub mod env;
pub mod kind;
pub mod mutants;
pub mod search;
pub mod tune_grid;
