//! The README and the command line agree (issue 24, item 10; issue 57, item 1): the command
//! table has a row per command, each linking to its page and naming only options of its own
//! command (the README once listed `apps --variant`, which `apps` refused); .ci/run runs the
//! README's test command as written; and the README stays a front door: at most 250 lines,
//! none over 300 characters.

mod common;
mod markdown;

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

/// A row of the README's command table.
#[derive(Debug)]
struct Row {
    command: String,
    /// Where its first cell links to.
    link: String,
    /// The options the row names.
    options: Vec<String>,
}

/// The README's command table: a row per line that starts with a link to `wgstress COMMAND`.
fn rows(readme: &str) -> Vec<Row> {
    readme
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| [`wgstress ")?;
            let command = rest.split([' ', '`']).next()?.to_string();
            let link = rest.split_once("](")?.1.split(')').next()?.to_string();
            Some(Row {
                command,
                link,
                options: options(line),
            })
        })
        .collect()
}

/// The commands `wgstress --help` lists, but `help`.
fn commands(dir: &Path) -> Vec<String> {
    let help = wgstress(&["--help"], dir);
    assert_eq!(help.status.code(), Some(0), "wgstress --help");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_command_table_has_a_row_per_command_linking_to_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows(&markdown::readme());
    let commands = commands(dir.path());
    assert!(commands.len() >= 14, "{commands:?}");
    let listed: Vec<&str> = rows.iter().map(|r| r.command.as_str()).collect();
    let mut expected: Vec<&str> = commands.iter().map(String::as_str).collect();
    let mut got = listed.clone();
    expected.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, expected, "the README's rows against `wgstress --help`");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for row in &rows {
        assert!(
            row.link.starts_with("docs/") && row.link.ends_with(".md"),
            "{row:?}"
        );
        assert!(
            root.join(&row.link).is_file(),
            "the row of `{}` links to {}, which is no file",
            row.command,
            row.link
        );
    }
}

#[test]
fn every_docs_page_the_readme_names_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = markdown::readme();
    let mut missing = Vec::new();
    for word in readme.split(|c: char| c.is_whitespace() || "()[],;`".contains(c)) {
        let word = word.trim_end_matches(['.', ':']);
        if word.starts_with("docs/") && word.ends_with(".md") && !root.join(word).is_file() {
            missing.push(word.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "the README names missing pages: {missing:?}"
    );
}

#[test]
fn every_option_in_the_command_table_is_one_of_its_command() {
    let rows = rows(&markdown::readme());
    assert!(
        rows.len() >= 14,
        "the table has a row per command: {rows:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut missing = Vec::new();
    for row in &rows {
        let command = row.command.as_str();
        let help = wgstress(&[command, "--help"], dir.path());
        assert_eq!(help.status.code(), Some(0), "{command} --help");
        let help = String::from_utf8_lossy(&help.stdout);
        for option in &row.options {
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

#[test]
fn a_row_is_its_command_its_page_and_its_options() {
    let found = rows(
        "| command | what |\n| [`wgstress fences APP`](docs/fences.md) | a fix (`-o`, `--fix`); `--sites` |\n| `wgstress old` | not a row |\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].command, "fences");
    assert_eq!(found[0].link, "docs/fences.md");
    assert_eq!(found[0].options, ["--fix", "--sites"]);
}

#[test]
fn the_readme_is_short_and_its_lines_are_readable() {
    let readme = markdown::readme();
    let lines = readme.lines().count();
    assert!(lines <= 250, "the README has {lines} lines, more than 250");
    let long: Vec<String> = readme
        .lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > 300)
        .map(|(i, l)| format!("line {}: {} characters", i + 1, l.chars().count()))
        .collect();
    assert!(
        long.is_empty(),
        "README lines over 300 characters: {long:?}"
    );
}

/// The README's test command: the line of a code block in its Tests section that runs
/// `cargo test`.
fn test_command(readme: &str) -> String {
    markdown::blocks(markdown::section(readme, "Tests"))
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .find(|l| l.contains("cargo test"))
        .expect("the README gives a test command")
}

#[test]
fn ci_runs_the_readmes_test_command_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let command = test_command(&markdown::readme());
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
    let readme = markdown::readme();
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
