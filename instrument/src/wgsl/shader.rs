//! The user's WGSL as naga sees it: parsed and validated with errors at file:line:column,
//! and modules rendered back to WGSL.

use crate::error::{InstrumentError, Result};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{Module, ShaderStage};

/// Parses WGSL (directives naga refuses set aside, pointer parameters naga refuses
/// rewritten); errors carry file:line:column and naga's rendering.
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
    naga::front::wgsl::parse_str(&crate::wgsl::directives::for_naga(source)).map_err(|e| {
        let location = e.location(source);
        shader_error(
            path,
            e.message(),
            location,
            e.emit_to_string_with_path(source, path),
        )
    })
}

/// Validates the user's module; errors carry file:line:column when the source is known.
pub(crate) fn validate_user(
    module: &Module,
    source: Option<&str>,
    path: &str,
) -> Result<ModuleInfo> {
    validate(module).map_err(|e| {
        let location = source.and_then(|s| e.location(s));
        let rendered =
            source.map_or_else(|| e.to_string(), |s| e.emit_to_string_with_path(s, path));
        shader_error(path, e.as_inner().to_string(), location, rendered)
    })
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
    rendered: String,
) -> InstrumentError {
    let summary = match location {
        Some(l) => format!("{path}:{}:{}: {message}", l.line_number, l.line_position),
        None => format!("{path}: {message}"),
    };
    InstrumentError::Shader {
        summary,
        rendered,
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
