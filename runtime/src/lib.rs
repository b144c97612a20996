//! wgstress-runtime: runs instrumented WGSL applications under memory stress on a real GPU,
//! checks every run and keeps statistics. It prints nothing: the run loop and tuning report
//! progress through callbacks, and the CLI shows tables, charts and progress bars.
//!
//! The modules by job (docs/architecture.md draws them):
//! - the model a session is built from: `spec` (applications), `init` (initial contents),
//!   `checks` (host checks), `strategy` (stress settings and per-run parameters), `profile`
//!   (tuned stress shapes), `error`, `read` (file reads bounded by what a file may hold);
//! - execution: `device` (adapters, error scopes, submit and read-back), `features` (the
//!   device features shaders need), `program` (an application's shaders instrumented, one
//!   unit per dispatch), `interface` (spec against shaders), `layout` and `params` (buffer layouts, parameter blocks), `session`
//!   (pipelines, buffers, batches), `engine` (a session that survives device loss, calibration),
//!   `runner` (the run loop), `log` (the JSON-lines log);
//! - analysis: `record` (a run's results block and its outcome), `tally` and `stats` (counts,
//!   rates, intervals), `compare` (strategies in interleaved rounds), `fences` (the search
//!   for the fences an application needs), `litmus` and `tune`
//!   (parallel litmus tests, tuning stress to a device).

pub mod checks;
pub mod error;
pub mod init;
pub mod profile;
pub mod read;
pub mod spec;
pub mod strategy;

pub mod device;
pub mod engine;
pub mod features;
pub mod interface;
pub mod layout;
pub mod log;
pub mod loop_limit;
pub mod pace;
pub mod params;
pub mod program;
pub mod runner;
pub mod session;

pub mod compare;
pub mod fences;
pub mod litmus;
pub mod record;
pub mod shapes;
pub mod stats;
pub mod tally;
pub mod tune;

pub use error::{Error, Result};
