//! The README's quick start runs as written (issue 57, item 1): its kernel and spec are the
//! files of examples/quickstart/, its commands run with the binary the tests build in place of
//! `wgstress` and end as the README says (the racy counter fails, `fences` finds the atomic
//! counter that counter_fixed.wgsl holds, the fixed counter passes, the racy counter fails in
//! the browser too), the output it shows is
//! what they print, and the install command ends with the quick start's first command.
//!
//! The commands run in a temporary directory holding a copy of examples/quickstart/ at the
//! same relative path, so that what they write (the log) lands there, not in the repository.

mod markdown;

use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command of the quick start and the output the README shows for it, if any.
#[derive(Debug)]
struct Step {
    command: String,
    shown: Option<String>,
}

/// The quick start's commands in order, each `sh` line with the `text` block after it.
fn steps(quick_start: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for block in markdown::blocks(quick_start) {
        match block.lang.as_str() {
            "sh" => steps.extend(block.lines().map(|l| Step {
                command: l.to_string(),
                shown: None,
            })),
            "text" => {
                let last = steps.last_mut().expect("output follows its command");
                assert!(last.shown.is_none(), "two outputs for `{}`", last.command);
                last.shown = Some(block.text.clone());
            }
            _ => {}
        }
    }
    steps
}

/// The block of the quick start in `lang`, the only one.
fn block_in(quick_start: &str, lang: &str) -> String {
    let found: Vec<_> = markdown::blocks(quick_start)
        .into_iter()
        .filter(|b| b.lang == lang)
        .collect();
    assert_eq!(found.len(), 1, "the quick start's {lang} blocks");
    found[0].text.clone()
}

/// What a line of a table says it is: the text before the first two spaces of a line that
/// starts with a word (`failure rate     0 of 1000 ...` is `failure rate`).
fn label(line: &str) -> Option<&str> {
    if line.starts_with(' ') {
        return None;
    }
    line.split_once("  ").map(|(l, _)| l)
}

/// Checks the output the README shows against what the command printed: `...` stands for
/// lines left out; a line of the table (`label   value`) must be a line with that label,
/// in the same order, since its values change from run to run; any other line must have been
/// printed as it is, once the adapter's name the README shows is this one's.
fn check_shown(command: &str, shown: &str, printed: &str, adapters: (&str, &str)) {
    let printed_lines: Vec<String> = printed.lines().map(str::to_string).collect();
    let mut at = 0;
    for line in shown.lines().filter(|l| l.trim() != "...") {
        let verbatim = line.starts_with(['+', '-']) || label(line).is_none();
        if verbatim {
            let expected = line.replace(adapters.0, adapters.1);
            assert!(
                printed_lines.contains(&expected),
                "`{command}`: the README shows `{expected}`, which it did not print:\n{printed}"
            );
            continue;
        }
        let want = label(line).unwrap();
        match printed_lines[at..]
            .iter()
            .position(|p| label(p) == Some(want))
        {
            Some(i) => at += i + 1,
            None => panic!(
                "`{command}`: the README shows a `{want}` line where it printed none (or not in \
                 that order):\n{printed}"
            ),
        }
    }
}

/// The adapter a `run` table names.
fn adapter(table: &str) -> String {
    table
        .lines()
        .find(|l| label(l) == Some("adapter"))
        .and_then(|l| l.split_once("adapter"))
        .map(|(_, name)| name.trim().to_string())
        .expect("an adapter line")
}

/// Runs `command` as the README gives it, with the tests' binary for `wgstress`, in `dir`.
fn run(command: &str, dir: &Path) -> Output {
    assert!(
        !command.contains(['\'', '"', '$', '|', '>', '<', ';', '&']),
        "the quick start's commands are plain words: `{command}`"
    );
    let mut words = command.split_whitespace();
    assert_eq!(words.next(), Some("wgstress"), "`{command}`");
    std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(words)
        .current_dir(dir)
        .output()
        .expect("wgstress runs")
}

/// The subcommand and the spec a quick-start command runs.
fn what(command: &str) -> (String, String) {
    let words: Vec<&str> = command.split_whitespace().collect();
    let spec = words
        .iter()
        .find(|w| w.ends_with(".toml"))
        .and_then(|w| Path::new(w).file_name())
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    (words.get(1).copied().unwrap_or_default().to_string(), spec)
}

#[test]
fn the_quick_starts_kernel_and_spec_are_the_examples_files() {
    let readme = markdown::readme();
    let quick_start = markdown::section(&readme, "Quick start");
    let dir = root().join("examples/quickstart");
    for (lang, file) in [("wgsl", "counter.wgsl"), ("toml", "counter.toml")] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(
            block_in(quick_start, lang),
            text,
            "the README's {lang} block is not examples/quickstart/{file}"
        );
        assert!(
            quick_start.contains(&format!("examples/quickstart/{file}")),
            "the quick start names examples/quickstart/{file}"
        );
    }
}

#[test]
fn the_install_command_ends_with_the_quick_starts_first_command() {
    let readme = markdown::readme();
    let install = markdown::blocks(markdown::section(&readme, "Install"))
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .find(|l| l.contains("cargo install --path ."))
        .expect("the README's install command");
    let first = steps(markdown::section(&readme, "Quick start"))
        .into_iter()
        .next()
        .expect("a quick-start command");
    assert!(
        install.ends_with(&format!(" && {}", first.command)),
        "`{install}` does not end with the quick start's first command `{}`",
        first.command
    );
}

#[test]
fn the_quick_starts_commands_run_as_written() {
    let readme = markdown::readme();
    let steps = steps(markdown::section(&readme, "Quick start"));
    let kinds: Vec<(String, String)> = steps.iter().map(|s| what(&s.command)).collect();
    let expected = [
        ("run", "counter.toml"),
        ("fences", "counter.toml"),
        ("run", "counter_fixed.toml"),
        ("run", "counter.toml"),
    ];
    assert_eq!(
        kinds
            .iter()
            .map(|(c, s)| (c.as_str(), s.as_str()))
            .collect::<Vec<_>>(),
        expected,
        "the quick start's commands, each of which this test checks: {steps:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("examples/quickstart"),
        &dir.path().join("examples/quickstart"),
    );
    let shown_adapter = adapter(steps[0].shown.as_deref().expect("the first run's output"));
    let mut this_adapter = None;
    let fixed_source =
        std::fs::read_to_string(root().join("examples/quickstart/counter_fixed.wgsl")).unwrap();
    for (step, (command, spec)) in steps.iter().zip(&kinds) {
        let out = run(&step.command, dir.path());
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let context = format!(
            "`{}`: exit {:?}\n{stdout}\n{}",
            step.command,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        match (command.as_str(), spec.as_str()) {
            ("run", "counter.toml") => {
                assert_eq!(out.status.code(), Some(1), "{context}");
                assert!(
                    stdout.contains("host check failed: check `count`: binding 0:1"),
                    "{context}"
                );
                // The browser route fails the same way, on the browser's adapter.
                if step.command.ends_with(" --browser") {
                    assert!(adapter(&stdout).contains("WebGPU in Chromium"), "{context}");
                } else {
                    this_adapter = Some(adapter(&stdout));
                }
            }
            ("fences", _) => {
                assert_eq!(out.status.code(), Some(0), "{context}");
                assert!(stdout.contains("fix: make `count` atomic"), "{context}");
                // The patch it prints is the one counter_fixed.wgsl applies.
                let patch: Vec<&str> = stdout
                    .lines()
                    .filter(|l| {
                        (l.starts_with('+') || l.starts_with('-'))
                            && !l.starts_with("+++")
                            && !l.starts_with("---")
                    })
                    .collect();
                assert!(!patch.is_empty(), "{context}");
                for line in patch {
                    let (sign, text) = line.split_at(1);
                    let has = fixed_source.lines().any(|l| l == text);
                    assert_eq!(has, sign == "+", "counter_fixed.wgsl and `{line}`");
                }
            }
            _ => {
                assert_eq!(out.status.code(), Some(0), "{context}");
                assert!(stdout.contains("first failure    none"), "{context}");
            }
        }
        if let Some(shown) = &step.shown {
            let here = this_adapter
                .clone()
                .expect("the first run names the adapter");
            check_shown(&step.command, shown, &stdout, (&shown_adapter, &here));
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}
