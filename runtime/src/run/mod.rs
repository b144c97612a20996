//! Sessions of runs: the run loop (`runner`) with batches sized to the budget (`pace`), the
//! watchdog's learned loop limit (`loop_limit`), the JSON-lines log (`log`), each run's results
//! block and outcome (`record`), counts, rates and intervals (`tally`, `stats`), and strategies
//! compared in interleaved rounds (`compare`).

pub mod compare;
pub mod log;
pub mod loop_limit;
pub mod pace;
pub mod progress;
pub mod record;
pub mod runner;
pub mod stats;
pub mod stop;
pub mod summary;
pub mod tally;
