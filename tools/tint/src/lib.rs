//! Test helper: validates WGSL with Tint, the WGSL compiler of Dawn and Chrome, so that the
//! project's tests can check that every shader wgstress emits is accepted by Tint as well as
//! by naga. Tint runs in one Node process per batch (`validate.mjs`, through the `webgpu`
//! package's Dawn bindings on Dawn's null backend), so a batch of shaders costs one start.
//!
//! A missing Node or package is a test failure, never a skip: see `INSTALL`.

#![deny(unreachable_pub)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to install the validator, for the failure message.
pub(crate) const INSTALL: &str =
    "Tint validator not installed: run `npm ci --prefix tools/tint` (needs Node 18 or later and npm)";

/// A shader to validate: its WGSL `code`, and the `name` Tint's errors for it are reported
/// under (as `name:line:col`), which must not contain ':'.
pub struct NamedWgsl {
    pub name: String,
    pub code: String,
}

impl NamedWgsl {
    pub fn new(name: impl Into<String>, code: impl Into<String>) -> Self {
        let name = name.into();
        assert!(!name.contains(':'), "shader name {name:?} contains ':'");
        NamedWgsl {
            name,
            code: code.into(),
        }
    }
}

/// Tint's errors (with their notes) for one shader, one `line:col: message` per entry.
#[derive(Debug)]
pub struct Rejected {
    pub name: String,
    pub messages: Vec<String>,
}

fn tool_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Validates every shader in one Node process; returns the rejected ones.
///
/// Panics with `INSTALL`'s message when Node or the `webgpu` package is missing.
pub fn validate(shaders: &[NamedWgsl]) -> Vec<Rejected> {
    let dir = tool_dir();
    if !dir.join("node_modules/webgpu/package.json").exists() {
        panic!("{INSTALL}");
    }
    let batch: Vec<serde_json::Value> = shaders
        .iter()
        .map(|s| {
            let mut entry = serde_json::Map::new();
            entry.insert("name".into(), s.name.clone().into());
            entry.insert("code".into(), s.code.clone().into());
            entry.into()
        })
        .collect();
    let mut child = Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg("--batch")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{INSTALL} (starting node: {e})"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = serde_json::Value::Array(batch).to_string();
    // Written from another thread: the validator may fill its stdout before reading all input.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("waiting for node");
    writer
        .join()
        .expect("writer thread")
        .expect("writing the batch to node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    match output.status.code() {
        Some(0) | Some(1) => {}
        _ => panic!(
            "Tint validator failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
    }
    let rejected = rejected_of(shaders, &stdout);
    assert_eq!(
        output.status.code() == Some(1),
        !rejected.is_empty(),
        "validator exit status and output disagree: {stdout}"
    );
    rejected
}

/// Groups the validator's `name:line:col: message` lines by shader.
fn rejected_of(shaders: &[NamedWgsl], stdout: &str) -> Vec<Rejected> {
    let mut rejected: Vec<Rejected> = Vec::new();
    for line in stdout.lines() {
        let Some(shader) = shaders.iter().find(|s| {
            line.strip_prefix(&s.name)
                .is_some_and(|r| r.starts_with(':'))
        }) else {
            panic!("validator output names no shader of the batch: {line}");
        };
        let message = line[shader.name.len() + 1..].to_string();
        match rejected.iter_mut().find(|r| r.name == shader.name) {
            Some(r) => r.messages.push(message),
            None => rejected.push(Rejected {
                name: shader.name.clone(),
                messages: vec![message],
            }),
        }
    }
    rejected
}

/// Panics listing every error if Tint rejects any of `shaders`.
pub fn assert_valid(shaders: &[NamedWgsl]) {
    assert!(!shaders.is_empty(), "no shaders to validate");
    let rejected = validate(shaders);
    if !rejected.is_empty() {
        let report: Vec<String> = rejected
            .iter()
            .flat_map(|r| r.messages.iter().map(move |m| format!("{}:{m}", r.name)))
            .collect();
        panic!(
            "Tint rejects {} of {} shaders:\n{}",
            rejected.len(),
            shaders.len(),
            report.join("\n")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_valid_shader_and_reports_an_invalid_one_by_name() {
        let good = "@compute @workgroup_size(1) fn main() {}";
        // Tint rejects a barrier under a condition on the local id; naga accepts it.
        let bad = "@compute @workgroup_size(2) fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u { workgroupBarrier(); }
}";
        let rejected = validate(&[NamedWgsl::new("good", good), NamedWgsl::new("bad", bad)]);
        assert_eq!(rejected.len(), 1);
        assert_eq!(rejected[0].name, "bad");
        assert!(
            rejected[0].messages[0].starts_with("2:18: 'workgroupBarrier' must only be called"),
            "{:?}",
            rejected[0].messages
        );
    }
}
