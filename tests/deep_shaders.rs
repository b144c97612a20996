//! Shaders that nest deeply (issue 35): an expression of 15,000 terms or an else-if chain of
//! 10,000 arms once overflowed the stack in naga's parser (SIGABRT, exit 134). Past
//! `MAX_NESTING` levels a shader is refused at the place it crosses the bound; within it, the
//! command's stack holds it (a debug build's main thread held 250 arms).

mod common;
mod support;

use std::path::Path;
use std::time::Duration;
use support::{assert_refused, command, within};

const DEADLINE: Duration = Duration::from_secs(120);

const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\n\
                    @compute @workgroup_size(1)\nfn main() {\n";

/// `buf[1] = x + x + ... + x` with `terms` terms, on line 6.
fn sum(terms: usize) -> String {
    format!(
        "{HEAD}    let x = buf[0];\n    buf[1] = {};\n}}\n",
        vec!["x"; terms].join(" + ")
    )
}

/// An if with `arms` arms in all, on line 5.
fn chain(arms: usize) -> String {
    let mut s = format!("{HEAD}    if buf[0] == 0u {{ buf[1] = 0u; }}");
    for i in 1..arms {
        s.push_str(&format!(" else if buf[0] == {i}u {{ buf[1] = {i}u; }}"));
    }
    s + "\n}\n"
}

/// Writes `shader` as `NAME.wgsl` with a spec `NAME.toml` that runs it.
fn app(dir: &Path, name: &str, shader: &str) {
    std::fs::write(dir.join(format!("{name}.wgsl")), shader).unwrap();
    std::fs::write(
        dir.join(format!("{name}.toml")),
        format!(
            "shader = \"{name}.wgsl\"\nworkgroups = [1]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 2\n"
        ),
    )
    .unwrap();
}

fn refused(dir: &Path, args: &[&str], expected: &str) {
    let what = format!("{args:?}");
    let out = within(command(args, dir), DEADLINE).exited(&what);
    assert_refused(&out, expected, &what);
}

fn accepted(dir: &Path, args: &[&str]) {
    let what = format!("{args:?}");
    let out = within(command(args, dir), DEADLINE).exited(&what);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_expression_of_15000_terms_is_refused_where_it_nests_too_deep() {
    let dir = tempfile::tempdir().unwrap();
    app(dir.path(), "sum", &sum(15_000));
    let expected = "sum.wgsl:6:";
    let message = "nests more than 1024 levels deep";
    for args in [
        &[
            "instrument",
            "sum.wgsl",
            "-o",
            "o.wgsl",
            "--manifest",
            "m.json",
        ][..],
        &["fences", "--sites", "sum.toml"],
        &["run", "sum.toml", "--raw", "--runs", "1", "--no-log"],
    ] {
        refused(dir.path(), args, expected);
        refused(dir.path(), args, message);
    }
    assert!(!dir.path().join("o.wgsl").exists());
}

#[test]
fn an_else_if_chain_of_10000_arms_is_refused_where_it_nests_too_deep() {
    let dir = tempfile::tempdir().unwrap();
    app(dir.path(), "chain", &chain(10_000));
    for args in [
        &[
            "instrument",
            "chain.wgsl",
            "-o",
            "o.wgsl",
            "--manifest",
            "m.json",
        ][..],
        &["fences", "--sites", "chain.toml"],
    ] {
        refused(dir.path(), args, "chain.wgsl:5:");
        refused(dir.path(), args, "nests more than 1024 levels deep");
    }
}

#[test]
fn shaders_within_the_bound_but_past_the_main_threads_stack_are_instrumented() {
    let dir = tempfile::tempdir().unwrap();
    // 1,000 terms and 1,000 arms: each overflowed the main thread's 8 MiB stack.
    app(dir.path(), "sum", &sum(1_000));
    app(dir.path(), "chain", &chain(1_000));
    for name in ["sum", "chain"] {
        let shader = format!("{name}.wgsl");
        accepted(
            dir.path(),
            &[
                "instrument",
                &shader,
                "-o",
                "o.wgsl",
                "--manifest",
                "m.json",
            ],
        );
    }
    accepted(dir.path(), &["fences", "--sites", "sum.toml"]);
}

/// `buf[1] = ((...(x)...))` inside `depth` parentheses, on line 6.
fn parens(depth: usize) -> String {
    format!(
        "{HEAD}    let x = buf[0];\n    buf[1] = {}x{};\n}}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    )
}

#[test]
fn parentheses_past_what_naga_parses_are_refused_at_their_place_and_within_it_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // naga's own limit (200 levels of its parser) once made this an error with no place.
    app(d, "parens", &parens(198));
    refused(
        d,
        &["run", "parens.toml", "--runs", "1", "--no-log"],
        "parens.wgsl:6:",
    );
    refused(
        d,
        &[
            "instrument",
            "parens.wgsl",
            "-o",
            "o.wgsl",
            "--manifest",
            "m.json",
        ],
        "brackets nest more than 190 deep",
    );
    // The bound holds what it says: brackets up to it parse, instrument and run.
    app(d, "within", &parens(185));
    accepted(d, &["run", "within.toml", "--runs", "1", "--no-log"]);
}
