//! wgstress-runtime: runs instrumented WGSL applications under memory stress on a real GPU,
//! checks every run, keeps statistics, and is the device the fence search (`wgstress_fences`,
//! which has none) runs on. It prints nothing: the run loop and the fence search report
//! progress through events, and the CLI shows tables, charts and progress bars.
//!
//! The modules by job (docs/architecture.md draws them):
//! - `app`: what an application is (spec, initial contents, host checks);
//! - `stress`: what runs beside it (strategies, per-run parameters, shapes, profiles);
//! - `gpu`: the application on a device (pipelines, buffers, batches, the engine);
//! - `run`: sessions of runs (the run loop, pacing, the watchdog limit, log, tallies,
//!   statistics, comparisons);
//! - `fences`: the fence search's lab on a device, and an application as its parts.
//!
//! The data these produce and read (records, tallies, summaries, settings and run
//! parameters, outcomes) is `wgstress_model`'s, which has no device.

#![deny(unreachable_pub)]

pub mod app;
pub mod error;
pub mod fences;
pub mod gpu;
pub mod run;
pub mod stress;
pub mod write;

pub use app::spec::App;
pub use error::{Result, RuntimeError};
pub use gpu::engine::{Engine, EngineConfig};
pub use run::runner::{Budget, RunConfig};
