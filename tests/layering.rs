//! The libraries compute and the CLI shows: no library prints, and the runtime does not
//! depend on the presentation's crates. No module imports another that imports it back.

mod imports;

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
        "model/src",
        "spec/src",
        "instrument/src",
        "runtime/src",
        "fences/src",
        "litmus/src",
        "apps/src",
        "macros/src",
        "campaign/src",
        "progress/src",
        "record/src",
        "chromium/src",
        "device/src",
        "browser/src",
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

/// Import cycles that are known and owned by someone untying them now, each as the files
/// of its circle. Any other cycle fails its crate's test, and so does one of these once it
/// is gone or has changed: then take it off (or correct) this list.
const KNOWN: &[(&str, &[&str])] = &[];

/// Fails, naming each cycle and the names that tie it, when the crate whose root is `root`
/// (relative to the workspace) has an import cycle between its files that `KNOWN` does not
/// list, or lacks one that it lists.
fn assert_no_cycle(root: &str) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = imports::read_crate(&workspace.join(root)).cycles(workspace);
    let sources = format!("{}/", Path::new(root).parent().unwrap().display());
    let known: Vec<&(&str, &[&str])> = KNOWN
        .iter()
        .filter(|(_, files)| files[0].starts_with(&sources))
        .collect();
    let unknown: Vec<String> = found
        .iter()
        .filter(|c| !known.iter().any(|(_, files)| c.files[..] == files[..]))
        .map(|c| c.to_string())
        .collect();
    assert!(
        unknown.is_empty(),
        "import cycle(s) in the crate of {root}:\n{}",
        unknown.join("\n")
    );
    for (why, files) in known {
        assert!(
            found.iter().any(|c| c.files[..] == files[..]),
            "the known cycle of {} ({why}) is gone or has changed: take it off KNOWN in \
             tests/layering.rs",
            files.join(", ")
        );
    }
}

/// The cycles between siblings of any folder of the crate rooted at `root`: folders (or
/// files) that import each other, directly or through their other siblings.
fn folder_cycles(root: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    imports::read_crate(&root)
        .sibling_cycles(root.parent().unwrap())
        .iter()
        .map(|c| c.to_string())
        .collect()
}

#[test]
fn no_folder_climbs_into_another() {
    let mut found = Vec::new();
    for root in [
        "runtime/src/lib.rs",
        "fences/src/lib.rs",
        "instrument/src/lib.rs",
        "litmus/src/lib.rs",
        "progress/src/lib.rs",
        "model/src/lib.rs",
        "spec/src/lib.rs",
        "record/src/lib.rs",
        "chromium/src/lib.rs",
        "device/src/lib.rs",
        "browser/src/lib.rs",
        "log/src/lib.rs",
        "campaign/src/lib.rs",
        "apps/src/lib.rs",
        "src/main.rs",
    ] {
        found.extend(
            folder_cycles(root)
                .into_iter()
                .map(|c| format!("{root}: {c}")),
        );
    }
    assert!(
        found.is_empty(),
        "folders that import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_folder_that_climbs_is_named_although_its_files_do_not() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("lib.rs", "mod gpu;\nmod run;\n"),
        ("gpu/mod.rs", "mod device;\nmod engine;\n"),
        ("gpu/device.rs", "pub struct Device;\n"),
        (
            "gpu/engine.rs",
            "use crate::run::stop::Stop;\npub struct Engine(Stop);\n",
        ),
        ("run/mod.rs", "pub mod stop;\nmod runner;\n"),
        ("run/stop.rs", "pub struct Stop;\n"),
        (
            "run/runner.rs",
            "use crate::gpu::device::Device;\nfn f(_: Device) {}\n",
        ),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let graph = imports::read_crate(&dir.path().join("lib.rs"));
    assert!(
        graph.cycles(dir.path()).is_empty(),
        "no two files import each other"
    );
    let folders: Vec<String> = graph
        .sibling_cycles(dir.path())
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(folders, ["gpu -> run (Stop) -> gpu (Device)"]);
}

#[test]
fn no_import_cycle_in_the_model() {
    assert_no_cycle("model/src/lib.rs");
}

#[test]
fn no_import_cycle_in_the_runtime() {
    assert_no_cycle("runtime/src/lib.rs");
}

#[test]
fn no_import_cycle_in_the_fence_search() {
    assert_no_cycle("fences/src/lib.rs");
}

#[test]
fn no_import_cycle_in_litmus() {
    assert_no_cycle("litmus/src/lib.rs");
}

#[test]
fn no_import_cycle_in_campaign() {
    assert_no_cycle("campaign/src/lib.rs");
}

#[test]
fn no_import_cycle_in_apps() {
    assert_no_cycle("apps/src/lib.rs");
}

#[test]
fn no_import_cycle_in_macros() {
    assert_no_cycle("macros/src/lib.rs");
}

#[test]
fn no_import_cycle_in_the_cli() {
    assert_no_cycle("src/main.rs");
}

#[test]
fn no_import_cycle_in_the_spec() {
    assert_no_cycle("spec/src/lib.rs");
}

#[test]
fn no_import_cycle_in_record() {
    assert_no_cycle("record/src/lib.rs");
}

#[test]
fn no_import_cycle_in_the_browser_device() {
    assert_no_cycle("browser/src/lib.rs");
}

#[test]
fn no_import_cycle_in_chromium() {
    assert_no_cycle("chromium/src/lib.rs");
}

#[test]
fn no_import_cycle_in_instrument() {
    assert_no_cycle("instrument/src/lib.rs");
}

/// Writes the files `(path, text)` under a fresh directory and reads the crate rooted at
/// its lib.rs.
fn cycles_of_crate(files: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let graph = imports::read_crate(&dir.path().join("lib.rs"));
    graph
        .cycles(dir.path())
        .iter()
        .map(|c| c.to_string())
        .collect()
}

#[test]
fn a_cycle_through_re_exports_and_macros_is_named() {
    let found = cycles_of_crate(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\npub use a::A;\n"),
        ("a.rs", "pub struct A;\nfn f() { crate::b::make(); }\n"),
        ("b.rs", "use crate::c::C;\npub fn make() {}\n"),
        // Through a macro's arguments and the crate root's re-export, to the file that
        // defines A.
        (
            "c.rs",
            "pub struct C;\nfn g() { let _ = format!(\"{:?}\", crate::A); }\n",
        ),
        // One way only: d takes from a, nothing takes from d.
        (
            "d.rs",
            "#[doc = concat!(\"\", crate::a::NAME)]\npub struct D(crate::A);\n",
        ),
    ]);
    assert_eq!(found, ["a.rs -> b.rs (make) -> c.rs (C) -> a.rs (A)"]);
    let through_attribute = cycles_of_crate(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "pub const MAX: u32 = 1;\nuse crate::b::Error;\n"),
        (
            "b.rs",
            "#[derive(thiserror::Error)]\npub enum Error {\n\
             #[error(\"at most {max}\", max = crate::a::MAX)]\nTooMany,\n}\n",
        ),
    ]);
    assert_eq!(through_attribute, ["a.rs -> b.rs (Error) -> a.rs (MAX)"]);
}

#[test]
fn child_modules_count_as_their_files_and_test_modules_not_at_all() {
    let parent_and_child = cycles_of_crate(&[
        ("lib.rs", "mod parent;\n"),
        (
            "parent.rs",
            "mod child;\npub use child::Thing;\npub struct Shared;\n\
             #[cfg(test)]\nmod tests;\nmod inline { pub fn f() {} }\n\
             #[cfg(test)]\nmod unit { use super::*; }\n",
        ),
        (
            "parent/child.rs",
            "pub struct Thing;\nfn f() { crate::parent::inline::f(); }\n",
        ),
        ("parent/tests.rs", "use super::Shared;\n"),
    ]);
    // child -> parent (the inline module counts as its file), and parent -> child only
    // through its re-export: a cycle. The test modules that import their parent are not.
    assert_eq!(
        parent_and_child,
        ["parent.rs -> parent/child.rs (Thing) -> parent.rs (f)"]
    );
    let tests_only = cycles_of_crate(&[
        ("lib.rs", "mod parent;\n"),
        (
            "parent.rs",
            "mod child;\npub struct Shared;\n#[cfg(test)]\nmod tests;\n",
        ),
        ("parent/child.rs", "pub struct Thing;\n"),
        (
            "parent/tests.rs",
            "use super::child::Thing;\nuse super::Shared;\n",
        ),
    ]);
    assert!(tests_only.is_empty(), "{tests_only:?}");
}
