//! wgstress-spec: what an application is, before any device, and spec.toml both ways.
//!
//! - `described`: the application (`App`): a single kernel or a pipeline of dispatches, its
//!   bindings, overrides and checks, and what is wrong with one (`Invalid`);
//! - `document`: spec.toml as serde reads and writes it (`Document`), read with every error
//!   at its file:line:column, and turned into an `App`;
//! - `written`: a `Document` written as TOML, with comments beside its tables (the recorder
//!   says where each part of a recorded program came from);
//! - `init`, `check`, `failure`: the initial contents of buffers, the host checks a spec
//!   declares, and what a failed check reports. Preparing and verifying the checks on a
//!   device is the runtime's.
//!
//! docs/specs.md is the reference for the file itself.

#![deny(unreachable_pub)]

pub mod check;
pub mod described;
pub mod dims;
pub mod document;
pub mod error;
pub mod failure;
pub mod init;
mod tagged;
pub mod written;

pub use described::App;
pub use document::Document;
pub use error::SpecError;
