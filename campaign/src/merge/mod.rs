//! `wgstress merge`: the shards under some directories read (read.rs, each item's log by
//! its command in extract.rs), pooled (pool.rs) into one report (report.rs).

pub mod extract;
mod pool;
pub mod read;
pub mod report;

pub use pool::{merge, Options};
pub use read::read;
pub use report::Report;

#[cfg(test)]
mod tests;
