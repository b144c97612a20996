//! Outputs are compared with inputs by file identity, not by name (issue 35): `-o` naming a
//! hard link to the input once overwrote the user's source with instrumented code. Each
//! command that writes a file refuses a hard link to one it reads or writes, before any
//! work, and leaves the file as it was.

mod common;
mod support;

use common::fixture;
use std::path::Path;
use std::time::Duration;
use support::{assert_refused, command, within};

const DEADLINE: Duration = Duration::from_secs(60);

/// `dir/NAME`, a copy of the fixture NAME (under tests/fixtures).
fn copy(dir: &Path, name: &str) {
    let to = dir.join(Path::new(name).file_name().unwrap());
    std::fs::copy(fixture(name), to).unwrap();
}

/// `dir/link`, a hard link to `dir/target`.
fn link(dir: &Path, link: &str, target: &str) {
    std::fs::hard_link(dir.join(target), dir.join(link)).unwrap();
}

/// `args` run in `dir` is refused with `expected`, and `kept` holds what it held.
fn refused(dir: &Path, args: &[&str], expected: &str, kept: &str) {
    let before = std::fs::read(dir.join(kept)).unwrap();
    let what = format!("{args:?}");
    let out = within(command(args, dir), DEADLINE).exited(&what);
    assert_refused(&out, expected, &what);
    assert_eq!(
        std::fs::read(dir.join(kept)).unwrap(),
        before,
        "{what}: {kept} changed"
    );
}

#[test]
fn instrument_refuses_a_hard_link_to_its_shader_as_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "counter.wgsl");
    link(d, "link.wgsl", "counter.wgsl");
    refused(
        d,
        &[
            "instrument",
            "counter.wgsl",
            "-o",
            "link.wgsl",
            "--manifest",
            "m.json",
        ],
        "SHADER and --output name the same file",
        "counter.wgsl",
    );
    refused(
        d,
        &[
            "instrument",
            "counter.wgsl",
            "-o",
            "o.wgsl",
            "--manifest",
            "link.wgsl",
        ],
        "SHADER and --manifest name the same file",
        "counter.wgsl",
    );
}

#[test]
fn fences_refuses_a_hard_link_to_the_specs_shader_as_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "racy.toml");
    copy(d, "racy.wgsl");
    link(d, "link.wgsl", "racy.wgsl");
    for args in [
        &["fences", "racy.toml", "-o", "link.wgsl", "--budget", "60"][..],
        &["fences", "racy.toml", "--sites", "--all", "-o", "link.wgsl"],
    ] {
        refused(
            d,
            args,
            "the spec's shader and --output name the same file",
            "racy.wgsl",
        );
    }
}

#[test]
fn a_pipelines_output_directory_may_not_hold_a_hard_link_to_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "pipeline/passes.toml");
    copy(d, "pipeline/passes.wgsl");
    std::fs::create_dir(d.join("fixed")).unwrap();
    link(d, "fixed/passes.wgsl", "passes.wgsl");
    refused(
        d,
        &["fences", "passes.toml", "-o", "fixed", "--budget", "60"],
        "fixed: not empty",
        "passes.wgsl",
    );
}

#[test]
fn a_pipelines_output_directory_must_be_new_or_empty() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "pipeline/passes.toml");
    copy(d, "pipeline/passes.wgsl");
    std::fs::create_dir(d.join("fixed")).unwrap();
    std::fs::write(d.join("fixed/passes.wgsl"), "// the user's own file\n").unwrap();
    refused(
        d,
        &["fences", "passes.toml", "-o", "fixed", "--budget", "60"],
        "not empty; --output writes a pipeline's patched shaders into a new or empty directory",
        "fixed/passes.wgsl",
    );
}

/// A spec that reads a binding's initial words from data8.bin and checks another against
/// expected.bin, with a profile beside it.
fn data_spec(dir: &Path) {
    copy(dir, "counter.wgsl");
    std::fs::write(dir.join("data8.bin"), [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
    std::fs::write(dir.join("expected.bin"), 1024u32.to_le_bytes()).unwrap();
    std::fs::write(
        dir.join("initspec.toml"),
        r#"name = "init-spec"
shader = "counter.wgsl"
workgroups = [16]

[[binding]]
binding = 0
kind = "storage"
words = 1

[[binding]]
binding = 1
kind = "storage"
words = 2
init = { kind = "file", path = "data8.bin" }

[[check]]
binding = 0
kind = "equals-file"
path = "expected.bin"
"#,
    )
    .unwrap();
}

#[test]
fn a_specs_data_files_are_inputs_no_output_may_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    data_spec(d);
    refused(
        d,
        &["run", "initspec.toml", "--log", "data8.bin", "--runs", "1"],
        "a binding's init file and --log name the same file",
        "data8.bin",
    );
    refused(
        d,
        &["fences", "initspec.toml", "--all", "-o", "data8.bin"],
        "a binding's init file and --output name the same file",
        "data8.bin",
    );
    refused(
        d,
        &[
            "compare",
            "initspec.toml",
            "--svg",
            "expected.bin",
            "--no-log",
        ],
        "a check's equals-file and --svg name the same file",
        "expected.bin",
    );
}

#[test]
fn a_profile_read_is_an_input_the_log_may_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "counter.toml");
    copy(d, "counter.wgsl");
    // A profile as tune writes it, reduced to what run reads of it before the device opens.
    let profile = r#"{"adapter": "any", "driver": "", "backend": "", "patch_words": 32,
        "sequence": "ld;st", "spread": 1, "patch_note": "", "patch_grid": {},
        "sequence_scores": [], "spread_scores": [], "iterations_per_cell": 1, "seconds": 1.0}"#;
    std::fs::write(d.join("prof.json"), profile).unwrap();
    refused(
        d,
        &[
            "run",
            "counter.toml",
            "--profile",
            "prof.json",
            "--log",
            "prof.json",
        ],
        "--profile and --log name the same file",
        "prof.json",
    );
}

#[test]
fn merge_refuses_a_log_it_reads_through_a_linked_directory_as_its_html() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shard = d.join("elsewhere/host/gpu0/shard-0");
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(shard.join("shard.jsonl"), "").unwrap();
    std::fs::create_dir(d.join("viadir")).unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere"), d.join("viadir/results")).unwrap();
    refused(
        d,
        &[
            "merge",
            "viadir",
            "--html",
            "elsewhere/host/gpu0/shard-0/shard.jsonl",
        ],
        "a file the command reads",
        "elsewhere/host/gpu0/shard-0/shard.jsonl",
    );
}

#[test]
fn run_and_compare_refuse_a_hard_link_to_the_shader_as_log_or_chart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(d, "counter.toml");
    copy(d, "counter.wgsl");
    link(d, "log.jsonl", "counter.wgsl");
    link(d, "chart.svg", "counter.wgsl");
    refused(
        d,
        &["run", "counter.toml", "--log", "log.jsonl"],
        "the spec's shader and --log name the same file",
        "counter.wgsl",
    );
    refused(
        d,
        &["compare", "counter.toml", "--svg", "chart.svg", "--no-log"],
        "the spec's shader and --svg name the same file",
        "counter.wgsl",
    );
}

#[test]
fn merge_refuses_a_hard_link_to_a_log_it_reads_as_its_html() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shard = d.join("results/host/gpu0/shard-0");
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(shard.join("shard.jsonl"), "").unwrap();
    link(d, "report.html", "results/host/gpu0/shard-0/shard.jsonl");
    refused(
        d,
        &["merge", "results", "--html", "report.html"],
        "--html names",
        "results/host/gpu0/shard-0/shard.jsonl",
    );
}

#[test]
fn tune_and_mutants_refuse_two_outputs_that_are_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("runs.jsonl"), "kept\n").unwrap();
    link(d, "profile.json", "runs.jsonl");
    link(d, "env.json", "runs.jsonl");
    refused(
        d,
        &["tune", "--profile", "profile.json", "--log", "runs.jsonl"],
        "name the same file",
        "runs.jsonl",
    );
    refused(
        d,
        &[
            "mutants",
            "--search",
            "60",
            "--write-env",
            "env.json",
            "--log",
            "runs.jsonl",
        ],
        "--log and --write-env name the same file",
        "runs.jsonl",
    );
    copy(d, "counter.wgsl");
    link(d, "heat.svg", "counter.wgsl");
    link(d, "map.svg", "counter.wgsl");
    refused(
        d,
        &[
            "tune",
            "--heat-map",
            "heat.svg",
            "--profile",
            "map.svg",
            "--no-log",
        ],
        "--profile and --heat-map name the same file",
        "counter.wgsl",
    );
}
