//! Application descriptions: a TOML file for applications without Rust code, and the `App`
//! value that both TOML files and Rust applications (through `Application`) produce.

use crate::app::check::Check;
use crate::app::dims::dims;
use crate::app::failure::CheckFailure;
use crate::app::init::Init;
use crate::app::tagged::{names_of, Tagged, Untagged};
use crate::error::{Result, RuntimeError};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;
use wgstress_model::location::Location;

/// How a binding is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingKind {
    /// `var<storage, read_write>` (or `read`): reset to its initial contents before every run.
    Storage,
    /// `var<uniform>`: written once.
    Uniform,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    #[serde(default)]
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    /// Size in 32-bit words.
    pub words: u32,
    #[serde(default)]
    pub init: Init,
    /// A name for reports; defaults to the shader's variable name.
    #[serde(default)]
    pub name: Option<String>,
}

/// A shader file: where it came from (for diagnostics and reports) and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct ShaderFile {
    pub path: String,
    pub source: String,
}

/// Words a dispatch gives a uniform binding instead of its initial contents (a pass index,
/// for example): the first `words.len()` words; the rest keep the binding's `init`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformWords {
    #[serde(default)]
    pub group: u32,
    pub binding: u32,
    pub words: Vec<u32>,
}

/// A dispatch's shader slot that gets another of the spec's bindings than its own number: in
/// bind group `group`, the shader's `@binding(slot)` is the spec's `[[binding]]` `binding`.
/// Ping-pong passes bind their two buffers at each other's slots on every other dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindAt {
    #[serde(default)]
    pub group: u32,
    pub slot: u32,
    pub binding: u32,
}

/// One dispatch of a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// The dispatch's own shader file; `None`: the application's.
    pub shader: Option<ShaderFile>,
    /// The entry point; may be left out when the shader has one compute entry point besides
    /// the postcondition.
    pub entry: Option<String>,
    pub workgroups: [u32; 3],
    /// Whether stress workgroups run beside this dispatch.
    pub stress: bool,
    pub uniforms: Vec<UniformWords>,
    /// Slots bound to other bindings than their own numbers; every other slot `s` of the
    /// shader gets binding `s`, unless that binding is bound at another slot.
    pub bind: Vec<BindAt>,
}

/// A host-side check over read-back buffers, for applications written in Rust: `Err` says
/// what failed (`CheckFailure::Message` in a closure's own words, `Postcondition` from the
/// `#[postconditions]` macro).
pub(crate) type HostCheck =
    Arc<dyn Fn(&Outputs) -> std::result::Result<(), CheckFailure> + Send + Sync>;

/// The contents of every binding after one run, as words, by (group, binding).
pub struct Outputs<'a> {
    pub(crate) buffers: Vec<((u32, u32), &'a [u32])>,
}

impl<'a> Outputs<'a> {
    pub fn new(buffers: Vec<((u32, u32), &'a [u32])>) -> Self {
        Outputs { buffers }
    }

    /// The words of binding `binding` in group `group`.
    pub fn get(&self, group: u32, binding: u32) -> Option<&'a [u32]> {
        self.buffers
            .iter()
            .find(|(key, _)| *key == (group, binding))
            .map(|(_, words)| *words)
    }
}

/// Everything the runtime needs to run one application.
#[derive(Clone)]
pub struct App {
    pub name: String,
    /// Where the shader came from (for diagnostics and reports).
    pub shader_path: String,
    pub source: String,
    pub entry: Option<String>,
    pub postcondition: Option<String>,
    pub workgroups: [u32; 3],
    pub postcondition_workgroups: [u32; 3],
    pub bindings: Vec<Binding>,
    pub checks: Vec<Check>,
    pub host_check: Option<HostCheck>,
    /// The bindings `host_check` reads; all storage bindings when empty.
    pub host_reads: Vec<(u32, u32)>,
    /// Values for the shader's `override` declarations, by name.
    pub constants: Vec<(String, f64)>,
    /// A pipeline: the dispatches of one run, in order. Empty for a single kernel (`entry`
    /// and `workgroups`); `validate` refuses an `entry` beside a pipeline.
    pub pipeline: Vec<Dispatch>,
    /// The file the postcondition entry point lives in, when not the application's shader.
    pub postcondition_shader: Option<ShaderFile>,
}

impl Binding {
    /// A storage binding of group 0 with no name of its own.
    pub fn storage(binding: u32, words: u32, init: Init) -> Binding {
        Binding {
            group: 0,
            binding,
            kind: BindingKind::Storage,
            words,
            init,
            name: None,
        }
    }
}

impl App {
    /// An application that is one kernel, `name` in `name.wgsl` of `source`, and `bindings`:
    /// no postcondition, checks, constants or pipeline (every field named once, here; for
    /// tests and for programs that build an application without a spec).
    pub fn bare(name: &str, source: &str, workgroups: [u32; 3], bindings: Vec<Binding>) -> App {
        App {
            name: name.into(),
            shader_path: format!("{name}.wgsl"),
            source: source.into(),
            entry: None,
            postcondition: None,
            workgroups,
            postcondition_workgroups: [1; 3],
            bindings,
            checks: Vec::new(),
            host_check: None,
            host_reads: Vec::new(),
            constants: Vec::new(),
            pipeline: Vec::new(),
            postcondition_shader: None,
        }
    }

    /// The data files the application reads besides its shaders, (what, path): bindings'
    /// `init` files, checks' `equals-file` files and reference kernels. No output may be one
    /// of them.
    pub fn data_files(&self) -> Vec<(&'static str, PathBuf)> {
        let inits = self.bindings.iter().filter_map(|b| match &b.init {
            Init::File { path } => Some(("a binding's init file", path.clone())),
            _ => None,
        });
        let checks = self.checks.iter().filter_map(|c| match &c.rule {
            crate::app::check::Rule::EqualsFile { path } => {
                Some(("a check's equals-file", path.clone()))
            }
            crate::app::check::Rule::Reference(crate::app::check::Reference {
                shader: Some(path),
                ..
            }) => Some(("a check's reference shader", path.clone())),
            _ => None,
        });
        inits.chain(checks).collect()
    }
}

impl App {
    /// The bindings that host checks read back after every run.
    pub fn checked_bindings(&self) -> Vec<(u32, u32)> {
        if self.host_check.is_some() && !self.host_reads.is_empty() {
            let mut keys = self.host_reads.clone();
            keys.extend(self.checks.iter().map(|c| (c.group, c.binding)));
            keys.sort();
            keys.dedup();
            return keys;
        }
        if self.host_check.is_some() {
            return self
                .bindings
                .iter()
                .filter(|b| b.kind == BindingKind::Storage)
                .map(|b| (b.group, b.binding))
                .collect();
        }
        let mut keys: Vec<(u32, u32)> = self.checks.iter().map(|c| (c.group, c.binding)).collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The dispatches of one run: the pipeline, or the single kernel as one dispatch.
    pub fn dispatches(&self) -> Vec<Dispatch> {
        if !self.pipeline.is_empty() {
            return self.pipeline.clone();
        }
        vec![Dispatch {
            shader: None,
            entry: self.entry.clone(),
            workgroups: self.workgroups,
            stress: true,
            uniforms: Vec::new(),
            bind: Vec::new(),
        }]
    }

    /// The shader a dispatch runs: its own, or the application's.
    pub fn shader_of<'a>(&'a self, dispatch: &'a Dispatch) -> (&'a str, &'a str) {
        match &dispatch.shader {
            Some(s) => (&s.path, &s.source),
            None => (&self.shader_path, &self.source),
        }
    }

    /// The most workgroups any dispatch has: stress is drawn and checked against it.
    pub fn max_groups(&self) -> u32 {
        self.dispatches()
            .iter()
            .map(|d| d.workgroups.iter().product::<u32>())
            .max()
            .unwrap_or(1)
    }

    pub(crate) fn binding(&self, group: u32, binding: u32) -> Option<&Binding> {
        self.bindings
            .iter()
            .find(|b| b.group == group && b.binding == binding)
    }
}

/// A Rust application: what `#[derive(Application)]` implements.
pub trait Application {
    fn app(&self) -> App;
}

/// Host-side postconditions over read-back buffers: what `#[postconditions]` implements.
pub trait Postconditions {
    /// The (group, binding) pairs `check` reads.
    fn reads(&self) -> Vec<(u32, u32)>;
    /// `Err` says which postcondition failed and what it said.
    fn check(&self, outputs: &Outputs) -> std::result::Result<(), CheckFailure>;
}

/// Most workgroups an application may dispatch: with as many stress workgroups again, the
/// count still fits the u32 the shader computes workgroup ids in.
pub(crate) const MAX_WORKGROUPS: u64 = 1 << 31;

/// Largest binding a spec may declare, in words (4 GiB): beyond any adapter's limit, and
/// refused before its initial contents are built on the host.
pub(crate) const MAX_WORDS: u32 = 1 << 30;

impl App {
    /// What a spec or a Rust application can get wrong without a device: a dispatch too large
    /// to count, a binding declared twice or too large, a check of an undeclared binding.
    /// `Err` is the message and the index of the binding or check it is about.
    pub fn validate(&self) -> std::result::Result<(), Invalid> {
        if !self.pipeline.is_empty() && self.entry.is_some() {
            return Err(Invalid::Dispatch(
                0,
                "give the entry point in each [[dispatch]], not beside them".into(),
            ));
        }
        for (index, dispatch) in self.dispatches().iter().enumerate() {
            // In u128: three u32 sizes multiply past u64.
            let groups: u128 = dispatch.workgroups.iter().map(|&g| u128::from(g)).product();
            if groups > u128::from(MAX_WORKGROUPS) {
                let message = format!(
                    "{} = {groups} workgroups; at most 2^31 (2147483648)",
                    dispatch.workgroups.map(|g| g.to_string()).join(" x ")
                );
                return Err(if self.pipeline.is_empty() {
                    Invalid::Workgroups(message)
                } else {
                    Invalid::Dispatch(index, format!("workgroups: {message}"))
                });
            }
            bind_is_valid(self, &dispatch.bind).map_err(|m| Invalid::Dispatch(index, m))?;
            for set in &dispatch.uniforms {
                let fits = self.binding(set.group, set.binding).is_some_and(|b| {
                    b.kind == BindingKind::Uniform && set.words.len() as u64 <= u64::from(b.words)
                });
                if !fits {
                    return Err(Invalid::Dispatch(
                        index,
                        format!(
                            "uniform {}:{} needs a [[binding]] of kind \"uniform\" with at least {} words",
                            set.group,
                            set.binding,
                            set.words.len()
                        ),
                    ));
                }
            }
        }
        for (index, b) in self.bindings.iter().enumerate() {
            let first = self
                .bindings
                .iter()
                .position(|o| (o.group, o.binding) == (b.group, b.binding));
            if first != Some(index) {
                return Err(Invalid::Binding(
                    index,
                    format!("binding {}:{} is declared twice", b.group, b.binding),
                ));
            }
            if b.words == 0 || b.words > MAX_WORDS {
                return Err(Invalid::Binding(
                    index,
                    format!(
                        "binding {}:{}: words = {}; give 1 to 2^30",
                        b.group, b.binding, b.words
                    ),
                ));
            }
            if let Err(m) = b.init.check(b.words) {
                let at = format!("binding {}:{}: init: {m}", b.group, b.binding);
                return Err(Invalid::Binding(index, at));
            }
        }
        for (index, check) in self.checks.iter().enumerate() {
            for (group, binding) in check.reads() {
                if self.binding(group, binding).is_none() {
                    return Err(Invalid::Check(
                        index,
                        format!(
                            "the check reads binding {group}:{binding}, which no [[binding]] declares"
                        ),
                    ));
                }
            }
            let words = |(g, b)| self.binding(g, b).map_or(0, |b| b.words);
            check
                .validate(&words)
                .map_err(|m| Invalid::Check(index, m))?;
        }
        Ok(())
    }

    /// Checks that each dispatch fits the adapter dimension by dimension, as a raw run
    /// dispatches it as given (an instrumented run spreads its workgroups over two dimensions,
    /// which `check_limits` bounds).
    pub(crate) fn check_dimensions(&self, limits: &wgpu::Limits) -> Result<()> {
        let max_dim = limits.max_compute_workgroups_per_dimension;
        for dispatch in self.dispatches() {
            if let Some(&g) = dispatch.workgroups.iter().find(|&&g| g > max_dim) {
                return Err(RuntimeError::Input(format!(
                    "{}: workgroups {:?} has {g} in one dimension, beyond this adapter's limit of {max_dim} (max_compute_workgroups_per_dimension): --raw dispatches the workgroups as given; spread them over more dimensions",
                    self.name, dispatch.workgroups
                )));
            }
        }
        Ok(())
    }

    /// Checks the application against the adapter's limits, before any buffer is made.
    pub(crate) fn check_limits(&self, limits: &wgpu::Limits) -> Result<()> {
        let max_dim = u64::from(limits.max_compute_workgroups_per_dimension);
        for dispatch in self.dispatches() {
            let groups: u128 = dispatch.workgroups.iter().map(|&g| u128::from(g)).product();
            if groups > u128::from(max_dim * max_dim) {
                return Err(RuntimeError::Input(format!(
                    "{}: {groups} workgroups are beyond this adapter's limit of {} (max_compute_workgroups_per_dimension squared)",
                    self.name,
                    max_dim * max_dim
                )));
            }
        }
        if let Some(d) = self
            .postcondition_workgroups
            .iter()
            .find(|&&d| u64::from(d) > max_dim)
        {
            return Err(RuntimeError::Input(format!(
                "{}: postcondition_workgroups has {d}, beyond this adapter's limit of {max_dim} per dimension",
                self.name
            )));
        }
        for b in &self.bindings {
            let bytes = u64::from(b.words) * 4;
            let (limit, name) = match b.kind {
                BindingKind::Storage => (
                    limits.max_storage_buffer_binding_size,
                    "max_storage_buffer_binding_size",
                ),
                BindingKind::Uniform => (
                    limits.max_uniform_buffer_binding_size,
                    "max_uniform_buffer_binding_size",
                ),
            };
            if bytes > limit {
                return Err(RuntimeError::Input(format!(
                    "{}: binding {}:{} of {bytes} bytes is beyond this adapter's limit of {limit} bytes ({name})",
                    self.name, b.group, b.binding
                )));
            }
        }
        Ok(())
    }
}

/// What is wrong with a dispatch's `bind` in `app`: a binding the spec does not declare, a
/// slot bound twice, a binding bound at two slots.
fn bind_is_valid(app: &App, bind: &[BindAt]) -> std::result::Result<(), String> {
    for (index, b) in bind.iter().enumerate() {
        if app.binding(b.group, b.binding).is_none() {
            return Err(format!(
                "bind: slot {}:{} takes binding {}:{}, which no [[binding]] declares",
                b.group, b.slot, b.group, b.binding
            ));
        }
        let earlier = &bind[..index];
        if earlier
            .iter()
            .any(|o| (o.group, o.slot) == (b.group, b.slot))
        {
            return Err(format!("bind: slot {}:{} is bound twice", b.group, b.slot));
        }
        if earlier
            .iter()
            .any(|o| (o.group, o.binding) == (b.group, b.binding))
        {
            return Err(format!(
                "bind: binding {}:{} is bound at two slots",
                b.group, b.binding
            ));
        }
    }
    Ok(())
}

/// What `App::validate` found wrong, and where.
#[derive(Debug, PartialEq)]
pub enum Invalid {
    Workgroups(String),
    /// The index of the binding, and what is wrong.
    Binding(usize, String),
    /// The index of the check, and what is wrong.
    Check(usize, String),
    /// The index of the dispatch, and what is wrong.
    Dispatch(usize, String),
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::Workgroups(m) => write!(f, "workgroups: {m}"),
            Invalid::Binding(i, m) => write!(f, "[[binding]] {}: {m}", i + 1),
            Invalid::Check(i, m) => write!(f, "[[check]] {}: {m}", i + 1),
            Invalid::Dispatch(i, m) => write!(f, "[[dispatch]] {}: {m}", i + 1),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    shader: PathBuf,
    entry: Option<Spanned<String>>,
    postcondition: Option<String>,
    postcondition_shader: Option<PathBuf>,
    workgroups: Option<Spanned<Vec<u32>>>,
    postcondition_workgroups: Option<Spanned<Vec<u32>>>,
    #[serde(default, rename = "dispatch")]
    dispatches: Vec<Spanned<DispatchFile>>,
    #[serde(default, rename = "binding")]
    bindings: Vec<Spanned<Binding>>,
    #[serde(default, rename = "check")]
    checks: Vec<Spanned<Check>>,
    #[serde(default)]
    constants: std::collections::BTreeMap<String, f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DispatchFile {
    shader: Option<PathBuf>,
    entry: Option<String>,
    workgroups: Spanned<Vec<u32>>,
    #[serde(default = "yes")]
    stress: bool,
    #[serde(default, rename = "uniform")]
    uniforms: Vec<UniformWords>,
    #[serde(default)]
    bind: Vec<BindAt>,
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
    let spec = spec_file(text, path)?;
    let at = |span: std::ops::Range<usize>| Location::of(path, text, span.start);
    let dir = path.parent().unwrap_or(Path::new("."));
    let form = form(&spec, &at)?;
    let postcondition_workgroups = match &spec.postcondition_workgroups {
        Some(d) => dims(d.get_ref()).map_err(|m| RuntimeError::Spec {
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
        RuntimeError::Spec {
            at: at(span),
            message: invalid.to_string(),
        }
    })?;
    // Read last: a spec's own mistakes are reported before a missing shader.
    for (i, binding) in app.bindings.iter().enumerate() {
        binding
            .init
            .check_file(binding.words)
            .map_err(|e| RuntimeError::Spec {
                at: at(binding_spans[i].clone()),
                message: format!("[[binding]] {}: init: {e}", i + 1),
            })?;
    }
    // An expected file is read as an init file is, bounded by the binding it checks, and
    // refused at its check's place.
    for (i, check) in app.checks.iter().enumerate() {
        if let crate::app::check::Rule::EqualsFile { path } = &check.rule {
            let words = app
                .binding(check.group, check.binding)
                .map_or(0, |b| b.words);
            Init::File { path: path.clone() }
                .check_file(words)
                .map_err(|e| RuntimeError::Spec {
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

/// The spec as serde reads it: every error points at its own key or value.
fn spec_file(text: &str, path: &Path) -> Result<SpecFile> {
    SpecFile::deserialize(toml::de::Deserializer::from(rewritten(text, path)?))
        .map_err(|e| RuntimeError::toml(path, text, e))
}

/// The parsed document with its internally tagged tables (each check's `kind`, each
/// binding's `init`) rewritten by `tagged` for serde.
fn rewritten<'i>(text: &'i str, path: &Path) -> Result<Spanned<toml::de::DeTable<'i>>> {
    let mut document =
        toml::de::DeTable::parse(text).map_err(|e| RuntimeError::toml(path, text, e))?;
    let untagged = |what: String| {
        move |u: Untagged| RuntimeError::Spec {
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
        variants: names_of::<crate::app::check::Rule>(),
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
/// rest left aside (tests of the kinds and of the documented examples).
#[cfg(test)]
#[derive(Deserialize)]
pub(crate) struct Tables {
    #[serde(default)]
    pub binding: Vec<Binding>,
    #[serde(default)]
    pub check: Vec<Check>,
}

#[cfg(test)]
pub(crate) fn tables_from_str(text: &str) -> std::result::Result<Tables, String> {
    let document = rewritten(text, Path::new("spec.toml")).map_err(|e| e.to_string())?;
    Tables::deserialize(toml::de::Deserializer::from(document)).map_err(|e| e.message().into())
}

/// One check, written as a `[[check]]` table's keys.
#[cfg(test)]
pub(crate) fn check_from_str(text: &str) -> std::result::Result<Check, String> {
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

/// Which form the spec takes; mixing them is an error at the first key of the other form.
/// The most dispatches a spec's pipeline may hold: every dispatch is instrumented and its
/// pipeline compiled before the first run, so start-up grows with their count; this bound
/// keeps it within a minute on a CPU driver, far past the passes real pipelines chain.
pub const MAX_DISPATCHES: usize = 128;

fn form(spec: &SpecFile, at: &dyn Fn(std::ops::Range<usize>) -> Location) -> Result<Form> {
    if !spec.dispatches.is_empty() {
        let mixed = spec
            .entry
            .as_ref()
            .map(|e| ("entry", e.span()))
            .or(spec.workgroups.as_ref().map(|w| ("workgroups", w.span())));
        if let Some((key, span)) = mixed {
            return Err(RuntimeError::Spec {
                at: at(span),
                message: format!(
                    "`{key}` at the top is the single-kernel form; with [[dispatch]] tables give it in each dispatch"
                ),
            });
        }
        if let Some(past) = spec.dispatches.get(MAX_DISPATCHES) {
            return Err(RuntimeError::Spec {
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
            let workgroups = dims(file.workgroups.get_ref()).map_err(|m| RuntimeError::Spec {
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
            .map_err(|m| RuntimeError::Spec {
                at: at(w.span()),
                message: format!("workgroups: {m}"),
            }),
        None => Err(RuntimeError::Spec {
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
