//! wgstress-runtime: runs instrumented WGSL applications under memory stress on a real GPU,
//! checks every run and keeps statistics.

pub mod checks;
pub mod device;
pub mod error;
pub mod init;
pub mod interface;
pub mod layout;
pub mod params;
pub mod record;
pub mod session;
pub mod spec;
pub mod strategy;

pub use error::{Error, Result};
pub mod compare;
pub mod engine;
pub mod litmus;
pub mod log;
pub mod profile;
pub mod runner;
pub mod stats;
pub mod tally;
pub mod tune;
