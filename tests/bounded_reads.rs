//! Every file wgstress reads is bounded by what it may hold (issue 24, item 1): a device, a
//! FIFO or a file past its bound is refused with one line and exit 2 within seconds, where
//! `/dev/zero` as a spec's `init` file grew memory without bound and never answered.

mod common;
mod support;

use common::fixture;
use std::path::Path;
use std::time::Duration;
use support::{assert_refused, command, within};

/// Long enough for a debug build to open lavapipe; far shorter than reading /dev/zero took.
const DEADLINE: Duration = Duration::from_secs(60);

fn refused(args: &[&str], dir: &Path, expected: &str) {
    let what = format!("{args:?}");
    let out = within(command(args, dir), DEADLINE).exited(&what);
    assert_refused(&out, expected, &what);
}

/// A spec of the counter fixture whose one-word binding starts from the file `init`.
fn spec_with_init(dir: &Path, init: &str) -> String {
    let path = dir.join("spec.toml");
    std::fs::write(
        &path,
        format!(
            "shader = {:?}\nworkgroups = [16]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\ninit = {{ kind = \"file\", path = {init:?} }}\n",
            fixture("counter.wgsl")
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn a_device_as_an_init_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with_init(dir.path(), "/dev/zero");
    refused(
        &["run", &spec, "--runs", "1", "--no-log"],
        dir.path(),
        "/dev/zero: not a regular file",
    );
}

#[test]
fn an_init_file_larger_than_its_binding_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.bin"), vec![7u8; 4096]).unwrap();
    let spec = spec_with_init(dir.path(), "big.bin");
    refused(
        &["run", &spec, "--runs", "1", "--no-log"],
        dir.path(),
        "big.bin: 4096 bytes, more than a binding of 1 words holds (4 bytes)",
    );
}

#[test]
fn a_device_as_an_environment_or_profile_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["mutants", "--env", "/dev/zero", "--no-log"][..],
        &["litmus", "mp", "--env", "/dev/zero", "--no-log"],
        &["tune", "--env", "/dev/zero", "--no-log"],
        &["run", &fixture("counter.toml"), "--profile", "/dev/zero"],
    ] {
        refused(args, dir.path(), "/dev/zero: not a regular file");
    }
}

#[test]
fn a_device_as_a_shader_or_spec_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        &[
            "instrument",
            "/dev/zero",
            "-o",
            "o.wgsl",
            "--manifest",
            "m.json",
        ],
        dir.path(),
        "/dev/zero: not a regular file",
    );
    let spec = dir.path().join("zero.toml");
    std::fs::write(&spec, "shader = \"/dev/zero\"\nworkgroups = [1]\n").unwrap();
    refused(
        &["run", spec.to_str().unwrap(), "--no-log"],
        dir.path(),
        "/dev/zero: not a regular file",
    );
}

#[test]
fn a_fifo_with_no_writer_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let mkfifo = |name: &str| {
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join(name))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    };
    mkfifo("shader.wgsl");
    mkfifo("piped.toml");
    std::fs::write(
        dir.path().join("fifo.toml"),
        "shader = \"shader.wgsl\"\nworkgroups = [1]\n",
    )
    .unwrap();
    refused(
        &["run", "fifo.toml", "--no-log"],
        dir.path(),
        "shader.wgsl: not a regular file",
    );
    refused(
        &["fences", "--sites", "piped.toml"],
        dir.path(),
        "piped.toml: not a regular file",
    );
}

/// A campaign plan of one item that `campaign` accepts.
fn one_item_plan(dir: &Path) -> String {
    let path = dir.join("plan.toml");
    std::fs::write(
        &path,
        format!(
            "[[item]]\ncommand = \"run\"\napp = {:?}\nruns = 4\n",
            fixture("counter.toml")
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn a_device_as_a_campaign_plan_or_baseline_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plan = one_item_plan(dir.path());
    std::fs::create_dir(dir.path().join("results")).unwrap();
    for args in [
        &["campaign", "/dev/zero", "--list"][..],
        &["campaign", &plan, "--out", "out", "--baseline", "/dev/zero"],
        &["merge", "results", "--baseline", "/dev/zero"],
    ] {
        refused(args, dir.path(), "/dev/zero: not a regular file");
    }
}

#[test]
fn a_fifo_as_a_campaign_plan_or_baseline_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let plan = one_item_plan(dir.path());
    std::fs::create_dir(dir.path().join("results")).unwrap();
    for name in ["fifo-plan.toml", "fifo-baseline.toml"] {
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join(name))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    }
    refused(
        &["campaign", "fifo-plan.toml", "--list"],
        dir.path(),
        "fifo-plan.toml: not a regular file",
    );
    refused(
        &[
            "campaign",
            &plan,
            "--out",
            "out",
            "--baseline",
            "fifo-baseline.toml",
        ],
        dir.path(),
        "fifo-baseline.toml: not a regular file",
    );
    refused(
        &["merge", "results", "--baseline", "fifo-baseline.toml"],
        dir.path(),
        "fifo-baseline.toml: not a regular file",
    );
}

#[test]
fn a_device_as_a_log_merge_reads_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("results/host/gpu0/shard-0");
    std::fs::create_dir_all(&shard).unwrap();
    std::os::unix::fs::symlink("/dev/zero", shard.join("shard.jsonl")).unwrap();
    refused(
        &["merge", "results"],
        dir.path(),
        "/dev/zero: not a regular file",
    );
}

#[test]
fn a_proc_file_as_an_init_file_is_refused_at_the_specs_line_before_the_device_opens() {
    // /proc's files say they hold 0 bytes: only reading them tells how much they give.
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with_init(dir.path(), "/proc/self/status");
    refused(
        &["run", &spec, "--runs", "1", "--no-log"],
        dir.path(),
        "spec.toml:4:1: [[binding]] 1: init: /proc/self/status: ",
    );
}

/// A FIFO at `dir/name`.
fn fifo(dir: &Path, name: &str) {
    let path = std::ffi::CString::new(dir.join(name).to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_no_process_reads_as_an_output_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixture("counter.wgsl"), d.join("counter.wgsl")).unwrap();
    fifo(d, "fifo");
    refused(
        &[
            "instrument",
            "counter.wgsl",
            "-o",
            "fifo",
            "--manifest",
            "m.json",
        ],
        d,
        "fifo: a FIFO that no process reads",
    );
    refused(
        &[
            "instrument",
            "counter.wgsl",
            "-o",
            "o.wgsl",
            "--manifest",
            "fifo",
        ],
        d,
        "fifo: a FIFO that no process reads",
    );
}

#[test]
fn a_fifo_with_a_reader_gets_the_whole_output() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixture("counter.wgsl"), d.join("counter.wgsl")).unwrap();
    fifo(d, "fifo");
    let path = d.join("fifo");
    // The reader opens first and reads to the end: the check must not open the FIFO (its
    // reader would see the end before the output came).
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    });
    std::thread::sleep(Duration::from_millis(200));
    let args = [
        "instrument",
        "counter.wgsl",
        "-o",
        "fifo",
        "--manifest",
        "m.json",
    ];
    let out = within(command(&args, d), DEADLINE).exited("instrument -o fifo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = reader.join().unwrap();
    assert!(text.contains("atomicAdd"), "the reader got: {text}");
}

#[test]
fn merge_ends_on_a_shard_directory_that_links_back_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shard = d.join("results/host/gpu0/shard-0");
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(shard.join("shard.jsonl"), "").unwrap();
    std::os::unix::fs::symlink(".", shard.join("again")).unwrap();
    std::os::unix::fs::symlink(".", shard.join("and-again")).unwrap();
    refused(&["merge", "results"], d, "lacks its start line");
}

#[test]
fn an_equals_file_refused_names_its_checks_place_in_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("big.bin"), [0u8; 64]).unwrap();
    for (file, expected) in [
        ("/dev/zero", "/dev/zero: not a regular file"),
        ("missing.bin", "missing.bin"),
        ("big.bin", "64 bytes, more than a binding of 1 words holds"),
    ] {
        std::fs::write(
            d.join("spec.toml"),
            format!(
                "shader = {:?}\nworkgroups = [16]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n\n[[check]]\nbinding = 0\nkind = \"equals-file\"\npath = {file:?}\n",
                fixture("counter.wgsl")
            ),
        )
        .unwrap();
        refused(
            &["run", "spec.toml", "--runs", "1", "--no-log"],
            d,
            "spec.toml:9:1: [[check]] 1: equals-file: ",
        );
        refused(
            &["run", "spec.toml", "--runs", "1", "--no-log"],
            d,
            expected,
        );
    }
}
