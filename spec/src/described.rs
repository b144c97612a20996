//! The `App` value that both spec files (`document`) and Rust applications (through
//! `Application`) produce, and what can be wrong with one before any device (`Invalid`).

use crate::check::Check;
use crate::failure::CheckFailure;
use crate::init::Init;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// How a binding is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingKind {
    /// `var<storage, read_write>` (or `read`): reset to its initial contents before every run.
    Storage,
    /// `var<uniform>`: written once.
    Uniform,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    #[serde(default)]
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    /// Size in 32-bit words.
    pub words: u32,
    /// A name for reports; defaults to the shader's variable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Init::is_zeros",
        serialize_with = "crate::init::tagged"
    )]
    pub init: Init,
}

/// A shader file: where it came from (for diagnostics and reports) and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct ShaderFile {
    pub path: String,
    pub source: String,
}

/// Words a dispatch gives a uniform binding instead of its initial contents (a pass index,
/// for example): the first `words.len()` words; the rest keep the binding's `init`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
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
pub type HostCheck = Arc<dyn Fn(&Outputs) -> std::result::Result<(), CheckFailure> + Send + Sync>;

/// The contents of every binding after one run, as words, by (group, binding).
pub struct Outputs<'a> {
    buffers: Vec<((u32, u32), &'a [u32])>,
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
            crate::check::Rule::EqualsFile { path } => {
                Some(("a check's equals-file", path.clone()))
            }
            crate::check::Rule::Reference(crate::check::Reference {
                shader: Some(path), ..
            }) => Some(("a check's reference shader", path.clone())),
            _ => None,
        });
        inits.chain(checks).collect()
    }
}

impl App {
    /// The bindings that host checks read back after every run.
    pub fn checked_bindings(&self) -> Vec<(u32, u32)> {
        self.read_bindings(&|_| true)
    }

    /// The bindings read back after every run where only the checks `on_host` names (by
    /// their index in `checks`) are verified on the host, beside `host_check`: a check
    /// verified on the device reads nothing back of its binding.
    pub fn read_bindings(&self, on_host: &dyn Fn(usize) -> bool) -> Vec<(u32, u32)> {
        let host = || {
            self.checks
                .iter()
                .enumerate()
                .filter(|(i, _)| on_host(*i))
                .map(|(_, c)| (c.group, c.binding))
        };
        if self.host_check.is_some() && !self.host_reads.is_empty() {
            let mut keys = self.host_reads.clone();
            keys.extend(host());
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
        let mut keys: Vec<(u32, u32)> = host().collect();
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
    /// `Err` says which postcondition failed and what it said.
    fn check(&self, outputs: &Outputs) -> std::result::Result<(), CheckFailure>;
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
