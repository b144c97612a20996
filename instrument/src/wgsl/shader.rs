//! The user's WGSL as naga sees it: parsed and validated with errors at file:line:column,
//! and modules rendered back to WGSL.

use crate::error::{InstrumentError, Result};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{Module, ShaderStage};

/// Parses WGSL (directives naga refuses set aside, pointer parameters naga refuses
/// rewritten); errors carry file:line:column and naga's whole reason.
pub(crate) fn parse(source: &str, path: &str) -> Result<Module> {
    crate::work::parsed();
    let mut module = parse_as_given(source, path)?;
    crate::ir::pointers::specialize(&mut module);
    Ok(module)
}

/// The module wgstress reads from `source`, as every pass sees it: directives naga refuses
/// set aside, pointer parameters specialised away. Errors carry `path`:line:column.
pub fn read_module(source: &str, path: &str) -> Result<Module> {
    parse(source, path)
}

/// `parse` without the rewrite of pointer parameters.
pub(crate) fn parse_as_given(source: &str, path: &str) -> Result<Module> {
    crate::wgsl::nesting::check(source, path)?;
    let module = naga::front::wgsl::parse_str(&crate::wgsl::directives::for_naga(source))
        .map_err(|e| shader_error(path, parse_reason(&e, source), e.location(source)))?;
    crate::wgsl::memory_bound::check(&module, source, path)?;
    Ok(module)
}

/// naga's parse error on one line: its message, the places its other labels point at (the
/// earlier definition of a name defined twice), and its notes.
fn parse_reason(error: &naga::front::wgsl::ParseError, source: &str) -> String {
    let mut parts = vec![error.message().to_string()];
    let mut others = error
        .labels()
        .skip(1)
        .filter(|(_, l)| !l.is_empty())
        .peekable();
    if others.peek().is_some() {
        let lines = crate::wgsl::lines::LineIndex::new(source);
        for (span, label) in others {
            let (line, column) = lines.position(span);
            parts.push(format!("{label} at {line}:{column}"));
        }
    }
    parts.extend(error.notes().map(str::to_string));
    parts.join("; ")
}

/// Validates the user's module; errors carry file:line:column when the source is known, and
/// naga's whole reason.
pub fn validate_user(module: &Module, source: Option<&str>, path: &str) -> Result<ModuleInfo> {
    validate(module).map_err(|e| {
        let location = source.and_then(|s| e.location(s));
        shader_error(path, validation_reason(e.as_inner()), location)
    })
}

/// naga's validation error and every error under it, on one line: the top one names only
/// the item ("Entry point main at Compute is invalid"), the last says what is wrong
/// ("Operation Add can't work with ... Uint ... Sint").
fn validation_reason(error: &naga::valid::ValidationError) -> String {
    let mut parts = vec![error.to_string()];
    let mut cause = std::error::Error::source(error);
    while let Some(e) = cause {
        parts.push(e.to_string());
        cause = e.source();
    }
    parts.join(": ")
}

/// Validates `module` as wgpu would.
pub fn validate(
    module: &Module,
) -> std::result::Result<ModuleInfo, Box<naga::WithSpan<naga::valid::ValidationError>>> {
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(module)
        .map_err(Box::new)
}

pub(crate) fn shader_error(
    path: &str,
    message: impl std::fmt::Display,
    location: Option<naga::SourceLocation>,
) -> InstrumentError {
    let summary = match location {
        Some(l) => format!("{path}:{}:{}: {message}", l.line_number, l.line_position),
        None => format!("{path}: {message}"),
    };
    InstrumentError::Shader {
        summary,
        line: location.map(|l| l.line_number),
        column: location.map(|l| l.line_position),
    }
}

/// `// wgstress: postcondition NAME` anywhere in the source.
pub(crate) fn postcondition_directive(source: &str) -> Option<String> {
    source.lines().find_map(|line| {
        let comment = line.trim_start().strip_prefix("//")?.trim_start();
        let rest = comment.strip_prefix("wgstress:")?.trim_start();
        let name = rest.strip_prefix("postcondition")?.trim();
        (!name.is_empty()).then(|| name.to_string())
    })
}

/// Whether `stage` is the compute stage.
pub(crate) fn is_compute(stage: ShaderStage) -> bool {
    stage == ShaderStage::Compute
}
