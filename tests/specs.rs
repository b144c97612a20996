//! The spec format as documented is the spec format the code accepts: every spec file under
//! examples/, apps/ and tests/fixtures/pipeline/ loads (the one that mixes the two forms with
//! the documented error), and so does every TOML block of docs/specs.md and the README, whole
//! specs as they are and fragments inside a minimal spec.

use std::path::{Path, PathBuf};
use wgstress_runtime::app::spec;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.toml` under `dir` but Cargo manifests.
fn specs_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") && !path.ends_with("node_modules") {
            specs_under(&path, found);
        } else if path.extension().is_some_and(|e| e == "toml") && !path.ends_with("Cargo.toml") {
            found.push(path);
        }
    }
}

#[test]
fn every_spec_file_loads() {
    let mut found = Vec::new();
    for dir in ["examples", "apps", "tests/fixtures/pipeline"] {
        specs_under(&root().join(dir), &mut found);
    }
    assert!(found.len() >= 6, "{found:?}");
    for path in found {
        let loaded = spec::load(&path);
        if path.ends_with("mixed.toml") {
            let e = loaded
                .err()
                .expect("mixing both forms is refused")
                .to_string();
            assert!(e.ends_with("mixed.toml:2:9: `entry` at the top is the single-kernel form; with [[dispatch]] tables give it in each dispatch"), "{e}");
            continue;
        }
        let app = loaded.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!app.dispatches().is_empty());
    }
}

/// The ```toml blocks of a Markdown file.
fn toml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// A fragment inside a minimal spec: the top-level keys it lacks, and bindings 0:0 to 0:5
/// (storage, storage, uniform, then storage) where it declares none of its own. A block with a
/// top-level `shader` (one before its first table) is a whole spec, taken as it is.
fn completed(block: &str) -> String {
    let whole = block
        .lines()
        .take_while(|l| !l.trim_start().starts_with('['))
        .any(|l| l.starts_with("shader ="));
    if whole {
        return block.to_string();
    }
    let mut spec = String::from("shader = \"app.wgsl\"\n");
    if !block.contains("[[dispatch]]") {
        spec.push_str("workgroups = [1]\n");
    }
    spec.push_str(block);
    let declares =
        |n: u32| block.contains("[[binding]]") && block.contains(&format!("binding = {n}\n"));
    for (n, kind, words) in [
        (0, "storage", 1024),
        (1, "storage", 1024),
        (2, "uniform", 4),
        (3, "storage", 1024),
        (4, "storage", 1024),
        (5, "storage", 1024),
    ] {
        if !declares(n) {
            spec.push_str(&format!(
                "\n[[binding]]\nbinding = {n}\nkind = \"{kind}\"\nwords = {words}\n"
            ));
        }
    }
    spec
}

#[test]
fn every_toml_block_of_the_docs_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["app.wgsl", "counter.wgsl", "check.wgsl"] {
        std::fs::write(dir.path().join(file), "").unwrap();
    }
    let mut checked = 0;
    for doc in ["docs/specs.md", "README.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (index, block) in toml_blocks(&text).iter().enumerate() {
            let spec_text = completed(block);
            let path = dir.path().join(format!("block{index}.toml"));
            spec::parse(&spec_text, &path)
                .unwrap_or_else(|e| panic!("{doc}, TOML block {}: {e}\n{spec_text}", index + 1));
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} blocks");
}
