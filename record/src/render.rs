//! The recorded spec as files: spec.toml, written through the spec crate's types with
//! comments that say where each part came from; the shaders as the program gave them;
//! initial contents and expected read-backs as little-endian words.

use crate::spec::{RecordedKind, RecordedSpec};
use std::path::{Path, PathBuf};
use wgstress_spec::check::{Check, Rule};
use wgstress_spec::described::{BindAt, Binding, BindingKind, UniformWords};
use wgstress_spec::document::{unspanned, DispatchTable, Document};
use wgstress_spec::init::Init;
use wgstress_spec::written::{write, Comments, Place, WriteError};

/// One file of a recorded spec, relative to its directory.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Where the recording came from, for the spec's header.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The application's name in reports.
    pub name: String,
    /// What was recorded: the command line or the page.
    pub program: String,
    pub adapter: Option<String>,
    /// How many recordings the spec's checks agree with.
    pub recordings: usize,
    /// The absolute directory the spec is written to: a shader the program read from a file
    /// is named by its path from there.
    pub dir: Option<PathBuf>,
}

/// `to` as a path from the directory `from`, both absolute; `to` itself where they share no
/// root.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return to.display().to_string();
    }
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for part in &to_parts[common..] {
        path.push(part);
    }
    path.display().to_string()
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The spec's files: spec.toml first, written through the spec's own types
/// (`wgstress_spec::Document`) with comments that say where each part came from.
pub fn render(spec: &RecordedSpec, origin: &Origin) -> Result<Vec<SpecFile>, WriteError> {
    let mut files = Vec::new();
    let mut comments = Comments::default();
    let mut top = |line: String| comments.above.push((Place::Top, line));
    top(format!(
        "Recorded by `wgstress record` from: {}",
        origin.program
    ));
    if let Some(adapter) = &origin.adapter {
        top(format!("Adapter: {adapter}"));
    }
    top(format!(
        "The dispatches in the order the program submitted them; the checks are what it read \
         back after the last one{}.",
        if origin.recordings > 1 {
            format!(
                ", in words that agreed over {} recordings",
                origin.recordings
            )
        } else {
            String::new()
        }
    ));
    for note in &spec.notes {
        top(format!("Note: {note}"));
    }
    // A shader the program read from a file is that file, so that a fix of the spec is a fix
    // of the program's own file; any other is written beside the spec as the program gave it.
    let shader_file = |i: usize| match (&spec.shaders[i].file, &origin.dir) {
        (Some(file), Some(dir)) => relative(dir, Path::new(file)),
        (Some(file), None) => file.clone(),
        (None, _) => format!("shader-{i}.wgsl"),
    };
    for (i, s) in spec.shaders.iter().enumerate() {
        match &s.file {
            Some(file) => top(format!("shader {i}: the program read it from {file}")),
            None => files.push(SpecFile {
                path: shader_file(i),
                bytes: s.code.clone().into_bytes(),
            }),
        }
    }
    let first = spec.dispatches.first().map_or(0, |d| d.shader);
    let mut document = Document {
        name: Some(origin.name.clone()),
        shader: shader_file(first).into(),
        entry: None,
        postcondition: None,
        postcondition_shader: None,
        workgroups: None,
        postcondition_workgroups: None,
        constants: spec.constants.clone(),
        dispatches: Vec::new(),
        bindings: Vec::new(),
        checks: Vec::new(),
    };
    for (i, d) in spec.dispatches.iter().enumerate() {
        let label = if d.label.is_empty() {
            String::new()
        } else {
            format!(", pipeline `{}`", d.label)
        };
        comments.above.push((
            Place::Dispatch(i),
            format!("dispatch {i}: at {}{label}", d.at),
        ));
        if d.indirect {
            comments.after.push((
                Place::Dispatch(i),
                "workgroups",
                "from its indirect buffer in this run".into(),
            ));
        }
        let mut table = DispatchTable::new(d.entry.clone(), d.workgroups);
        if d.shader != first {
            table.shader = Some(shader_file(d.shader).into());
        }
        table.bind = d
            .bind
            .iter()
            .map(|&(group, slot, binding)| BindAt {
                group,
                slot,
                binding,
            })
            .collect();
        table.uniforms = d
            .uniforms
            .iter()
            .map(|(group, binding, words)| UniformWords {
                group: *group,
                binding: *binding,
                words: words.clone(),
            })
            .collect();
        document.dispatches.push(unspanned(table));
    }
    for (i, b) in spec.bindings.iter().enumerate() {
        let label = if b.label.is_empty() {
            String::new()
        } else {
            format!(" `{}`", b.label)
        };
        comments.above.push((
            Place::Binding(i),
            format!("buffer{label} created at {}", b.at),
        ));
        let init = match &b.init {
            Some(init) => {
                let path = format!("init-{}-{}.bin", b.group, b.binding);
                comments.after.push((
                    Place::Binding(i),
                    "init",
                    "what the program wrote before the first dispatch".into(),
                ));
                files.push(SpecFile {
                    path: path.clone(),
                    bytes: le_bytes(init),
                });
                Init::File { path: path.into() }
            }
            None => Init::Zeros,
        };
        document.bindings.push(unspanned(Binding {
            group: b.group,
            binding: b.binding,
            kind: match b.kind {
                RecordedKind::Storage => BindingKind::Storage,
                RecordedKind::Uniform => BindingKind::Uniform,
            },
            words: b.words,
            name: (!b.label.is_empty()).then(|| b.label.clone()),
            init,
        }));
    }
    for (i, c) in spec.checks.iter().enumerate() {
        let binding = spec
            .bindings
            .iter()
            .find(|b| b.group == c.group && b.binding == c.binding);
        let size = binding.map_or(0, |b| b.words as usize);
        let mut expected = vec![0u32; size];
        for &(word, value) in &c.words {
            if let Some(slot) = expected.get_mut(word as usize) {
                *slot = value;
            }
        }
        let path = format!("expected-{i}.bin");
        files.push(SpecFile {
            path: path.clone(),
            bytes: le_bytes(&expected),
        });
        // Consecutive words checked are one [[check]]; a gap (words left out) starts another.
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let mut words: Vec<u32> = c.words.iter().map(|&(w, _)| w).collect();
        words.sort_unstable();
        words.dedup();
        for w in words {
            match runs.last_mut() {
                Some((start, count)) if *start + *count == w => *count += 1,
                _ => runs.push((w, 1)),
            }
        }
        let through = c
            .through
            .as_ref()
            .map(|b| format!(" through {b}"))
            .unwrap_or_default();
        for (start, count) in runs {
            comments.above.push((
                Place::Check(document.checks.len()),
                format!("read back at {}{through}", c.at),
            ));
            document.checks.push(unspanned(Check {
                name: Some(format!(
                    "read-back {i} of {}:{} [{start}..{}]",
                    c.group,
                    c.binding,
                    start + count
                )),
                group: c.group,
                binding: c.binding,
                words: None,
                start: Some(start),
                count: Some(count),
                stride: None,
                last: false,
                rule: Rule::EqualsFile {
                    path: path.clone().into(),
                },
            }));
        }
    }
    files.insert(
        0,
        SpecFile {
            path: "spec.toml".to_string(),
            bytes: write(&document, &comments)?.into_bytes(),
        },
    );
    Ok(files)
}
