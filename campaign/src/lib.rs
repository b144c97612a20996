//! Campaigns: a plan of wgstress commands (plan/), dealt into deterministic shards
//! (shard.rs) by a stable hash with seeds derived from the plan (hash.rs), run per adapter as
//! child processes of the wgstress binary (execute.rs) that the signals stopping the shard
//! reach too (children.rs), each shard logging what ran where
//! (record.rs, layout.rs); and the merge of any number of shards, hosts and GPUs into one
//! report (merge/), judged against a baseline (baseline.rs, outcome.rs), shown as text or
//! HTML with SVG (render/). It prints nothing: progress comes back through events.

#![deny(unreachable_pub)]

pub mod baseline;
pub mod children;
mod error;
pub mod execute;
pub mod hash;
pub mod layout;
pub mod merge;
mod names;
pub mod outcome;
pub mod plan;
pub mod render;
pub mod shard;
pub mod shard_log;

pub use error::CampaignError;
