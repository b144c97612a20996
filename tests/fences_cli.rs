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

/// A lock taken in a loop bounded by a `var<storage, read>` count (issue 23): the loop is
/// uniform, so `--sites` lists sites inside it, after taking the lock and before releasing
/// it, and Tint accepts the shader with a barrier at every listed site.
#[test]
fn a_lock_loop_bounded_by_read_only_storage_lists_sites_inside_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "fences",
            &fixture("lock-loop.toml"),
            "--sites",
            "--all",
            "-o",
            "all.wgsl",
        ],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let source = std::fs::read_to_string(fixture("lock-loop.wgsl")).unwrap();
    let line_of = |text: &str| source.lines().position(|l| l.trim() == text).unwrap() + 1;
    // The loop ends on the line before the entry point's closing brace, the file's last.
    let (start, end) = (
        line_of("for (var i = 0u; i < count; i++) {"),
        source.lines().count() - 1,
    );
    let listed: Vec<usize> = stdout
        .lines()
        .map(|l| l.split(':').nth(1).unwrap().parse().unwrap())
        .collect();
    let lock = line_of("lock();");
    let unlock = line_of("unlock();");
    assert!(
        listed.contains(&lock) && listed.contains(&unlock),
        "{stdout}"
    );
    assert!(listed.iter().all(|l| (start..end).contains(l)), "{stdout}");
    let all = std::fs::read_to_string(dir.path().join("all.wgsl")).unwrap();
    assert_eq!(
        all.matches("storageBarrier()").count(),
        listed.len(),
        "{all}"
    );
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new("lock-loop all sites", all)]);
}

/// `storageBarrier()` calls outside comments.
fn code_lines(source: &str) -> usize {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.matches("storageBarrier()").count())
        .sum()
}

/// The arguments of a search of `spec` with `extra` on lavapipe: short budgets, no log, and
/// 30 s for the trials to shrink the sets. With Mesa's shader cache empty, as on a fresh
/// machine, a new program's first run on lavapipe took about a second, and the tally
/// fixture's make-atomic search needed 20 s of trials of one run each (with a warm cache,
/// under 2 s). A search ends as soon as it is done.
fn search<'a>(spec: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["fences", spec, "--budget", "2", "--verify", "2", "--no-log"];
    if !extra.contains(&"--search-time") {
        args.extend(["--search-time", "30"]);
    }
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
    // No --strategy and no failure under systematic stress: the others were tried too.
    assert!(
        stdout.contains("under systematic, cache and random stress, and without stress"),
        "{stdout}"
    );
    for stress in [
        "systematic stress",
        "cache stress",
        "random stress",
        "no stress",
    ] {
        assert!(stdout.contains(&format!("no fix ({stress}")), "{stdout}");
    }
    assert!(!dir.path().join("patched.wgsl").exists());
}

#[test]
fn lost_updates_are_fixed_by_make_atomic_not_by_fences_and_the_json_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("racy.toml");
    let out = wgstress(
        &search(&spec, &["--json", "-o", "patched.wgsl"]),
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "fixed", "{report}");
    // Systematic stress showed the failure: no other strategy was tried.
    let before = report["before"].as_array().unwrap();
    assert_eq!(before.len(), 1, "{report}");
    assert_eq!(before[0]["strategy"], "systematic");
    assert!(before[0]["failures"].as_u64().unwrap() > 0);
    assert!(report["all_sites"]["failures"].as_u64().unwrap() > 0);
    assert_eq!(report["fix"]["kind"], "make_atomic", "{report}");
    assert_eq!(report["fix"]["variables"], serde_json::json!(["counter"]));
    assert!(report["fix"]["fused"][0]
        .as_str()
        .unwrap()
        .ends_with("racy.wgsl:7:5"));
    assert!(report["relies_on"]
        .as_str()
        .unwrap()
        .starts_with("specification: each read-modify-write of `counter`"));
    assert_eq!(report["atomic"][0]["all_sites"]["passed"], true);
    // The atomic operation alone fixes it: no barrier is kept.
    assert_eq!(report["atomic"][0]["alone"]["passed"], true);
    assert!(report["kept"].as_array().unwrap().is_empty());
    let verified = &report["verified"][0];
    assert_eq!(verified["failures"], 0, "{report}");
    assert!(verified["runs"].as_u64().unwrap() >= report["runs_per_trial"].as_u64().unwrap());
    // The patch is an edit of the user's file: the declaration and the access lines change,
    // the comment and the names survive.
    let patched = std::fs::read_to_string(dir.path().join("patched.wgsl")).unwrap();
    let original = std::fs::read_to_string(fixture("racy.wgsl")).unwrap();
    assert_eq!(report["patches"][0]["kind"], "source", "{report}");
    let changed = changed_lines(&original, &patched);
    assert_eq!(
        changed,
        [
            "@group(0) @binding(0) var<storage, read_write> counter: u32;",
            "    let seen = counter;",
            "    counter = seen + 1u;",
        ],
        "{patched}"
    );
    assert!(patched.starts_with("// Every thread adds one to a shared counter"));
    assert!(
        patched.contains("var<storage, read_write> counter: atomic<u32>;"),
        "{patched}"
    );
    assert!(
        patched.contains("    atomicAdd(&counter, 1u);"),
        "{patched}"
    );
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new("racy patched", patched)]);
}

/// The lines of `original` that `patched` no longer has.
fn changed_lines<'a>(original: &'a str, patched: &str) -> Vec<&'a str> {
    let kept: std::collections::HashSet<&str> = patched.lines().collect();
    original.lines().filter(|l| !kept.contains(l)).collect()
}

/// The racy counter's spec and shader, copied into `dir` for `--fix` to edit.
fn racy_copy(dir: &std::path::Path) -> (String, std::path::PathBuf) {
    for file in ["racy.toml", "racy.wgsl"] {
        std::fs::copy(fixture(file), dir.join(file)).unwrap();
    }
    (
        dir.join("racy.toml").display().to_string(),
        dir.join("racy.wgsl"),
    )
}

#[test]
fn fix_edits_the_shader_in_place_once_the_fix_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let (spec, shader) = racy_copy(dir.path());
    let before = std::fs::read_to_string(&shader).unwrap();
    let out = wgstress(&search(&spec, &["--fix", "--json"]), dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "fixed", "{report}");
    assert_eq!(report["fixed_in_place"][0], shader.display().to_string());
    assert_eq!(report["not_fixed_in_place"], serde_json::Value::Null);
    let after = std::fs::read_to_string(&shader).unwrap();
    assert_eq!(changed_lines(&before, &after).len(), 3, "{after}");
    assert!(after.contains("atomicAdd(&counter, 1u);"), "{after}");
}

/// Runs `--fix` on the racy counter's copy in `dir`, doing `meanwhile` to its shader while
/// the fix found is being verified; returns the output, stderr included.
fn fix_while(
    dir: &std::path::Path,
    extra: &[&str],
    meanwhile: impl Fn(&std::path::Path),
) -> (std::process::Output, String) {
    use std::io::BufRead;
    let (spec, shader) = racy_copy(dir);
    let mut args = vec!["--fix"];
    args.extend_from_slice(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(search(&spec, &args))
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    for line in stderr.lines() {
        let line = line.unwrap();
        if line.contains("verifying the fix") {
            meanwhile(&shader);
        }
        seen.push(line);
    }
    let stderr = seen.join("\n");
    assert!(stderr.contains("verifying the fix"), "{stderr}");
    (child.wait_with_output().unwrap(), stderr)
}

#[test]
fn fix_leaves_a_file_that_changed_since_the_search_began_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (out, stderr) = fix_while(dir.path(), &[], |shader| {
        let edited = std::fs::read_to_string(shader).unwrap() + "// edited meanwhile\n";
        std::fs::write(shader, edited).unwrap();
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    // The report has the fix, and says that the file was left alone, never that it was edited.
    assert!(stdout.contains("fixed: "), "{stdout}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.ends_with("racy.wgsl edited in place")),
        "{stdout}"
    );
    assert!(
        stdout.contains("not edited in place: ")
            && stdout.contains("racy.wgsl changed since the search began"),
        "{stdout}"
    );
    assert!(!stderr.contains("error"), "{stderr}");
    let now = std::fs::read_to_string(dir.path().join("racy.wgsl")).unwrap();
    assert!(
        now.ends_with("// edited meanwhile\n") && !now.contains("atomicAdd"),
        "{now}"
    );
}

#[test]
fn fix_of_a_file_deleted_during_the_search_reports_it_in_one_json_document() {
    let dir = tempfile::tempdir().unwrap();
    let (out, stderr) = fix_while(dir.path(), &["--json"], |shader| {
        std::fs::remove_file(shader).unwrap();
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["verdict"], "fixed", "{report}");
    assert_eq!(report["fixed_in_place"], serde_json::json!([]), "{report}");
    let refused = &report["not_fixed_in_place"];
    assert!(
        refused["files"][0].as_str().unwrap().ends_with("racy.wgsl"),
        "{report}"
    );
    assert!(
        refused["why"]
            .as_str()
            .unwrap()
            .contains("cannot be read again"),
        "{report}"
    );
    assert!(
        !dir.path().join("racy.wgsl").exists(),
        "the deleted file came back"
    );
}

#[test]
fn fix_is_refused_for_a_bundled_application() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&search("sdk-red", &["--fix"]), dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--fix edits the shader files of a spec"),
        "{stderr}"
    );
}

#[test]
fn make_atomic_then_the_barriers_it_still_needs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("tally.toml");
    let started = std::time::Instant::now();
    let out = wgstress(
        &search(&spec, &["--json", "-o", "patched.wgsl"]),
        dir.path(),
    );
    let wall = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "fixed", "{report}");
    // Where the time went: every step took some, the runs were a share of the trials, and
    // the steps together took no longer than the command.
    let times = &report["times"];
    let seconds = |step: &str| times[step].as_f64().unwrap();
    let steps = ["confirm", "trials", "trial_runs", "verify", "cost"];
    assert!(steps.iter().all(|s| seconds(s) > 0.0), "{times}");
    assert!(seconds("trial_runs") <= seconds("trials"), "{times}");
    let spent = seconds("confirm") + seconds("trials") + seconds("verify") + seconds("cost");
    assert!(spent <= wall, "{times} in {wall} s");
    assert_eq!(
        report["fix"]["variables"],
        serde_json::json!(["count"]),
        "{report}"
    );
    // Every candidate together first, which passed with a barrier at every site; then the
    // count alone of them (the flag and the reads need no atomics), which failed without
    // barriers.
    assert_eq!(
        report["atomic"][0]["variables"],
        serde_json::json!(["count", "flag", "seen"]),
        "{report}"
    );
    assert_eq!(report["atomic"][0]["all_sites"]["passed"], true, "{report}");
    assert_eq!(
        report["atomic"][1]["variables"],
        serde_json::json!(["count"]),
        "{report}"
    );
    assert_eq!(report["atomic"][1]["alone"]["passed"], false, "{report}");
    // The count made atomic, and the one barrier between the flag's write and its reads.
    let kept = report["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{report}");
    assert!(
        (13..=15).contains(&kept[0]["line"].as_u64().unwrap()),
        "{report}"
    );
    let relies_on = report["relies_on"].as_str().unwrap();
    assert!(
        relies_on.contains("rests on the kept barriers: platform:"),
        "{relies_on}"
    );
    let patched = std::fs::read_to_string(dir.path().join("patched.wgsl")).unwrap();
    assert!(patched.contains("atomicAdd(&count, 1u);"), "{patched}");
    assert_eq!(patched.matches("storageBarrier()").count(), 1, "{patched}");
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new("tally patched", patched)]);
}

#[test]
fn when_neither_fixes_it_the_report_says_why_and_writes_no_patch() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("turns.toml");
    let out = wgstress(&search(&spec, &["-o", "patched.wgsl"]), dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("not fixed: neither barriers nor make-atomic"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fences: with a storageBarrier() at all "),
        "{stdout}"
    );
    assert!(
        stdout.contains("make-atomic of `flag` and `seen` together (0 read-modify-writes"),
        "{stdout}"
    );
    // The read and the write share a loop whose trip count differs per thread.
    let reason = stdout
        .lines()
        .find(|l| l.contains("turns.wgsl:12:13 (in main)"))
        .expect("the access in the loop is named");
    assert!(reason.contains("WGSL allows no barrier"), "{reason}");
    assert!(
        reason.contains("must live in the atomic itself"),
        "{reason}"
    );
    assert!(
        stdout.contains("make-atomic `flag` and `seen`: with all sites failed"),
        "{stdout}"
    );
    assert!(!stdout.contains("fix:"), "{stdout}");
    assert!(!dir.path().join("patched.wgsl").exists());
}

#[test]
fn ctrl_c_in_the_verification_keeps_the_set_unverified_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag.toml");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args([
            "fences",
            &spec,
            "--budget",
            "1",
            "--verify",
            "120",
            // The default (2 x --budget) kept 4 sites with Mesa's shader cache empty.
            "--search-time",
            "8",
            "--no-log",
            "--json",
            "-o",
            "patched.wgsl",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Confirming takes about a second and the search a few: by then it verifies.
    std::thread::sleep(std::time::Duration::from_secs(10));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "interrupted", "{report}");
    assert_eq!(report["during"], "the verification", "{report}");
    assert_eq!(report["kept"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["verified"][0]["failures"], 0, "{report}");
    assert!(!dir.path().join("patched.wgsl").exists());
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

#[test]
fn legitimate_long_waits_past_the_limit_are_no_failure_to_search() {
    // longwait's waits are legitimate: 150 to 1,200 trips, a quarter of its runs past the
    // limit of 1,000 given here. A wait that sees progress is no failure however long it
    // lasts, so the application does not fail and nothing is searched.
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "fences",
            &fixture("longwait.toml"),
            "--watchdog-limit",
            "1000",
            "--strategy",
            "none",
            "--budget",
            "3",
            "--no-log",
        ],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    for advice in [
        "barriers nor make-atomic",
        "candidate sites",
        "make-atomic `",
    ] {
        assert!(!stdout.contains(advice), "memory-model advice: {stdout}");
    }
}

#[test]
fn a_pipeline_is_searched_over_every_pass_and_patched_in_the_file_that_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("pipeline/flags.toml");
    let sites = wgstress(&["fences", &spec, "--sites"], dir.path());
    let listed = String::from_utf8_lossy(&sites.stdout);
    assert_eq!(sites.status.code(), Some(0), "{listed}");
    // The sites of both passes, numbered one after the other, each at its own file.
    assert!(
        listed.lines().next().unwrap().contains("clear.wgsl:"),
        "{listed}"
    );
    assert!(
        listed.lines().last().unwrap().contains("raise.wgsl:"),
        "{listed}"
    );
    for (id, line) in listed.lines().enumerate() {
        assert!(line.contains(&format!(": site {id} ")), "{line}");
    }
    let out = wgstress(
        &search(&spec, &["--json", "--cost", "1", "-o", "fixed"]),
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["verdict"], "fixed", "{report}");
    let kept = report["kept"].as_array().unwrap();
    assert!(
        kept.iter()
            .all(|k| k["file"].as_str().unwrap().ends_with("raise.wgsl")),
        "{report}"
    );
    // One patch, of the file that needs it, written into the directory under its name.
    let patches = report["patches"].as_array().unwrap();
    assert_eq!(patches.len(), 1, "{report}");
    assert!(patches[0]["file"].as_str().unwrap().ends_with("raise.wgsl"));
    let written = std::fs::read_to_string(dir.path().join("fixed/raise.wgsl")).unwrap();
    let original = std::fs::read_to_string(fixture("pipeline/raise.wgsl")).unwrap();
    assert_eq!(written.matches("storageBarrier();").count(), 1, "{written}");
    assert!(changed_lines(&original, &written).is_empty(), "{written}");
    assert!(!dir.path().join("fixed/clear.wgsl").exists());
}

#[test]
fn the_search_keeps_to_its_time_bound_and_verifies_what_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("flag.toml");
    let args = search(&spec, &["--search-time", "0.001", "--cost", "1", "--json"]);
    let (out, took) = common::wgstress_timed(&args, dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["search_out_of_time"], true, "{report}");
    // The first guess may start within the bound's millisecond; nothing after it does.
    assert!(report["trials"].as_u64().unwrap() <= 1, "{report}");
    // No site was dropped: every one is kept, and that fix passed its verification.
    assert_eq!(report["verdict"], "fixed", "{report}");
    assert!(report["kept"].as_array().unwrap().len() > 1, "{report}");
    // --budget 2 + --search-time + --verify 2 + --cost 1, and start-up on a loaded machine.
    assert!(took.as_secs_f64() < 5.0 + 25.0, "took {took:?}");
}
