//! Sessions of runs as data: each run's results block and outcome (`record`), counts, rates
//! and intervals (`tally`, `stats`), why runs ended early (`stop`), what calibration measured
//! (`calibration`), a session's budget and configuration (`run_config`), the watchdog's loop
//! limit learned from passing runs (`loop_limit`), what a session and a comparison report
//! (`summary`), the run loop's log lines (`log`), and what runs under each progress model
//! say (`progress`).

pub mod calibration;
pub mod holds;
pub mod log;
pub mod loop_limit;
pub mod progress_verdict;
pub mod results_block;
pub mod run_config;
pub mod stats;
pub mod stop;
pub mod summary;
pub mod tally;
