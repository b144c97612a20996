//! The libraries compute and the CLI shows: no library prints, and the runtime does not
//! depend on the presentation's crates.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_libraries_print_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for library in [
        "instrument/src",
        "runtime/src",
        "litmus/src",
        "apps/src",
        "macros/src",
        "campaign/src",
    ] {
        rust_files(&root.join(library), &mut files);
    }
    assert!(files.len() > 10, "found the sources");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for printer in ["println!", "eprintln!", "print!", "eprint!", "dbg!"] {
                assert!(
                    !code.contains(printer),
                    "{}:{}: {printer} in a library",
                    file.display(),
                    i + 1
                );
            }
        }
    }
}

#[test]
fn the_runtime_leaves_presentation_to_the_cli() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/Cargo.toml");
    let text = std::fs::read_to_string(manifest).unwrap();
    for crate_name in ["indicatif", "plotters"] {
        assert!(
            !text.lines().any(|l| l.trim_start().starts_with(crate_name)),
            "runtime/Cargo.toml depends on {crate_name}"
        );
    }
}
