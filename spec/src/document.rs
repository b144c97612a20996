//! spec.toml as serde reads and writes it: one `Document` type for the runtime, which reads
//! a spec into an `App`, and for the recorder, which writes one (`written`). Reading refuses
//! unknown keys, and every error points at the spec's own line and column.

use crate::check::Check;
use crate::described::{App, BindAt, Binding, Dispatch, Invalid, ShaderFile, UniformWords};
use crate::dims::dims;
use crate::error::{Result, SpecError};
use crate::init::Init;
use crate::tagged::{names_of, Tagged, Untagged};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;
use wgstress_model::location::Location;

/// A spec.toml file, key for key. Paths are as written, relative to the spec's directory;
/// spans, kept where a later check reports at a place, compare equal whatever they are.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// The application's name in reports; the spec's file name when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The application's WGSL file.
    pub shader: PathBuf,
    /// A single kernel's entry point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<Spanned<String>>,
    /// The entry point that checks the application's results on the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postcondition: Option<String>,
    /// The file the postcondition lives in, when not `shader`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postcondition_shader: Option<PathBuf>,
    /// A single kernel's workgroup counts, 1 to 3 sizes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workgroups: Option<Spanned<Vec<u32>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postcondition_workgroups: Option<Spanned<Vec<u32>>>,
    /// Values of the shader's `override` declarations, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub constants: BTreeMap<String, f64>,
    /// A pipeline's dispatches, in order (`[[dispatch]]`).
    #[serde(default, rename = "dispatch", skip_serializing_if = "Vec::is_empty")]
    pub dispatches: Vec<Spanned<DispatchTable>>,
    #[serde(default, rename = "binding", skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Spanned<Binding>>,
    #[serde(default, rename = "check", skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Spanned<Check>>,
}

/// One `[[dispatch]]` of a pipeline.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchTable {
    /// The dispatch's own WGSL file; the spec's `shader` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shader: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    pub workgroups: Spanned<Vec<u32>>,
    /// Whether stress workgroups run beside it.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub stress: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bind: Vec<BindAt>,
    #[serde(default, rename = "uniform", skip_serializing_if = "Vec::is_empty")]
    pub uniforms: Vec<UniformWords>,
}

impl DispatchTable {
    /// A dispatch of `entry` (the shader's only one when `None`) over `workgroups`, with
    /// stress, its own bindings at their own slots and no uniform words of its own.
    pub fn new(entry: Option<String>, workgroups: [u32; 3]) -> DispatchTable {
        DispatchTable {
            shader: None,
            entry,
            workgroups: unspanned(workgroups.to_vec()),
            stress: true,
            bind: Vec::new(),
            uniforms: Vec::new(),
        }
    }
}

/// A value to write, which has no place in a file yet.
pub fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

fn is_yes(value: &bool) -> bool {
    *value
}

fn yes() -> bool {
    true
}

/// Reads an app spec (TOML). Paths inside it are relative to the spec file.
pub fn load(path: &Path) -> Result<App> {
    let text = wgstress_model::read::source(path)?;
    parse(&text, path)
}

/// Reads a shader file a spec names.
fn read_shader(path: &Path) -> Result<ShaderFile> {
    let source = wgstress_model::read::source(path)?;
    Ok(ShaderFile {
        path: path.display().to_string(),
        source,
    })
}

/// The single kernel's `workgroups`, or the pipeline's dispatches; never both.
enum Form {
    Single([u32; 3]),
    Pipeline(Vec<Dispatch>),
}

/// Parses and validates an app spec read from `path`; errors point at the spec's line and
/// column.
pub fn parse(text: &str, path: &Path) -> Result<App> {
    let spec = read(text, path)?;
    let at = |span: std::ops::Range<usize>| Location::of(path, text, span.start);
    let dir = path.parent().unwrap_or(Path::new("."));
    let form = form(&spec, &at)?;
    let postcondition_workgroups = match &spec.postcondition_workgroups {
        Some(d) => dims(d.get_ref()).map_err(|m| SpecError::Spec {
            at: at(d.span()),
            message: format!("postcondition_workgroups: {m}"),
        })?,
        None => [1, 1, 1],
    };
    let binding_spans: Vec<_> = spec.bindings.iter().map(Spanned::span).collect();
    let check_spans: Vec<_> = spec.checks.iter().map(Spanned::span).collect();
    let dispatch_spans: Vec<_> = spec.dispatches.iter().map(Spanned::span).collect();
    let workgroups_span = spec.workgroups.as_ref().map_or(0..0, Spanned::span);
    let mut bindings: Vec<Binding> = spec.bindings.into_iter().map(Spanned::into_inner).collect();
    for binding in &mut bindings {
        binding.init.resolve_paths(dir);
    }
    let mut checks: Vec<Check> = spec.checks.into_iter().map(Spanned::into_inner).collect();
    for check in &mut checks {
        check.resolve_paths(dir);
    }
    // The name is shown in every report and note: kept escaped, so that one holding a
    // terminal's escape sequence or a line break prints as text.
    let name = wgstress_model::escape::controls(&spec.name.unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "app".into())
    }));
    let shader_path = dir.join(&spec.shader);
    let (workgroups, pipeline) = match form {
        Form::Single(workgroups) => (workgroups, Vec::new()),
        Form::Pipeline(dispatches) => ([1, 1, 1], dispatches),
    };
    let app = App {
        name,
        shader_path: shader_path.display().to_string(),
        source: String::new(),
        entry: spec.entry.map(Spanned::into_inner),
        postcondition: spec.postcondition,
        workgroups,
        postcondition_workgroups,
        bindings,
        checks,
        host_check: None,
        host_reads: Vec::new(),
        constants: spec.constants.into_iter().collect(),
        pipeline,
        postcondition_shader: None,
    };
    app.validate().map_err(|invalid| {
        let span = match &invalid {
            Invalid::Workgroups(_) => workgroups_span.clone(),
            Invalid::Binding(i, _) => binding_spans[*i].clone(),
            Invalid::Check(i, _) => check_spans[*i].clone(),
            Invalid::Dispatch(i, _) => dispatch_spans.get(*i).cloned().unwrap_or(0..0),
        };
        SpecError::Spec {
            at: at(span),
            message: invalid.to_string(),
        }
    })?;
    // Read last: a spec's own mistakes are reported before a missing shader.
    for (i, binding) in app.bindings.iter().enumerate() {
        binding
            .init
            .check_file(binding.words)
            .map_err(|e| SpecError::Spec {
                at: at(binding_spans[i].clone()),
                message: format!("[[binding]] {}: init: {e}", i + 1),
            })?;
    }
    // An expected file is read as an init file is, bounded by the binding it checks, and
    // refused at its check's place.
    for (i, check) in app.checks.iter().enumerate() {
        if let crate::check::Rule::EqualsFile { path } = &check.rule {
            let words = app
                .binding(check.group, check.binding)
                .map_or(0, |b| b.words);
            Init::File { path: path.clone() }
                .check_file(words)
                .map_err(|e| SpecError::Spec {
                    at: at(check_spans[i].clone()),
                    message: format!("[[check]] {}: equals-file: {e}", i + 1),
                })?;
        }
    }
    let source = wgstress_model::read::source(&shader_path)?;
    let mut pipeline = app.pipeline.clone();
    for (dispatch, file) in pipeline.iter_mut().zip(&spec.dispatches) {
        if let Some(own) = &file.get_ref().shader {
            dispatch.shader = Some(read_shader(&dir.join(own))?);
        }
    }
    let postcondition_shader = match &spec.postcondition_shader {
        Some(file) => Some(read_shader(&dir.join(file))?),
        None => None,
    };
    Ok(App {
        source,
        pipeline,
        postcondition_shader,
        ..app
    })
}

/// The spec's document, as serde reads it: every error points at its own key or value.
pub fn read(text: &str, path: &Path) -> Result<Document> {
    Document::deserialize(toml::de::Deserializer::from(rewritten(text, path)?))
        .map_err(|e| SpecError::toml(path, text, e))
}

/// The parsed document with its internally tagged tables (each check's `kind`, each
/// binding's `init`) rewritten by `tagged` for serde.
fn rewritten<'i>(text: &'i str, path: &Path) -> Result<Spanned<toml::de::DeTable<'i>>> {
    let mut document =
        toml::de::DeTable::parse(text).map_err(|e| SpecError::toml(path, text, e))?;
    let untagged = |what: String| {
        move |u: Untagged| SpecError::Spec {
            at: Location::of(path, text, u.span.start),
            message: format!("{what}: {}", u.message),
        }
    };
    let (check, init) = (check_table(), init_table());
    for (index, table) in tables(document.get_mut(), "check").enumerate() {
        check
            .rewrite(table)
            .map_err(untagged(format!("[[check]] {}", index + 1)))?;
    }
    for (index, table) in tables(document.get_mut(), "binding").enumerate() {
        if let toml::de::DeValue::Table(binding) = table.get_mut() {
            if let Some(value) = binding.get_mut("init") {
                init.rewrite(value)
                    .map_err(untagged(format!("[[binding]] {}: init", index + 1)))?;
            }
        }
    }
    Ok(document)
}

/// The tables of the array `key` of `document` (none when it is not an array: serde says so).
fn tables<'a, 'i>(
    document: &'a mut toml::de::DeTable<'i>,
    key: &str,
) -> impl Iterator<Item = &'a mut Spanned<toml::de::DeValue<'i>>> {
    let items = match document.get_mut(key).map(Spanned::get_mut) {
        Some(toml::de::DeValue::Array(items)) => items.as_mut(),
        _ => &mut [],
    };
    items.iter_mut()
}

/// A `[[check]]`: the rule's `kind` and keys beside the check's own.
fn check_table() -> Tagged {
    Tagged {
        tag: "kind",
        own: names_of::<Check>(),
        into: Some("rule"),
        variants: names_of::<crate::check::Rule>(),
    }
}

/// A binding's `init`: its `kind` and that kind's keys.
fn init_table() -> Tagged {
    Tagged {
        tag: "kind",
        own: &[],
        into: None,
        variants: names_of::<Init>(),
    }
}

/// The `[[binding]]` and `[[check]]` tables of a spec's text, read as a spec reads them, the
/// rest left aside: a table or a check on its own, as documentation and tests write them.
#[derive(Debug, Deserialize)]
pub struct Tables {
    #[serde(default)]
    pub binding: Vec<Binding>,
    #[serde(default)]
    pub check: Vec<Check>,
}

/// The `[[binding]]` and `[[check]]` tables of `text`, or serde's message.
pub fn tables_from_str(text: &str) -> std::result::Result<Tables, String> {
    let document = rewritten(text, Path::new("spec.toml")).map_err(|e| e.to_string())?;
    Tables::deserialize(toml::de::Deserializer::from(document)).map_err(|e| e.message().into())
}

/// One check, written as a `[[check]]` table's keys.
pub fn check_from_str(text: &str) -> std::result::Result<Check, String> {
    let mut tables = tables_from_str(&format!("[[check]]\n{text}"))?;
    Ok(tables.check.remove(0))
}

/// One `init`, written as the inline table a `[[binding]]` gives it.
#[cfg(test)]
pub(crate) fn init_from_str(text: &str) -> std::result::Result<Init, String> {
    let binding = "[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1";
    let mut tables = tables_from_str(&format!("{binding}\ninit = {text}"))?;
    Ok(tables.binding.remove(0).init)
}

/// The most dispatches a spec's pipeline may hold: every dispatch is instrumented and its
/// pipeline compiled before the first run, so start-up grows with their count; this bound
/// keeps it within a minute on a CPU driver, far past the passes real pipelines chain.
pub const MAX_DISPATCHES: usize = 128;

/// Which form the spec takes; mixing them is an error at the first key of the other form.
fn form(spec: &Document, at: &dyn Fn(std::ops::Range<usize>) -> Location) -> Result<Form> {
    if !spec.dispatches.is_empty() {
        let mixed = spec
            .entry
            .as_ref()
            .map(|e| ("entry", e.span()))
            .or(spec.workgroups.as_ref().map(|w| ("workgroups", w.span())));
        if let Some((key, span)) = mixed {
            return Err(SpecError::Spec {
                at: at(span),
                message: format!(
                    "`{key}` at the top is the single-kernel form; with [[dispatch]] tables give it in each dispatch"
                ),
            });
        }
        if let Some(past) = spec.dispatches.get(MAX_DISPATCHES) {
            return Err(SpecError::Spec {
                at: at(past.span()),
                message: format!(
                    "[[dispatch]] {}: a pipeline holds at most {MAX_DISPATCHES} dispatches (each \
                     is instrumented and compiled as a pipeline of its own before the first run); \
                     this spec has {}",
                    MAX_DISPATCHES + 1,
                    spec.dispatches.len()
                ),
            });
        }
        let mut out = Vec::new();
        for (index, d) in spec.dispatches.iter().enumerate() {
            let file = d.get_ref();
            let workgroups = dims(file.workgroups.get_ref()).map_err(|m| SpecError::Spec {
                at: at(file.workgroups.span()),
                message: format!("[[dispatch]] {}: workgroups: {m}", index + 1),
            })?;
            out.push(Dispatch {
                // Read once the spec is known to be valid.
                shader: None,
                entry: file.entry.clone(),
                workgroups,
                stress: file.stress,
                uniforms: file.uniforms.clone(),
                bind: file.bind.clone(),
            });
        }
        return Ok(Form::Pipeline(out));
    }
    match &spec.workgroups {
        Some(w) => dims(w.get_ref())
            .map(Form::Single)
            .map_err(|m| SpecError::Spec {
                at: at(w.span()),
                message: format!("workgroups: {m}"),
            }),
        None => Err(SpecError::Spec {
            at: at(0..0),
            message: "give `workgroups` (a single kernel) or [[dispatch]] tables (a pipeline)"
                .into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(workgroups: [u32; 3]) -> App {
        App {
            workgroups,
            ..App::bare("t", "", [1; 3], Vec::new())
        }
    }

    #[test]
    fn workgroup_counts_are_checked_without_overflow() {
        assert!(app([1 << 16, 1 << 15, 1]).validate().is_ok());
        assert!(matches!(
            app([1 << 16, 1 << 15, 2]).validate(),
            Err(Invalid::Workgroups(_))
        ));
        assert!(matches!(
            app([u32::MAX; 3]).validate(),
            Err(Invalid::Workgroups(_))
        ));
    }
}
