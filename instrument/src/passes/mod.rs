//! The steps of instrumentation over the user's module, in lib.rs's order: overrides resolved
//! (overrides.rs), pointer parameters specialized away (ir/pointers.rs, which reading and
//! rendering WGSL use too), the user's names checked
//! and the entry points found (names.rs), assertion hooks redirected (hooks.rs), loops guarded
//! by the watchdog and the scheduler's step (watchdog.rs, with loop_state.rs and counters.rs
//! for what a loop's state is and barriers.rs for where control flow must stay uniform), and
//! the entry points wrapped (entry.rs). sites.rs numbers the places they instrument.

pub(crate) mod barriers;
pub(crate) mod counters;
pub(crate) mod entry;
pub(crate) mod holds;
pub(crate) mod hooks;
pub(crate) mod loop_state;
pub(crate) mod names;
pub(crate) mod overrides;
pub(crate) mod sites;
pub(crate) mod watchdog;
