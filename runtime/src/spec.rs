//! Application descriptions: a TOML file for applications without Rust code, and the `App`
//! value that both TOML files and Rust applications (through `Application`) produce.

use crate::checks::Check;
use crate::error::{Error, Result};
use crate::init::Init;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

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

/// A host-side check over read-back buffers, for applications written in Rust.
pub type HostCheck = Arc<dyn Fn(&Outputs) -> std::result::Result<(), String> + Send + Sync>;

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

    pub fn binding(&self, group: u32, binding: u32) -> Option<&Binding> {
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
    /// `Err` says what is wrong.
    fn check(&self, outputs: &Outputs) -> std::result::Result<(), String>;
}

/// Most workgroups an application may dispatch: with as many stress workgroups again, the
/// count still fits the u32 the shader computes workgroup ids in.
pub const MAX_WORKGROUPS: u64 = 1 << 31;

/// Largest binding a spec may declare, in words (4 GiB): beyond any adapter's limit, and
/// refused before its initial contents are built on the host.
pub const MAX_WORDS: u32 = 1 << 30;

impl App {
    /// What a spec or a Rust application can get wrong without a device: a dispatch too large
    /// to count, a binding declared twice or too large, a check of an undeclared binding.
    /// `Err` is the message and the index of the binding or check it is about.
    pub fn validate(&self) -> std::result::Result<(), Invalid> {
        // In u128: three u32 sizes multiply past u64.
        let groups: u128 = self.workgroups.iter().map(|&g| u128::from(g)).product();
        if groups > u128::from(MAX_WORKGROUPS) {
            return Err(Invalid::Workgroups(format!(
                "{} = {groups} workgroups; at most 2^31 (2147483648)",
                self.workgroups.map(|g| g.to_string()).join(" x ")
            )));
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
            check.validate(self).map_err(|m| Invalid::Check(index, m))?;
        }
        Ok(())
    }

    /// Checks the application against the adapter's limits, before any buffer is made.
    pub fn check_limits(&self, limits: &wgpu::Limits) -> Result<()> {
        let max_dim = u64::from(limits.max_compute_workgroups_per_dimension);
        let groups: u128 = self.workgroups.iter().map(|&g| u128::from(g)).product();
        if groups > u128::from(max_dim * max_dim) {
            return Err(Error::Input(format!(
                "{}: {groups} workgroups are beyond this adapter's limit of {} (max_compute_workgroups_per_dimension squared)",
                self.name,
                max_dim * max_dim
            )));
        }
        if let Some(d) = self
            .postcondition_workgroups
            .iter()
            .find(|&&d| u64::from(d) > max_dim)
        {
            return Err(Error::Input(format!(
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
                return Err(Error::Input(format!(
                    "{}: binding {}:{} of {bytes} bytes is beyond this adapter's limit of {limit} bytes ({name})",
                    self.name, b.group, b.binding
                )));
            }
        }
        Ok(())
    }
}

/// What `App::validate` found wrong, and where.
#[derive(Debug, PartialEq)]
pub enum Invalid {
    Workgroups(String),
    /// The index of the binding, and what is wrong.
    Binding(usize, String),
    /// The index of the check, and what is wrong.
    Check(usize, String),
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::Workgroups(m) => write!(f, "workgroups: {m}"),
            Invalid::Binding(i, m) => write!(f, "[[binding]] {}: {m}", i + 1),
            Invalid::Check(i, m) => write!(f, "[[check]] {}: {m}", i + 1),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    shader: PathBuf,
    entry: Option<String>,
    postcondition: Option<String>,
    workgroups: Spanned<Vec<u32>>,
    postcondition_workgroups: Option<Spanned<Vec<u32>>>,
    #[serde(default, rename = "binding")]
    bindings: Vec<Spanned<Binding>>,
    #[serde(default, rename = "check")]
    checks: Vec<Spanned<Check>>,
    #[serde(default)]
    constants: std::collections::BTreeMap<String, f64>,
}

/// Reads an app spec (TOML). Paths inside it are relative to the spec file.
pub fn load(path: &Path) -> Result<App> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path)
}

/// Parses and validates an app spec read from `path`; errors point at the spec's line and
/// column.
pub fn parse(text: &str, path: &Path) -> Result<App> {
    let spec: SpecFile = toml::from_str(text).map_err(|e| Error::toml(path, text, e))?;
    let at = |span: std::ops::Range<usize>| {
        let (line, column) = crate::error::line_column(text, span.start);
        format!("{}:{line}:{column}", path.display())
    };
    let workgroups = dims(spec.workgroups.get_ref()).map_err(|m| Error::Spec {
        at: at(spec.workgroups.span()),
        message: format!("workgroups: {m}"),
    })?;
    let postcondition_workgroups = match &spec.postcondition_workgroups {
        Some(d) => dims(d.get_ref()).map_err(|m| Error::Spec {
            at: at(d.span()),
            message: format!("postcondition_workgroups: {m}"),
        })?,
        None => [1, 1, 1],
    };
    let binding_spans: Vec<_> = spec.bindings.iter().map(Spanned::span).collect();
    let check_spans: Vec<_> = spec.checks.iter().map(Spanned::span).collect();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut bindings: Vec<Binding> = spec.bindings.into_iter().map(Spanned::into_inner).collect();
    for binding in &mut bindings {
        binding.init.resolve_paths(dir);
    }
    let mut checks: Vec<Check> = spec.checks.into_iter().map(Spanned::into_inner).collect();
    for check in &mut checks {
        crate::checks::Prepared::resolve_paths(check, dir);
    }
    let name = spec.name.unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "app".into())
    });
    let shader_path = dir.join(&spec.shader);
    let app = App {
        name,
        shader_path: shader_path.display().to_string(),
        source: String::new(),
        entry: spec.entry,
        postcondition: spec.postcondition,
        workgroups,
        postcondition_workgroups,
        bindings,
        checks,
        host_check: None,
        host_reads: Vec::new(),
        constants: spec.constants.into_iter().collect(),
    };
    app.validate().map_err(|invalid| {
        let span = match &invalid {
            Invalid::Workgroups(_) => spec.workgroups.span(),
            Invalid::Binding(i, _) => binding_spans[*i].clone(),
            Invalid::Check(i, _) => check_spans[*i].clone(),
        };
        Error::Spec {
            at: at(span),
            message: invalid.to_string(),
        }
    })?;
    // Read last: a spec's own mistakes are reported before a missing shader.
    let source = std::fs::read_to_string(&shader_path).map_err(|e| Error::io(&shader_path, e))?;
    Ok(App { source, ..app })
}

pub(crate) fn dims(values: &[u32]) -> std::result::Result<[u32; 3], String> {
    if values.is_empty() || values.len() > 3 {
        return Err(format!("give 1 to 3 sizes, not {}", values.len()));
    }
    if values.contains(&0) {
        return Err("every size must be at least 1".into());
    }
    let mut out = [1; 3];
    out[..values.len()].copy_from_slice(values);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(workgroups: [u32; 3]) -> App {
        App {
            name: "t".into(),
            shader_path: "t.wgsl".into(),
            source: String::new(),
            entry: None,
            postcondition: None,
            workgroups,
            postcondition_workgroups: [1; 3],
            bindings: Vec::new(),
            checks: Vec::new(),
            host_check: None,
            host_reads: Vec::new(),
            constants: Vec::new(),
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
