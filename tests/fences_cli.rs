//! `wgstress fences`: lists a bundled application's candidate sites and writes its shader
//! with a barrier at every one; searches for the barriers that stop an application's
//! failures (on lavapipe).

mod common;
use common::{fixture, wgstress};
use std::process::Command;

#[test]
fn fences_lists_sites_and_writes_the_all_fenced_shader() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("all.wgsl");
    let out = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["fences", "sdk-red", "--sites", "--all", "-o"])
        .arg(&output)
        .output()
        .expect("wgstress runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(!lines.is_empty(), "no sites listed");
    for (id, line) in lines.iter().enumerate() {
        // file:line:column: site N before|after (in function): source line
        let (location, rest) = line.split_once(": site ").expect(line);
        let parts: Vec<&str> = location.rsplitn(3, ':').collect();
        assert!(
            parts[0].parse::<u32>().is_ok() && parts[1].parse::<u32>().is_ok(),
            "{line}"
        );
        assert!(parts[2].ends_with("sdk_red.wgsl"), "{line}");
        assert!(
            rest.starts_with(&format!("{id} before (in "))
                || rest.starts_with(&format!("{id} after (in ")),
            "{line}"
        );
    }
    let fenced = std::fs::read_to_string(&output).unwrap();
    let module = naga::front::wgsl::parse_str(&fenced).unwrap();
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let original = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("apps/wgsl/sdk_red.wgsl"),
    )
    .unwrap();
    assert_eq!(
        fenced.matches("storageBarrier()").count(),
        code_lines(&original) + lines.len(),
        "one barrier per site"
    );
}

/// `storageBarrier()` calls outside comments.
fn code_lines(source: &str) -> usize {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.matches("storageBarrier()").count())
        .sum()
}

/// The search's options on lavapipe: short budgets, no log.
fn search<'a>(spec: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["fences", spec, "--budget", "2", "--verify", "2", "--no-log"];
    args.extend_from_slice(extra);
    args
}

#[test]
fn the_search_finds_the_barrier_the_flag_fixture_needs_and_writes_the_patch() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag.toml");
    let out = wgstress(&search(&spec, &["-o", "patched.wgsl"]), dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("fixed: 1 of "), "{stdout}");
    // The kept site lies between the write (line 10) and the read (line 12).
    let kept = stdout
        .lines()
        .find(|l| l.contains("flag.wgsl:"))
        .expect("a kept site");
    let line: u32 = kept.split(':').nth(1).unwrap().parse().unwrap();
    assert!((10..=12).contains(&line), "{kept}");
    assert!(stdout.contains("relies on: platform: storageBarrier orders device memory"));
    assert!(stdout.contains("+    storageBarrier();"), "{stdout}");
    assert!(stderr.contains("confirming the failure"), "{stderr}");
    let patched = std::fs::read_to_string(dir.path().join("patched.wgsl")).unwrap();
    assert_eq!(patched.matches("storageBarrier()").count(), 1, "{patched}");
    let module = naga::front::wgsl::parse_str(&patched).unwrap();
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let write = patched.find("flag[0] = 1u").unwrap();
    let barrier = patched.find("storageBarrier()").unwrap();
    assert!(write < barrier && barrier < patched.rfind("flag[0]").unwrap());
}

#[test]
fn a_correct_application_does_not_fail_and_gets_no_patch() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag-fixed.toml");
    let out = wgstress(&search(&spec, &["-o", "patched.wgsl"]), dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("does not fail: "), "{stdout}");
    assert!(stdout.contains("wgstress compare"), "{stdout}");
    assert!(!dir.path().join("patched.wgsl").exists());
}

#[test]
fn lost_updates_are_not_fixed_by_fences_and_the_json_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("racy.toml");
    let out = wgstress(&search(&spec, &["--json"]), dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "fences_do_not_fix", "{report}");
    assert!(report["before"]["failures"].as_u64().unwrap() > 0);
    assert!(report["all_sites"]["failures"].as_u64().unwrap() > 0);
    assert!(report["kept"].as_array().unwrap().is_empty());
}

#[test]
fn an_output_that_is_an_input_is_refused_before_the_device_opens() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag.toml");
    let shader = fixture("flag.wgsl");
    let out = wgstress(&search(&spec, &["-o", &shader]), dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--output"), "{stderr}");
    assert!(!stderr.contains("llvmpipe"), "{stderr}");
}

#[test]
fn the_search_logs_a_start_and_a_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag.toml");
    let out = wgstress(
        &[
            "fences",
            &spec,
            "--budget",
            "1",
            "--verify",
            "1",
            "--log",
            "log.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["type"], "start");
    assert_eq!(lines.first().unwrap()["command"], "fences");
    assert_eq!(lines.last().unwrap()["verdict"], "fixed", "{log}");
}
