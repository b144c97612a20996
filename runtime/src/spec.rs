//! Application descriptions: a TOML file for applications without Rust code, and the `App`
//! value that both TOML files and Rust applications (through `Application`) produce.

use crate::checks::Check;
use crate::error::{Error, Result};
use crate::init::Init;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    shader: PathBuf,
    entry: Option<String>,
    postcondition: Option<String>,
    workgroups: Vec<u32>,
    postcondition_workgroups: Option<Vec<u32>>,
    #[serde(default, rename = "binding")]
    bindings: Vec<Binding>,
    #[serde(default, rename = "check")]
    checks: Vec<Check>,
    #[serde(default)]
    constants: std::collections::BTreeMap<String, f64>,
}

/// Reads an app spec (TOML). Paths inside it are relative to the spec file.
pub fn load(path: &Path) -> Result<App> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path)
}

pub fn parse(text: &str, path: &Path) -> Result<App> {
    let spec: SpecFile = toml::from_str(text).map_err(|e| Error::Spec {
        path: path.display().to_string(),
        message: one_line(&e),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let shader_path = dir.join(&spec.shader);
    let source = std::fs::read_to_string(&shader_path).map_err(|e| Error::io(&shader_path, e))?;
    let spec_error = |message: String| Error::Spec {
        path: path.display().to_string(),
        message,
    };
    let workgroups = dims(&spec.workgroups).map_err(|m| spec_error(format!("workgroups: {m}")))?;
    let postcondition_workgroups = match &spec.postcondition_workgroups {
        Some(d) => dims(d).map_err(|m| spec_error(format!("postcondition_workgroups: {m}")))?,
        None => [1, 1, 1],
    };
    let mut bindings = spec.bindings;
    for binding in &mut bindings {
        binding.init.resolve_paths(dir);
    }
    let mut checks = spec.checks;
    for check in &mut checks {
        crate::checks::Prepared::resolve_paths(check, dir);
    }
    let name = spec.name.unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "app".into())
    });
    Ok(App {
        name,
        shader_path: shader_path.display().to_string(),
        source,
        entry: spec.entry,
        postcondition: spec.postcondition,
        workgroups,
        postcondition_workgroups,
        bindings,
        checks,
        host_check: None,
        host_reads: Vec::new(),
        constants: spec.constants.into_iter().collect(),
    })
}

fn dims(values: &[u32]) -> std::result::Result<[u32; 3], String> {
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

fn one_line(error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', " ");
    match error.span() {
        Some(span) => format!("{message} (at byte {})", span.start),
        None => message,
    }
}
