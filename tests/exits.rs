//! Errors and exits (issue 23, item 5), through the CLI on lavapipe: with `--json` a failing
//! command prints `{"error": ...}` on stdout as well as its line on stderr; a workgroup or
//! workgroup memory past the adapter's limits is refused before the first run, naming the
//! limit; a raw run that hangs exits like any other hang; `instrument --constant` resolves
//! overrides.

mod common;

use common::{fixture, wgstress, wgstress_timed};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// wgstress's own error line (lavapipe may add warnings of its own on stderr).
fn error_line(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    let own: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("wgstress: error: "))
        .collect();
    assert_eq!(own.len(), 1, "{err}");
    own[0].to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn with_json_a_failing_command_prints_its_error_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 4] = [
        &["run", "no-such-spec.toml", "--json"],
        // Refused by clap, before any command runs.
        &["run", &fixture("counter.toml"), "--runs", "0", "--json"],
        &["compare", "no-such-spec.toml", "--json", "--no-log"],
        &["litmus", "no-such-test", "--json"],
    ];
    for args in cases {
        let out = wgstress(args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let line = error_line(&out);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {:?}", out.stdout));
        let message = json["error"].as_str().unwrap_or_else(|| panic!("{json}"));
        assert_eq!(line, format!("wgstress: error: {message}"), "{args:?}");
    }
    // Without --json, stdout stays empty.
    let out = wgstress(&["run", "no-such-spec.toml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_workgroup_past_the_adapters_limits_is_refused_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    // The hungry shader's workgroup memory is within WGSL's bound as written, past the
    // adapter's once the spec's constant sizes it (parse time refuses more than WGSL allows).
    let spec = |shader: &str| {
        format!(
            "shader = \"{shader}\"\nworkgroups = [1]\n[constants]\ncells = 1048576\n\
             [[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 4096\n"
        )
    };
    let wide = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4096)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = 1u; }";
    let hungry = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
override cells: u32 = 64u;
var<workgroup> tile: array<u32, cells>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) { tile[i] = i; workgroupBarrier(); out[i] = tile[63u - i]; }";
    for (name, shader, limit) in [
        ("wide", wide, "(max_compute_workgroup_size_x)"),
        ("hungry", hungry, "(max_compute_workgroup_storage_size)"),
    ] {
        write(dir.path(), &format!("{name}.wgsl"), shader);
        let path = write(
            dir.path(),
            &format!("{name}.toml"),
            &spec(&format!("{name}.wgsl")),
        );
        for raw in [false, true] {
            let mut args = vec!["run", path.as_str(), "--runs", "4", "--no-log"];
            if raw {
                args.push("--raw");
            }
            let out = wgstress(&args, dir.path());
            assert_eq!(out.status.code(), Some(2), "{name} raw {raw}");
            let line = error_line(&out);
            assert!(
                line.contains(&format!("{name}.wgsl: entry point `main`: "))
                    && line.contains("beyond this adapter's limit of")
                    && line.ends_with(limit),
                "{line}"
            );
            assert!(out.stdout.is_empty(), "no run was made");
        }
    }
}

#[test]
fn a_raw_run_that_hangs_exits_like_any_other_hang() {
    let dir = tempfile::tempdir().unwrap();
    let (out, took) = wgstress_timed(
        &[
            "run",
            &fixture("slow.toml"),
            "--raw",
            "--runs",
            "10",
            "--timeout",
            "2",
            "--json",
            "--no-log",
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(12), "took {took:?}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["strategy"], "raw", "{summary}");
    assert!(
        summary["aborted"]
            .as_str()
            .is_some_and(|a| a.contains("did not finish a batch")),
        "{summary}"
    );
}

#[test]
fn instrument_resolves_overrides_given_with_constant() {
    let dir = tempfile::tempdir().unwrap();
    let shader = write(
        dir.path(),
        "sized.wgsl",
        "override size: u32;
@id(7) override cells: u32 = 4u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, cells>;
@compute @workgroup_size(size)
fn main(@builtin(local_invocation_index) i: u32) { tile[i % cells] = i; out[i] = tile[0]; }",
    );
    let instrument = |extra: &[&str]| {
        let mut args = vec![
            "instrument",
            shader.as_str(),
            "-o",
            "out.wgsl",
            "--manifest",
            "m.json",
        ];
        args.extend_from_slice(extra);
        wgstress(&args, dir.path())
    };
    let out = instrument(&[]);
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(line.contains("`--constant size=VALUE`"), "{line}");

    let out = instrument(&["--constant", "size=32", "--constant", "7=16"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("m.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["entry_point"]["workgroup_size"],
        serde_json::json!([32, 1, 1])
    );
    let wgsl = std::fs::read_to_string(dir.path().join("out.wgsl")).unwrap();
    assert!(wgsl.contains("array<u32, 16>"), "{wgsl}");
    assert!(!wgsl.contains("override"), "{wgsl}");

    for bad in ["size", "=3", "size=big"] {
        let out = instrument(&["--constant", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(error_line(&out).contains("--constant"), "{bad}");
    }
}

#[test]
fn with_json_a_failed_chart_write_leaves_one_document() {
    // /dev/full takes the open and refuses the bytes: the write fails after the results.
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "compare",
        &fixture("counter.toml"),
        "--svg",
        "/dev/full",
        "--json",
        "--no-log",
        "--runs",
        "2",
    ];
    let out = wgstress(&args, dir.path());
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(error_line(&out).contains("/dev/full"));
    let mut documents =
        serde_json::Deserializer::from_slice(&out.stdout).into_iter::<serde_json::Value>();
    let first = documents.next().expect("one document").expect("JSON");
    assert!(first.get("rows").is_some(), "{first}");
    assert!(documents.next().is_none(), "a second document on stdout");
}

#[test]
fn a_spec_name_with_terminal_escapes_or_a_line_break_prints_escaped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("counter.wgsl"), dir.path().join("counter.wgsl")).unwrap();
    let spec = write(
        dir.path(),
        "evil.toml",
        "name = \"\\u001b[2J\\nwgstress: error: forged\"\nshader = \"counter.wgsl\"\n\
         workgroups = [16]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n",
    );
    // A run, whose notes and table name the app, and a refusal that names it.
    let ran = wgstress(&["run", &spec, "--runs", "2", "--no-log"], dir.path());
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let pipeline = write(
        dir.path(),
        "evil-pipeline.toml",
        "name = \"\\u001b[2J\\nwgstress: error: forged\"\nshader = \"counter.wgsl\"\n\
         [[dispatch]]\nentry = \"main\"\nworkgroups = [16]\n\n\
         [[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n",
    );
    let refused = wgstress(
        &["fences", &pipeline, "--all", "-o", "out.wgsl"],
        dir.path(),
    );
    assert!(error_line(&refused).contains("\\u{1b}[2J\\nwgstress: error: forged"));
    for out in [&ran, &refused] {
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(!text.contains('\u{1b}'), "an escape printed raw: {text:?}");
            assert!(
                !text
                    .lines()
                    .any(|l| l.starts_with("wgstress: error: forged")),
                "a forged line: {text}"
            );
        }
    }
    assert!(
        String::from_utf8_lossy(&ran.stdout).contains("\\u{1b}[2J\\nwgstress: error: forged"),
        "{}",
        String::from_utf8_lossy(&ran.stdout)
    );
}

#[test]
fn a_device_out_of_memory_is_one_error_line() {
    use std::os::unix::process::CommandExt;
    // 30 bindings of 2^25 words (3.75 GiB) under a 3 GB address space: lavapipe cannot
    // allocate them, and wgpu's default handler panicked on the error ("wgpu error: Out of
    // Memory", exit 101).
    let dir = tempfile::tempdir().unwrap();
    let n = 30;
    let mut shader: String = (0..n)
        .map(|i| format!("@group(0) @binding({i}) var<storage, read_write> b{i}: array<u32>;\n"))
        .collect();
    shader.push_str("@compute @workgroup_size(1)\nfn main() {\n");
    shader.extend((0..n).map(|i| format!("    b{i}[0] = {i}u;\n")));
    shader.push_str("}\n");
    write(dir.path(), "oom.wgsl", &shader);
    let mut spec = String::from("name = \"oom\"\nshader = \"oom.wgsl\"\nworkgroups = [1]\n");
    for i in 0..n {
        spec.push_str(&format!(
            "\n[[binding]]\nbinding = {i}\nkind = \"storage\"\nwords = 33554432\n"
        ));
    }
    let spec = write(dir.path(), "oom.toml", &spec);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"));
    command
        .args(["run", &spec, "--runs", "1", "--no-log"])
        .current_dir(dir.path());
    // SAFETY: setrlimit(2) in the child before exec, async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 3_000_000_000,
                rlim_max: 3_000_000_000,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        error_line(&out).contains("wgpu rejected the buffer"),
        "{stderr}"
    );
}

#[test]
fn a_log_that_fills_the_disk_mid_run_ends_with_its_error_line() {
    use std::os::unix::process::CommandExt;
    // A file size limit stands in for a full disk: the start line fits, a later batch's
    // line does not (EFBIG, with SIGXFSZ ignored as a full disk sends none).
    let dir = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"));
    command
        .args([
            "run",
            &fixture("counter.toml"),
            "--time",
            "3",
            "--log",
            "log.jsonl",
        ])
        .current_dir(dir.path());
    // SAFETY: signal(2) and setrlimit(2) in the child before exec, async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 3000,
                rlim_max: 3000,
            };
            match libc::setrlimit(libc::RLIMIT_FSIZE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = error_line(&out);
    assert!(line.contains("log.jsonl"), "{line}");
    // The results gathered before are shown.
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("aborted"),
        "{stderr}"
    );
}

#[test]
fn start_up_work_past_its_bounds_is_refused_before_the_device_opens() {
    let dir = tempfile::tempdir().unwrap();
    // A gigabyte of private memory an invocation once took gigabytes and minutes to start.
    write(
        dir.path(),
        "big.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         var<private> big: array<u32, 268435456>;\n\
         @compute @workgroup_size(1)\nfn main() { big[0] = 1u; out[0] = big[0]; }\n",
    );
    let binding = "\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 1\n";
    let big = write(
        dir.path(),
        "big.toml",
        &format!("shader = \"big.wgsl\"\nworkgroups = [1]\n{binding}"),
    );
    let (out, took) = wgstress_timed(&["run", &big, "--runs", "1", "--no-log"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(
        line.contains("big.wgsl:2:1: the shader's `private` variables hold 1073741824 bytes"),
        "{line}"
    );
    // Workgroup memory past what any adapter offers, refused the same way.
    write(
        dir.path(),
        "tiles.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         var<workgroup> tile: array<u32, 2048>;\n\
         var<workgroup> more: array<u32, 262144>;\n\
         @compute @workgroup_size(1)\nfn main() { more[0] = 1u; tile[0] = more[0]; out[0] = tile[0]; }\n",
    );
    let tiles = write(
        dir.path(),
        "tiles.toml",
        &format!("shader = \"tiles.wgsl\"\nworkgroups = [1]\n{binding}"),
    );
    let (out, took_tiles) = wgstress_timed(&["run", &tiles, "--runs", "1", "--no-log"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(
        line.contains(
            "tiles.wgsl:3:1: the shader's `workgroup` variables hold 1056768 bytes here, \
             past what any adapter offers (1048576 bytes)"
        ),
        "{line}"
    );
    // 5,000 dispatches never reached a run: refused at the first past the bound.
    std::fs::copy(fixture("counter.wgsl"), dir.path().join("counter.wgsl")).unwrap();
    let mut spec = String::from("shader = \"counter.wgsl\"\n");
    for _ in 0..5000 {
        spec.push_str("\n[[dispatch]]\nentry = \"main\"\nworkgroups = [1]\n");
    }
    spec.push_str(binding);
    let many = write(dir.path(), "many.toml", &spec);
    let (out, took_many) = wgstress_timed(&["run", &many, "--runs", "1", "--no-log"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(
        line.contains("many.toml:")
            && line.contains("[[dispatch]] 129: a pipeline holds at most 128 dispatches"),
        "{line}"
    );
    // Before any device opened or any shader was instrumented.
    for t in [took, took_tiles, took_many] {
        assert!(t < Duration::from_secs(30), "took {t:?}");
    }
}
