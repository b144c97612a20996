//! What an application is, before any device: its spec (single kernels and pipelines of
//! dispatches, bindings, overrides), the initial contents of its buffers, and the host checks
//! of its outputs.

pub mod checks;
pub mod init;
pub mod spec;
