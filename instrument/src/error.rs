//! Errors the instrumenter reports. Shader diagnostics keep naga's rendering (file, line,
//! column, the source line); every other error is one line that names the problem.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The WGSL does not parse or does not validate.
    #[error("{summary}\n{rendered}")]
    Shader {
        summary: String,
        rendered: String,
        line: Option<u32>,
        column: Option<u32>,
    },
    #[error("the shader has no @compute entry point")]
    NoComputeEntry,
    #[error("the shader has several @compute entry points ({0}); pick one with --entry")]
    AmbiguousEntry(String),
    #[error("no @compute entry point named `{name}` (the shader has: {available})")]
    UnknownEntry { name: String, available: String },
    #[error("the postcondition `{0}` is the application entry point itself; name another @compute entry point")]
    PostconditionIsEntry(String),
    #[error(
        "`{0}` uses the prefix `wgstress_`, which is reserved for the instrumenter; rename it"
    )]
    NameClash(String),
    #[error("`wgstress_assert` must be declared as `fn wgstress_assert(cond: bool) {{}}`: {0}")]
    BadAssertHook(String),
    #[error(
        "the shader uses every bind group 0..{0}; wgstress needs one free group for its bindings"
    )]
    NoFreeBindGroup(u32),
    #[error("entry point `{0}` sizes its workgroup with an override; give @workgroup_size constant values")]
    OverrideWorkgroupSize(String),
    #[error(
        "entry point `{entry}` takes input `{what}`, which a compute shader cannot instrument"
    )]
    UnsupportedInput { entry: String, what: String },
    #[error("the shader uses {0}, which wgstress cannot instrument yet")]
    Unsupported(&'static str),
    #[error("internal error: the instrumented module does not validate (please report this with the shader): {0}")]
    Internal(String),
    #[error("could not write WGSL: {0}")]
    Write(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The source position of a shader error, if it has one.
    pub fn location(&self) -> Option<(u32, u32)> {
        match self {
            Error::Shader {
                line: Some(l),
                column: Some(c),
                ..
            } => Some((*l, *c)),
            _ => None,
        }
    }
}
