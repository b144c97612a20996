//! What stress runs beside an application, described once: the strategies (`strategy`), the
//! progress models runs are scheduled under (`schedule`), systematic stress's access
//! sequences (`sequence`), a session's settings and each run's parameters drawn from its seed
//! (`params`), the adaptive shapes' records (`shapes`) and device profiles (`profile`).
//!
//! Adding a stress strategy is a change to this folder's files:
//! - strategy.rs: the variant, in `Strategy::ALL`, with its code, name and help, and in
//!   `Strategy::wgsl` its function's file and the statement that calls it;
//! - wgsl/NAME.wgsl: that function, over the library's scratchpad (`wgstress_scratch`,
//!   `wgstress_word`, `wgstress_sink`) and the run's `wgstress_params`;
//! - params.rs, only for a strategy with parameters of its own: what `RunParams::draw` draws
//!   for it and writes into the parameters block.
//!
//! Nothing else names the strategies one by one: the instrumenter's library writes each
//! function and its `case` from `Strategy::ALL`, the CLI offers `--strategy` from it, `compare`
//! runs every strategy in it, and logs and JSON carry its name. A strategy with options of its
//! own on the command line (as systematic's `--sequence` and cache's `--cache-mib`) adds them
//! to the CLI's src/options.rs and to the replay's src/present/replay.rs.

pub mod params;
pub mod profile;
pub mod schedule;
pub mod script;
pub mod sequence;
pub mod shape_summary;
pub mod strategy;
