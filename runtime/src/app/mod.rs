//! What an application is, as the runtime's callers name it: `wgstress_spec`'s modules,
//! re-exported where they have always been reached (`wgstress_runtime::app::spec::App`), so
//! that applications written in Rust and the macros that derive them need one dependency.

pub use wgstress_spec::{check, dims, failure, init};

/// The application and its spec file: `wgstress_spec::described`, and spec files read with
/// the runtime's errors.
pub mod spec {
    use std::path::Path;
    pub use wgstress_spec::described::*;
    pub use wgstress_spec::document::MAX_DISPATCHES;

    /// Reads an app spec (TOML). Paths inside it are relative to the spec file.
    pub fn load(path: &Path) -> crate::Result<App> {
        Ok(wgstress_spec::document::load(path)?)
    }

    /// Parses and validates an app spec read from `path`; errors point at the spec's line
    /// and column.
    pub fn parse(text: &str, path: &Path) -> crate::Result<App> {
        Ok(wgstress_spec::document::parse(text, path)?)
    }
}
