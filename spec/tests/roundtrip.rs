//! Every spec the project ships (examples/ and tests/fixtures/) reads as a `Document`, is
//! written back through the same types, and reads back equal: the reader and the writer
//! are one model of spec.toml.

use std::path::{Path, PathBuf};
use wgstress_spec::document::read;
use wgstress_spec::written::{write, Comments};

/// Fixtures that are specs written wrong on purpose, each with what is wrong: tests of the
/// reader's errors.
const BROKEN: &[(&str, &str)] = &[
    ("tests/fixtures/bad.toml", "not TOML"),
    ("tests/fixtures/quoted-value.toml", "a number in quotes"),
];

fn tomls(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            tomls(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

/// The workspace's spec files: its TOML files with a top-level `shader`, or broken on purpose.
fn specs(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures"] {
        tomls(&root.join(dir), &mut files);
    }
    files.sort();
    files.retain(|file| {
        let text = std::fs::read_to_string(file).unwrap();
        match text.parse::<toml::Table>() {
            Ok(table) => table.contains_key("shader"),
            Err(_) => true,
        }
    });
    files
}

#[test]
fn every_spec_reads_writes_and_reads_back_equal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = specs(&root);
    assert!(files.len() >= 50, "found {} specs", files.len());
    let mut failed = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let broken = BROKEN.iter().any(|(path, _)| *path == name);
        let document = match read(&text, file) {
            Ok(document) if broken => {
                failed.push(format!("{name}: read, but is listed as broken"));
                document
            }
            Ok(document) => document,
            Err(_) if broken => continue,
            Err(e) => {
                failed.push(format!("{name}: {e}"));
                continue;
            }
        };
        let written = match write(&document, &Comments::default()) {
            Ok(written) => written,
            Err(e) => {
                failed.push(format!("{name}: not written: {e}"));
                continue;
            }
        };
        match read(&written, file) {
            Ok(again) if again == document => {}
            Ok(again) => failed.push(format!(
                "{name}: reads back otherwise:\n{written}\n{document:#?}\n{again:#?}"
            )),
            Err(e) => failed.push(format!(
                "{name}: written, does not read back: {e}\n{written}"
            )),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
