//! Messages that say what is wrong and what to do (issue 24, items 8, 9 and 12): a value
//! that is not one of the choices lists them, a number past its bound is called a number,
//! every error about a file names it, conflicting options are refused, and a shader given
//! where an application goes is called one.

mod common;
mod support;

use common::fixture;
use std::time::Duration;
use support::{assert_refused, command, within};

const DEADLINE: Duration = Duration::from_secs(60);

fn refused(args: &[&str], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let what = format!("{args:?}");
    let out = within(command(args, dir.path()), DEADLINE).exited(&what);
    assert_refused(&out, expected, &what);
}

#[test]
fn a_value_that_is_not_a_choice_lists_the_choices() {
    refused(
        &[
            "compare",
            &fixture("counter.toml"),
            "--strategies",
            "nosuch",
        ],
        "give one of none, systematic, cache, random",
    );
    refused(
        &["run", &fixture("counter.toml"), "--strategy", "sys"],
        "give one of none, systematic, cache, random",
    );
}

#[test]
fn a_number_past_its_bound_is_called_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::wgstress(
        &["run", &fixture("counter.toml"), "--time", "1e12"],
        dir.path(),
    );
    assert_refused(&out, "1e12 seconds is more than the most", "--time 1e12");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not a number"));
}

#[test]
fn a_shader_without_a_compute_entry_point_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("helpers.wgsl");
    std::fs::write(&shader, "fn f() {}\n").unwrap();
    refused(
        &[
            "instrument",
            shader.to_str().unwrap(),
            "-o",
            dir.path().join("o.wgsl").to_str().unwrap(),
            "--manifest",
            dir.path().join("m.json").to_str().unwrap(),
        ],
        "helpers.wgsl: the shader has no @compute entry point",
    );
}

#[test]
fn a_failed_write_to_stdout_says_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let mut apps = command(&["apps"], dir.path());
    apps.stdout(full);
    let out = apps.output().expect("wgstress runs");
    assert_refused(
        &out,
        "cannot write the results to stdout: No space left on device",
        "apps > /dev/full",
    );
}

#[test]
fn conflicting_options_are_refused() {
    refused(
        &[
            "run",
            &fixture("counter.toml"),
            "--log",
            "runs.jsonl",
            "--no-log",
        ],
        "cannot be used with",
    );
    let counter = fixture("counter.toml");
    for stress in [
        &["--sequence", "ld;st"][..],
        &["--iterations", "8"],
        &["--watchdog-limit", "100"],
        &["--spread", "4"],
    ] {
        let mut args = vec!["run", counter.as_str(), "--raw"];
        args.extend(stress);
        refused(&args, "cannot be used with");
    }
}

#[test]
fn a_shader_given_as_the_application_is_called_a_shader() {
    for command in ["run", "compare", "fences"] {
        refused(
            &[command, &fixture("counter.wgsl")],
            "counter.wgsl: a WGSL shader; APP is a bundled application (see `wgstress apps`) or an app spec (.toml)",
        );
    }
}

#[test]
fn a_raw_dispatch_past_the_adapters_limit_per_dimension_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("wide.toml");
    std::fs::write(
        &spec,
        format!(
            "shader = {:?}\nworkgroups = [70000]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n",
            fixture("counter.wgsl")
        ),
    )
    .unwrap();
    let spec = spec.to_str().unwrap();
    refused(
        &["run", spec, "--raw", "--runs", "1", "--no-log"],
        "workgroups [70000, 1, 1] has 70000 in one dimension, beyond this adapter's limit of 65535",
    );
}

#[test]
fn random_words_below_zero_are_refused_at_the_binding() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("below.toml");
    std::fs::write(
        &spec,
        format!(
            "shader = {:?}\nworkgroups = [16]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\ninit = {{ kind = \"random\", seed = 1, below = 0 }}\n",
            fixture("counter.wgsl")
        ),
    )
    .unwrap();
    refused(
        &["run", spec.to_str().unwrap(), "--runs", "1", "--no-log"],
        "below.toml:4:1: [[binding]] 1: binding 0:0: init: random words `below = 0` leave no value to draw",
    );
}

#[test]
fn too_many_shards_are_called_too_many() {
    let plan = fixture("../../deploy/plans/bundled-buggy.toml");
    refused(
        &["campaign", &plan, "--list", "--shard", "1/99999999999"],
        "99999999999 shards are more than a plan is split into",
    );
}

#[test]
fn a_byte_order_mark_is_accepted_and_columns_count_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let bom = "\u{feff}";
    let counter = std::fs::read_to_string(fixture("counter.wgsl")).unwrap();
    std::fs::write(dir.path().join("counter.wgsl"), format!("{bom}{counter}")).unwrap();
    let args = [
        "instrument",
        "counter.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
    ];
    let out = within(command(&args, dir.path()), DEADLINE).exited("instrument");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(
        dir.path().join("counter.wgsl"),
        format!("{bom}fn main() {{ let x = ; }}\n"),
    )
    .unwrap();
    let out = within(command(&args, dir.path()), DEADLINE).exited("instrument");
    assert_refused(&out, "counter.wgsl:1:21: expected expression", "a BOM");
}

#[test]
fn an_array_length_override_of_zero_is_named() {
    // naga's own words were "Type [2] '' is invalid".
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tile.wgsl"),
        "override n: u32 = 4;\nvar<workgroup> tile: array<u32, n>;\n\
         @group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\
         @compute @workgroup_size(1)\nfn main() { tile[0] = 1u; buf[0] = tile[0]; }\n",
    )
    .unwrap();
    let args = [
        "instrument",
        "tile.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
        "--constant",
    ];
    let given = |value: &str| {
        let mut args = args.to_vec();
        args.push(value);
        within(command(&args, dir.path()), DEADLINE).exited(value)
    };
    assert_refused(
        &given("n=0"),
        "tile.wgsl: override `n` is an array's length: give it a whole number from 1 to 4294967295, not 0",
        "n=0",
    );
    assert_eq!(given("n=8").status.code(), Some(0));
}
