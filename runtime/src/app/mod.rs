//! What an application is, before any device: its spec (single kernels and pipelines of
//! dispatches, bindings, overrides), the initial contents of its buffers, the host checks
//! it declares, and what a failed check reports. Preparing and verifying the checks on a
//! device is `checks`.

pub mod check;
pub mod dims;
pub mod failure;
pub mod init;
pub mod spec;
mod tagged;
