//! The recorded spec as files: spec.toml, with comments that say where each part came from,
//! the shaders as the program gave them, initial contents and expected read-backs as
//! little-endian words.

use crate::spec::{RecordedKind, RecordedSpec};
use std::fmt::Write;
use std::path::{Path, PathBuf};

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

/// `s` as a TOML basic string, through the TOML writer the `toml` crate itself writes with:
/// quotes, backslashes and every control character escaped, on one line, so that any label
/// or name a program gave parses back as itself.
fn toml_string(s: &str) -> String {
    use toml_writer::ToTomlValue;
    toml_writer::TomlStringBuilder::new(s)
        .as_basic()
        .to_toml_value()
}

/// An override's value as TOML writes a float (`inf`, `nan` included).
fn toml_float(value: f64) -> String {
    use toml_writer::ToTomlValue;
    value.to_toml_value()
}

/// `s` as a TOML key: bare where TOML allows, else quoted and escaped as a string is.
fn toml_key(s: &str) -> String {
    use toml_writer::ToTomlKey;
    toml_writer::TomlKeyBuilder::new(s)
        .as_default()
        .to_toml_key()
}

/// `s` within a comment, where TOML allows no control character but a tab: each one is
/// written as its escape (a line break too, so that a comment stays one line).
fn comment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The spec's files: spec.toml first.
pub fn render(spec: &RecordedSpec, origin: &Origin) -> Vec<SpecFile> {
    let mut files = Vec::new();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Recorded by `wgstress record` from: {}",
        comment(&origin.program)
    );
    if let Some(adapter) = &origin.adapter {
        let _ = writeln!(t, "# Adapter: {}", comment(adapter));
    }
    let _ =
        writeln!(
        t,
        "# The dispatches in the order the program submitted them; the checks are what it read \
         back after the last one{}.",
        if origin.recordings > 1 {
            format!(", in words that agreed over {} recordings", origin.recordings)
        } else {
            String::new()
        }
    );
    for note in &spec.notes {
        let _ = writeln!(t, "# Note: {}", comment(note));
    }
    let _ = writeln!(t, "name = {}", toml_string(&origin.name));
    // A shader the program read from a file is that file, so that a fix of the spec is a fix
    // of the program's own file; any other is written beside the spec as the program gave it.
    let shader_file = |i: usize| match (&spec.shaders[i].file, &origin.dir) {
        (Some(file), Some(dir)) => relative(dir, Path::new(file)),
        (Some(file), None) => file.clone(),
        (None, _) => format!("shader-{i}.wgsl"),
    };
    for (i, s) in spec.shaders.iter().enumerate() {
        match &s.file {
            Some(file) => {
                let _ = writeln!(
                    t,
                    "# shader {i}: the program read it from {}",
                    comment(file)
                );
            }
            None => files.push(SpecFile {
                path: shader_file(i),
                bytes: s.code.clone().into_bytes(),
            }),
        }
    }
    let first = spec.dispatches.first().map_or(0, |d| d.shader);
    let _ = writeln!(t, "shader = {}", toml_string(&shader_file(first)));
    if !spec.constants.is_empty() {
        let _ = writeln!(t, "\n[constants]");
        for (name, value) in &spec.constants {
            let _ = writeln!(t, "{} = {}", toml_key(name), toml_float(*value));
        }
    }
    for (i, d) in spec.dispatches.iter().enumerate() {
        let label = if d.label.is_empty() {
            String::new()
        } else {
            format!(", pipeline `{}`", comment(&d.label))
        };
        let _ = writeln!(t, "\n# dispatch {i}: at {}{label}", comment(&d.at));
        let _ = writeln!(t, "[[dispatch]]");
        if d.shader != first {
            let _ = writeln!(t, "shader = {}", toml_string(&shader_file(d.shader)));
        }
        if let Some(entry) = &d.entry {
            let _ = writeln!(t, "entry = {}", toml_string(entry));
        }
        let _ = writeln!(
            t,
            "workgroups = [{}, {}, {}]{}",
            d.workgroups[0],
            d.workgroups[1],
            d.workgroups[2],
            if d.indirect {
                "  # from its indirect buffer in this run"
            } else {
                ""
            }
        );
        if !d.bind.is_empty() {
            let map: Vec<String> = d
                .bind
                .iter()
                .map(|(group, slot, binding)| {
                    format!("{{ group = {group}, slot = {slot}, binding = {binding} }}")
                })
                .collect();
            let _ = writeln!(t, "bind = [{}]", map.join(", "));
        }
        for (group, binding, words) in &d.uniforms {
            let _ = writeln!(t, "[[dispatch.uniform]]");
            let _ = writeln!(t, "group = {group}\nbinding = {binding}");
            let words: Vec<String> = words.iter().map(u32::to_string).collect();
            let _ = writeln!(t, "words = [{}]", words.join(", "));
        }
    }
    for b in &spec.bindings {
        let label = if b.label.is_empty() {
            String::new()
        } else {
            format!(" `{}`", comment(&b.label))
        };
        let _ = writeln!(t, "\n# buffer{label} created at {}", comment(&b.at));
        let _ = writeln!(t, "[[binding]]");
        let _ = writeln!(t, "group = {}\nbinding = {}", b.group, b.binding);
        let kind = match b.kind {
            RecordedKind::Storage => "storage",
            RecordedKind::Uniform => "uniform",
        };
        let _ = writeln!(t, "kind = \"{kind}\"\nwords = {}", b.words);
        if !b.label.is_empty() {
            let _ = writeln!(t, "name = {}", toml_string(&b.label));
        }
        if let Some(init) = &b.init {
            let path = format!("init-{}-{}.bin", b.group, b.binding);
            let _ = writeln!(
                t,
                "init = {{ kind = \"file\", path = {} }}  # what the program wrote before the first dispatch",
                toml_string(&path)
            );
            files.push(SpecFile {
                path,
                bytes: le_bytes(init),
            });
        }
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
            let _ = writeln!(t, "\n# read back at {}{through}", comment(&c.at));
            let _ = writeln!(t, "[[check]]");
            let _ = writeln!(
                t,
                "name = {}",
                toml_string(&format!(
                    "read-back {i} of {}:{} [{start}..{}]",
                    c.group,
                    c.binding,
                    start + count
                ))
            );
            let _ = writeln!(t, "group = {}\nbinding = {}", c.group, c.binding);
            let _ = writeln!(t, "start = {start}\ncount = {count}");
            let _ = writeln!(t, "kind = \"equals-file\"\npath = {}", toml_string(&path));
        }
    }
    files.insert(
        0,
        SpecFile {
            path: "spec.toml".to_string(),
            bytes: t.into_bytes(),
        },
    );
    files
}
