//! The user guide's CLI reference (docs/reference/) is what the command line says (issue 57):
//! the pages `wgstress reference --markdown` writes from the clap definitions, committed as
//! they are, every option of each command's `--help` on its page, every page a chapter of the
//! book's SUMMARY.md; and `--man` writes a man page per command. When the help changes, make
//! the pages again with `WGSTRESS_BLESS=1 cargo test --test cli_reference` and commit them.

mod common;

use common::wgstress;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BLESS: &str = "WGSTRESS_BLESS=1 cargo test --test cli_reference";

/// How every generated page begins: what marks a file of docs/reference/ as one to replace.
const GENERATED: &str = "<!-- Generated from wgstress's clap definitions";

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

fn stdout(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(args, dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "wgstress {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The markdown files of `dir`, by name.
fn markdown_files(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    files
}

/// The pages `wgstress reference --markdown` writes now.
fn generated() -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reference");
    let listed = stdout(&["reference", "--markdown", out.to_str().unwrap()]);
    let pages = markdown_files(&out);
    assert_eq!(
        listed.lines().count(),
        pages.len(),
        "one line per page: {listed}"
    );
    pages
}

/// The commands `wgstress --help` lists, but `help`.
fn commands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let listing = help
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists the commands");
    let commands: Vec<String> = listing
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() > 10, "{commands:?}");
    commands
}

#[test]
fn the_committed_reference_is_what_the_help_generates() {
    let dir = docs().join("reference");
    let fresh = generated();
    if std::env::var_os("WGSTRESS_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        // Generated pages no command has any more go; any other file there stays.
        for (name, text) in markdown_files(&dir) {
            if text.starts_with(GENERATED) && !fresh.contains_key(&name) {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
        }
        for (name, text) in &fresh {
            std::fs::write(dir.join(name), text).unwrap();
        }
        return;
    }
    assert!(
        dir.is_dir(),
        "docs/reference/ is missing: make it with `{BLESS}`"
    );
    let committed = markdown_files(&dir);
    let mut differences = Vec::new();
    for (name, text) in &fresh {
        match committed.get(name) {
            None => differences.push(format!("{name}: missing")),
            Some(old) if old != text => {
                let line = old
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(old.lines().count().min(text.lines().count()));
                differences.push(format!("{name}: differs from line {}", line + 1));
            }
            Some(_) => {}
        }
    }
    for (name, text) in &committed {
        if text.starts_with(GENERATED) && !fresh.contains_key(name) {
            differences.push(format!("{name}: no command has this page any more"));
        }
    }
    assert!(
        differences.is_empty(),
        "docs/reference/ is not what the help says ({}): make it again with `{BLESS}` and commit it",
        differences.join("; ")
    );
}

/// The argument and option names (`<APP>`, `-o`, `--output`) of a `--help` text: clap lists
/// each on a line of its own, indented by 2 (6 for a long option without a short one), its
/// names first; help on lines of their own is indented further.
fn help_options(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in help.lines() {
        let indent = line.len() - line.trim_start().len();
        let line = line.trim_start();
        if !(2..=6).contains(&indent) {
            continue;
        }
        if line.starts_with(['<', '[']) {
            let end = line.find(['>', ']']).map_or(line.len(), |i| i + 1);
            names.push(line[..end].to_string());
            continue;
        }
        if !line.starts_with('-') {
            continue;
        }
        let head = line.split("  ").next().unwrap_or_default();
        for name in head.split(", ") {
            let name = name.split([' ', '=', '[', '<']).next().unwrap_or_default();
            if name.starts_with('-') && name.len() > 1 {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[test]
fn every_page_holds_its_commands_help() {
    let pages = generated();
    let mut missing = Vec::new();
    let root = std::iter::once(None);
    for command in root.chain(commands().into_iter().map(Some)) {
        let (file, args) = match &command {
            None => ("wgstress.md".to_string(), vec!["--help"]),
            Some(c) => (format!("wgstress-{c}.md"), vec![c.as_str(), "--help"]),
        };
        let Some(page) = pages.get(&file) else {
            missing.push(format!("{file}: no page"));
            continue;
        };
        let help = stdout(&args);
        let usage = help
            .lines()
            .find(|l| l.starts_with("Usage: "))
            .expect("a usage line");
        if !page.contains(usage) {
            missing.push(format!("{file}: `{usage}`"));
        }
        let options = help_options(&help);
        assert!(options.iter().any(|o| o == "--help"), "{file}: {options:?}");
        for option in options {
            // A name starts a code span: `--runs <RUNS>`, `-o`, `[FILE]...`.
            let start = format!("`{option}");
            let named = page.match_indices(&start).any(|(i, _)| {
                let next = page[i + start.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            });
            if !named {
                missing.push(format!("{file}: {option}"));
            }
        }
        if let Some(c) = &command {
            let link = format!("[`wgstress {c}`](wgstress-{c}.md)");
            if !pages["wgstress.md"].contains(&link) {
                missing.push(format!("wgstress.md: no link {link}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "pages lack what --help says: {missing:?}"
    );
}

/// The files SUMMARY.md's chapters point at.
fn summary_links(summary: &str) -> Vec<String> {
    summary
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_book_holds_every_reference_page_and_its_chapters_exist() {
    let summary = std::fs::read_to_string(docs().join("SUMMARY.md")).unwrap();
    let links = summary_links(&summary);
    for name in generated().keys() {
        let link = format!("reference/{name}");
        assert!(
            links.contains(&link),
            "docs/SUMMARY.md has no chapter {link}"
        );
    }
    for link in &links {
        assert!(
            docs().join(link).is_file(),
            "docs/SUMMARY.md's chapter {link} is not a file under docs/"
        );
    }
    let mut unique = links.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), links.len(), "a chapter twice: {links:?}");
}

#[test]
fn man_pages_for_every_command_and_none_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man1");
    let listed = stdout(&["reference", "--man", man.to_str().unwrap()]);
    let mut expected = vec!["wgstress.1".to_string()];
    expected.extend(commands().iter().map(|c| format!("wgstress-{c}.1")));
    for name in &expected {
        let page = std::fs::read_to_string(man.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}; wrote {listed}"));
        assert!(page.contains("\n.TH "), "{name} is no man page: {page}");
    }
    assert_eq!(listed.lines().count(), expected.len(), "{listed}");
    let run = std::fs::read_to_string(man.join("wgstress-run.1")).unwrap();
    assert!(run.contains("\\-\\-until\\-failures"), "{run}");

    // A second time, into the same directory: refused, and the pages there left as they were.
    std::fs::write(man.join("wgstress-run.1"), "mine").unwrap();
    let out = wgstress(&["reference", "--man", man.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("wgstress: error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("replaces no file"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(man.join("wgstress-run.1")).unwrap(),
        "mine"
    );
}
