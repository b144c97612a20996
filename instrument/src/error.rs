//! Errors the instrumenter reports, each one line that names the problem, starting with
//! `file:line:column: ` when it is about a place in the user's shader. A shader naga refuses
//! carries naga's whole reason on that line: the item it names and every error under it, down
//! to the one that says what is wrong.

use std::fmt;
use thiserror::Error;

/// A place in the user's shader: `file:line:column`, or the file alone when the module came
/// without source text (a Rust application's own module) or naga kept no span for the item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderLocation {
    pub file: String,
    /// 1-based line and column.
    pub position: Option<(u32, u32)>,
}

impl fmt::Display for ShaderLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

#[derive(Debug, Error)]
pub enum InstrumentError {
    /// The WGSL does not parse or does not validate.
    #[error("{summary}")]
    Shader {
        summary: String,
        line: Option<u32>,
        column: Option<u32>,
    },
    #[error("{file}: the shader has no @compute entry point")]
    NoComputeEntry { file: String },
    #[error(
        "{file}: the shader has several @compute entry points ({names}); pick one with --entry"
    )]
    AmbiguousEntry { file: String, names: String },
    #[error("{file}: no @compute entry point named `{name}` (the shader has: {available})")]
    UnknownEntry {
        file: String,
        name: String,
        available: String,
    },
    #[error("{file}: the postcondition `{name}` is the application entry point itself; name another @compute entry point")]
    PostconditionIsEntry { file: String, name: String },
    #[error(
        "{at}: `{name}` uses the prefix `wgstress_`, which is reserved for the instrumenter; rename it"
    )]
    NameClash { name: String, at: ShaderLocation },
    #[error("{at}: `wgstress_assert` must be declared as `fn wgstress_assert(cond: bool) {{}}`: {reason}")]
    BadAssertHook { reason: String, at: ShaderLocation },
    #[error(
        "the shader uses every bind group 0..{0}; wgstress needs one free group for its bindings"
    )]
    NoFreeBindGroup(u32),
    #[error("the shader uses bind group {0}, which wgstress needs for its bindings in every shader of the pipeline")]
    BindGroupTaken(u32),
    #[error("{file}: {message}")]
    Overrides { file: String, message: String },
    #[error("{at}: entry point `{entry}` sizes its workgroup with an override; give @workgroup_size constant values")]
    OverrideWorkgroupSize { entry: String, at: ShaderLocation },
    #[error(
        "{at}: entry point `{entry}` takes input `{what}`, which a compute shader cannot instrument"
    )]
    UnsupportedInput {
        entry: String,
        what: String,
        at: ShaderLocation,
    },
    #[error("{at}: the shader uses {what}, which wgstress cannot instrument yet")]
    Unsupported {
        what: &'static str,
        at: ShaderLocation,
    },
    #[error("fence site {site} does not exist: the entry point has {sites} candidate fence sites")]
    NoSuchFenceSite { site: u32, sites: usize },
    #[error("internal error: the instrumented module does not validate (please report this with the shader): {0}")]
    Internal(String),
    #[error("could not write WGSL: {0}")]
    Write(String),
}

pub(crate) type Result<T> = std::result::Result<T, InstrumentError>;

impl InstrumentError {
    /// The source line and column the error points at, if it has them.
    pub fn location(&self) -> Option<(u32, u32)> {
        match self {
            InstrumentError::Shader {
                line: Some(l),
                column: Some(c),
                ..
            } => Some((*l, *c)),
            InstrumentError::NameClash { at, .. }
            | InstrumentError::BadAssertHook { at, .. }
            | InstrumentError::OverrideWorkgroupSize { at, .. }
            | InstrumentError::UnsupportedInput { at, .. }
            | InstrumentError::Unsupported { at, .. } => at.position,
            InstrumentError::Shader { .. }
            | InstrumentError::NoComputeEntry { .. }
            | InstrumentError::AmbiguousEntry { .. }
            | InstrumentError::UnknownEntry { .. }
            | InstrumentError::PostconditionIsEntry { .. }
            | InstrumentError::NoFreeBindGroup(_)
            | InstrumentError::BindGroupTaken(_)
            | InstrumentError::Overrides { .. }
            | InstrumentError::NoSuchFenceSite { .. }
            | InstrumentError::Internal(_)
            | InstrumentError::Write(_) => None,
        }
    }
}
