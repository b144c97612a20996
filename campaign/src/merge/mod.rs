//! `wgstress merge`: the shards under some directories read (read.rs, each item's log by
//! its command in extract.rs), pooled (pool.rs) into one report (report.rs).

pub(crate) mod extract;
mod pool;
pub(crate) mod read;
pub(crate) mod report;

pub use pool::merge;
pub use read::read;
pub use report::MergedReport;

#[cfg(test)]
mod tests;
