//! Sessions of runs: the run loop (`runner`) with batches sized to the budget (`pace`), the
//! watchdog's learned loop limit (`loop_limit`), each run's results block decoded and
//! classified (`record`), failures counted and described (`tally`), and strategies compared in
//! interleaved rounds (`compare`). The data they produce is `wgstress_model::run`'s.

pub mod batch_tally;
pub mod compare;
pub mod pace;
pub mod runner;
pub mod stress_plan;
