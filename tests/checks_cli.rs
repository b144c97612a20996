//! Named host checks of an app spec through `wgstress run`: their one-line reports in the
//! summary table, in `--json` and in the log; their mistakes as one line and exit 2.

mod common;

use common::wgstress;
use std::path::Path;

/// Counts keys into 16 bins with atomics from every workgroup; thread 3 adds `EXTRA` more.
const HISTOGRAM: &str = "
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&bins[keys[id.x]], 1u + select(0u, EXTRA, id.x == 3u));
}

// The reference: one thread, no atomics.
@compute @workgroup_size(1)
fn reference() {
    for (var i = 0u; i < 256u; i++) {
        atomicAdd(&bins[keys[i]], 1u);
    }
}";

const SPEC: &str = r#"
shader = "app.wgsl"
entry = "main"
workgroups = [4]

[[binding]]
binding = 0
kind = "storage"
words = 256
init = { kind = "repeat", values = [3, 1, 4, 1, 5, 9, 2, 6] }

[[binding]]
binding = 1
kind = "storage"
words = 16

[[check]]
name = "bins"
binding = 1
kind = "reference"
entry = "reference"
workgroups = [1]
"#;

/// Writes the histogram with `extra` and `spec_text` to `dir`; returns the spec's path.
fn write(dir: &Path, extra: &str, spec_text: &str) -> String {
    std::fs::write(dir.join("app.wgsl"), HISTOGRAM.replace("EXTRA", extra)).unwrap();
    let path = dir.join("app.toml");
    std::fs::write(&path, spec_text).unwrap();
    path.display().to_string()
}

fn run(dir: &Path, spec_path: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec!["run", spec_path, "--runs", "4", "--strategy", "systematic"];
    args.extend_from_slice(more);
    wgstress(&args, dir)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// Thread 3 counts its key, 1, twice more: 64 + 2.
const REPORT: &str =
    "host check failed: check `bins`: binding 0:1: 1 of 16 elements wrong: [1] = 66 (expected 64)";

#[test]
fn a_failed_check_shows_in_the_table_the_json_and_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let spec_path = write(dir.path(), "0u", SPEC);
    let pass = run(dir.path(), &spec_path, &["--no-log"]);
    assert_eq!(pass.status.code(), Some(0), "{}", stderr(&pass));

    let spec_path = write(dir.path(), "2u", SPEC);
    let table = run(dir.path(), &spec_path, &["--no-log"]);
    assert_eq!(table.status.code(), Some(1), "{}", stderr(&table));
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains(REPORT), "{table}");

    let json = run(dir.path(), &spec_path, &["--json", "--log", "log.jsonl"]);
    assert_eq!(json.status.code(), Some(1), "{}", stderr(&json));
    let summary: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(summary["counts"]["postcondition"], 4);
    assert_eq!(summary["first_failure"]["detail"], REPORT);
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).unwrap();
    let details: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|line| line["failures"].as_array().cloned())
        .flatten()
        .map(|f| f["failure"]["detail"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(details, vec![REPORT.to_string(); 4]);
}

#[test]
fn check_mistakes_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            SPEC.replace("entry = \"reference\"", "entry = \"nope\""),
            "no @compute entry point named `nope` for the reference check (the shader has: main, reference)",
        ),
        (
            SPEC.replace("workgroups = [1]", "workgroups = [1]\ntype = \"u32\"\ntolerance = { absolute = 1 }"),
            "app.toml:17:1: a tolerance needs type = \"f32\"; u32 values compare exactly",
        ),
        (
            SPEC.replace("values = [3, 1, 4, 1, 5, 9, 2, 6]", "values = []"),
            "app.toml:6:1: [[binding]] 1: binding 0:0: init: a repeated pattern needs at least one value",
        ),
    ];
    for (text, expected) in cases {
        let spec_path = write(dir.path(), "0u", &text);
        let out = run(dir.path(), &spec_path, &["--no-log"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let errors: Vec<&str> = std::str::from_utf8(&out.stderr)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("wgstress: error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{}", stderr(&out));
        assert!(errors[0].contains(expected), "{}", errors[0]);
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}
