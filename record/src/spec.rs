//! The spec a recording becomes, in memory: its shaders, dispatches, bindings and checks,
//! each with where in the program it came from.

use std::collections::BTreeMap;

/// A spec, in memory, with where each part came from.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedSpec {
    pub shaders: Vec<RecordedShader>,
    pub dispatches: Vec<RecordedDispatch>,
    pub bindings: Vec<RecordedBinding>,
    pub checks: Vec<RecordedCheck>,
    pub constants: BTreeMap<String, f64>,
    /// What the spec's header says besides where it came from: reads taken before the last
    /// dispatch, buffers whose read-backs differed between recordings, calls left out.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordedShader {
    pub code: String,
    /// The file the program read it from: the spec runs that file, so that a fix of the
    /// spec (`fences -o`, `--fix`) is a fix of the program's own file.
    pub file: Option<String>,
    pub label: String,
    pub at: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordedDispatch {
    /// Its shader, by its place in `RecordedSpec::shaders`.
    pub shader: usize,
    pub entry: Option<String>,
    pub workgroups: [u32; 3],
    /// (group, the shader's slot, the spec's binding) where the two numbers differ.
    pub bind: Vec<(u32, u32, u32)>,
    /// (group, binding, its first words) for this dispatch.
    pub uniforms: Vec<(u32, u32, Vec<u32>)>,
    pub label: String,
    pub at: String,
    /// The workgroup counts came from an indirect dispatch's buffer.
    pub indirect: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedKind {
    Storage,
    Uniform,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordedBinding {
    pub group: u32,
    pub binding: u32,
    pub kind: RecordedKind,
    pub words: u32,
    /// The initial contents, when the program wrote any before the first dispatch.
    pub init: Option<Vec<u32>>,
    pub label: String,
    pub at: String,
}

/// One read-back: the words of a binding the program saw after the last dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedCheck {
    pub group: u32,
    pub binding: u32,
    /// The checked words, each (index in the binding, value).
    pub words: Vec<(u32, u32)>,
    /// Where the program read them, and through which buffer.
    pub at: String,
    pub through: Option<String>,
}
