//! The README and the command line agree (issue 24, item 10): every option a row of the
//! README's command table names is an option of that row's command. The README once listed
//! `apps --variant`, which `apps` refused.

mod common;

use common::wgstress;
use std::path::Path;

/// The `--options` in `text`'s code spans.
fn options(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        // Odd pieces are inside backticks.
        if i % 2 == 0 {
            continue;
        }
        for word in span.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            let name = word.trim_end_matches('-');
            if name.len() > 2 && name.starts_with("--") && !found.iter().any(|f| f == name) {
                found.push(name.to_string());
            }
        }
    }
    found
}

/// The README's command table: (command, the options its row names).
fn rows(readme: &str) -> Vec<(String, Vec<String>)> {
    readme
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| `wgstress ")?;
            let command = rest.split([' ', '`']).next()?.to_string();
            Some((command, options(line)))
        })
        .collect()
}

#[test]
fn every_option_in_the_command_table_is_one_of_its_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let rows = rows(&readme);
    assert!(rows.len() >= 9, "the table has a row per command: {rows:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut missing = Vec::new();
    for (command, named) in &rows {
        let help = wgstress(&[command.as_str(), "--help"], dir.path());
        assert_eq!(help.status.code(), Some(0), "{command} --help");
        let help = String::from_utf8_lossy(&help.stdout);
        for option in named {
            let listed = help
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .any(|word| word == option);
            if !listed {
                missing.push(format!("{command} {option}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the README names options its commands do not take: {missing:?}"
    );
}

#[test]
fn options_are_found_in_code_spans_only() {
    assert_eq!(
        options("`wgstress run APP` takes --not-this, `--runs`, `--seed 0x… …` and `-o`"),
        ["--runs", "--seed"]
    );
}

/// The README's test command: the indented line that runs `cargo test`.
fn test_command(readme: &str) -> &str {
    readme
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .find(|l| l.contains("cargo test"))
        .expect("the README gives a test command")
}

#[test]
fn ci_runs_the_readmes_test_command_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = test_command(&readme);
    assert!(command.contains("cargo test --workspace"), "{command}");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == command),
        ".ci/run does not run the README's test command `{command}` on a line of its own"
    );
}

/// The `[default: X]` that `run --help` gives `--NAME`.
fn help_default(help: &str, name: &str) -> String {
    let at = help.find(&format!("--{name} <")).expect(name);
    let rest = &help[at..];
    let start = rest.find("[default: ").expect("a default") + "[default: ".len();
    rest[start..].split(']').next().unwrap().to_string()
}

#[test]
fn the_readme_gives_the_bundled_builds_defaults_that_run_uses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let help = wgstress(&["run", "--help"], dir.path());
    let help = String::from_utf8_lossy(&help.stdout);
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for (option, choices) in [("variant", "buggy|fixed|nofence"), ("size", "small|large")] {
        let default = help_default(&help, option);
        let stated = format!("`--{option} {choices}` (default {default}");
        assert!(readme.contains(&stated), "the README lacks `{stated}`");
    }
}
