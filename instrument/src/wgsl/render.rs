//! Writing modules as WGSL: naga's writer, with types it cannot spell given structs first
//! (spell.rs), the directives the module needs at its head (directives.rs), and the names
//! the writer gives entry points (it renames one whose name WGSL predeclares, `step` to
//! `step_`, and a pipeline must ask for the name written).

use super::{directives, spell};
use crate::error::{InstrumentError, Result};
use crate::ir::pointers;
use crate::wgsl::shader::{parse_as_given, validate, validate_user};
use naga::back::wgsl::{write_string, WriterFlags};
use naga::proc::{CaseInsensitiveKeywordSet, NameKey, Namer};
use naga::valid::ModuleInfo;
use naga::Module;
use std::borrow::Cow;

/// Renders a module as WGSL with naga's back end, headed by the directives it needs: those
/// of `source` (the user's shader it came from, if any), and those its contents need. Types
/// WGSL cannot spell are given module structs first (spell.rs).
pub fn render(module: &Module, info: &ModuleInfo, source: Option<&str>) -> Result<String> {
    Ok(render_named(module, info, source)?.0)
}

/// `render`, and the name each entry point has in the WGSL written, in the module's order.
pub(crate) fn render_named(
    module: &Module,
    info: &ModuleInfo,
    source: Option<&str>,
) -> Result<(String, Vec<String>)> {
    let write = |module: &Module, info: &ModuleInfo| {
        let wgsl = write_string(module, info, WriterFlags::empty())
            .map_err(|e| InstrumentError::Write(e.to_string()))?;
        Ok::<_, InstrumentError>((wgsl, entry_names(module)))
    };
    let (wgsl, names) = match spell::respelled(module, info) {
        Some(spelled) => {
            let info =
                validate(&spelled).map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
            write(&spelled, &info)?
        }
        None => write(module, info)?,
    };
    Ok((directives::head(&wgsl, module, source), names))
}

/// The names naga's WGSL writer gives `module`'s entry points: its namer, as the writer
/// sets it up.
fn entry_names(module: &Module) -> Vec<String> {
    let mut names = naga::FastHashMap::default();
    Namer::default().reset(
        module,
        &naga::keywords::wgsl::RESERVED_SET,
        &naga::keywords::wgsl::BUILTIN_IDENTIFIER_SET,
        CaseInsensitiveKeywordSet::empty(),
        &["__", "_naga"],
        &mut names,
    );
    (0..module.entry_points.len())
        .map(|index| names[&NameKey::EntryPoint(index as u16)].clone())
        .collect()
}

/// A user's shader as wgpu compiles it in a raw run (no instrumentation).
pub struct Raw<'s> {
    /// `for_wgpu` of the source as given, or, where the shader passes pointers naga refuses
    /// to functions, the rewritten module as naga writes it (pointers.rs).
    pub wgsl: Cow<'s, str>,
    /// The entry points naga's writer renamed: (as given, as written).
    renamed: Vec<(String, String)>,
}

impl Raw<'_> {
    /// What the entry point the source calls `name` is called in `wgsl`.
    pub fn entry_point<'a>(&'a self, name: &'a str) -> &'a str {
        self.renamed
            .iter()
            .find(|(given, _)| given == name)
            .map_or(name, |(_, written)| written)
    }
}

/// The user's shader as wgpu compiles it in a raw run. Errors are those of `instrument_wgsl`.
pub fn raw_wgsl<'s>(source: &'s str, path: &str) -> Result<Raw<'s>> {
    let mut module = parse_as_given(source, path)?;
    if !pointers::specialize(&mut module) {
        validate_user(&module, Some(source), path)?;
        return Ok(Raw {
            wgsl: directives::for_naga(source),
            renamed: Vec::new(),
        });
    }
    let info = validate_user(&module, Some(source), path)?;
    let (wgsl, names) = render_named(&module, &info, Some(source))?;
    let renamed = module
        .entry_points
        .iter()
        .zip(names)
        .filter(|(e, written)| e.name != *written)
        .map(|(e, written)| (e.name.clone(), written))
        .collect();
    Ok(Raw {
        wgsl: Cow::Owned(directives::for_naga(&wgsl).into_owned()),
        renamed,
    })
}
