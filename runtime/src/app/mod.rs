//! What an application is, as the runtime's callers name it: `wgstress_spec`'s modules,
//! re-exported where they have always been reached (`wgstress_runtime::app::spec::App`), so
//! that applications written in Rust and the macros that derive them need one dependency.

pub use wgstress_spec::{check, dims, failure, init};

/// The application and its spec file: `wgstress_spec::described` and the reading half of
/// `wgstress_spec::document`.
pub mod spec {
    pub use wgstress_spec::described::*;
    pub use wgstress_spec::document::{load, parse, MAX_DISPATCHES};
}
