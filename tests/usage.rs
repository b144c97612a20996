//! What the command line tells a user before any documentation (issue 57): `wgstress` alone
//! prints its help and exits 0, as cargo does, and `wgstress completions SHELL` prints a
//! completion script that completes its commands, options and values.

mod common;

use common::wgstress;
use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    wgstress(args, dir.path())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The commands `wgstress --help` lists, but `help`.
fn commands(help: &str) -> Vec<String> {
    let listing = help.split("Commands:\n").nth(1).expect("a command list");
    listing
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn wgstress_alone_prints_its_help_and_succeeds() {
    let bare = run(&[]);
    let help = run(&["--help"]);
    assert_eq!(bare.status.code(), Some(0), "{}", text(&bare.stderr));
    assert_eq!(text(&bare.stdout), text(&help.stdout));
    assert_eq!(text(&bare.stderr), "");
    let listed = commands(&text(&bare.stdout));
    for command in [
        "run",
        "compare",
        "fences",
        "progress",
        "record",
        "completions",
    ] {
        assert!(listed.iter().any(|c| c == command), "{listed:?}");
    }
    assert!(text(&bare.stdout).contains("Usage: wgstress"));
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    let help = text(&run(&["--help"]).stdout);
    let listed = commands(&help);
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for command in &listed {
            assert!(script.contains(command.as_str()), "{shell}: no {command}");
        }
    }
    let bash = text(&run(&["completions", "bash"]).stdout);
    assert!(bash.contains("complete -F _wgstress"), "{bash}");
}

#[test]
fn an_unknown_shell_is_bad_input() {
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("wgstress: error: ") && stderr.contains("bash"),
        "{stderr}"
    );
}

/// What bash's completion offers for the words `line` (the last one being completed), with
/// the script `wgstress completions bash` prints loaded.
fn bash_completes(script: &str, line: &[&str]) -> Vec<String> {
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let current = line.len() - 1;
    let previous = line[current - 1];
    let program = format!(
        "{script}\nCOMP_WORDS=({words}); COMP_CWORD={current}; _wgstress wgstress '{cur}' '{previous}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words = words.join(" "),
        cur = line[current],
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_commands_options_and_values() {
    let script = text(&run(&["completions", "bash"]).stdout);
    assert_eq!(bash_completes(&script, &["wgstress", "fen"]), ["fences"]);
    assert_eq!(
        bash_completes(&script, &["wgstress", "run", "--until-f"]),
        ["--until-failures"]
    );
    assert_eq!(
        bash_completes(&script, &["wgstress", "run", "--strategy", ""]),
        ["none", "systematic", "cache", "random"]
    );
}
