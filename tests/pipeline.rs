//! Pipelines, overrides, subgroups and raw runs through the CLI, on lavapipe: several
//! dispatches a run (one shader or several files, per-dispatch uniforms, stress beside the
//! dispatches that want it), override-sized workgroups, subgroup operations under stress, and
//! `--raw`, the application's own shaders without the tool.

mod common;

use common::{fixture, wgstress};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn pipeline(name: &str) -> String {
    fixture(&format!("pipeline/{name}"))
}

/// Runs `args` with a 32-run budget and JSON output; the exit status and the summary.
fn run(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--runs", "32", "--json", "--no-log"]);
    let out = wgstress(&all, dir.path());
    let summary = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), summary, stderr(&out))
}

#[test]
fn a_pipeline_with_per_dispatch_uniforms_passes_under_systematic_stress() {
    let (code, summary, err) = run(&[&pipeline("passes.toml"), "--strategy", "systematic"]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
    assert!(
        summary["stress_groups_ran"].as_u64().unwrap_or(0) > 0,
        "{summary}"
    );
}

#[test]
fn a_pipeline_in_three_files_with_its_own_postcondition_passes() {
    let (code, summary, err) = run(&[&pipeline("files.toml"), "--strategy", "systematic"]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
}

#[test]
fn a_failing_run_names_the_dispatch() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "run",
            &pipeline("asserts.toml"),
            "--runs",
            "4",
            "--log",
            "runs.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("dispatch 2 (`expect_zero`): assertion failed at "),
        "{table}"
    );
    assert!(table.contains("asserts.wgsl:14:5"), "{table}");
    // The log's records say which dispatch (from 0) their events come from.
    let log = std::fs::read_to_string(dir.path().join("runs.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["type"] == "batch")
        .flat_map(|l| l["failures"].as_array().cloned().unwrap_or_default())
        .map(|f| f["record"].clone())
        .collect();
    assert_eq!(records.len(), 4, "{log}");
    for record in records {
        assert_eq!(record["dispatch"], 1, "{record}");
        assert!(
            record["assertion"]["count"].as_u64().unwrap() > 0,
            "{record}"
        );
    }
}

#[test]
fn override_sized_workgroups_and_arrays_run_with_the_specs_constants() {
    let (code, summary, err) = run(&[&pipeline("overrides.toml")]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
}

#[test]
fn subgroup_operations_stay_whole_under_stress() {
    for strategy in ["systematic", "random"] {
        let (code, summary, err) = run(&[&pipeline("subgroups.toml"), "--strategy", strategy]);
        assert_eq!(code, Some(0), "{strategy}: {err}\n{summary}");
        assert_eq!(summary["counts"]["pass"], 32, "{summary}");
        assert!(
            summary["stress_groups_ran"].as_u64().unwrap_or(0) > 0,
            "{summary}"
        );
    }
    // The shader says `enable subgroups;`, which wgpu's naga refuses: a raw run too.
    let (code, summary, err) = run(&[&pipeline("subgroups.toml"), "--raw"]);
    assert_eq!(code, Some(0), "raw: {err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
}

#[test]
fn mixing_the_single_kernel_and_pipeline_forms_is_one_line_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["run", &pipeline("mixed.toml")], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("mixed.toml:2:9: `entry` at the top is the single-kernel form"),
        "{err}"
    );
}

#[test]
fn raw_passes_a_correct_application_and_fails_a_racy_one() {
    let (code, summary, err) = run(&[&fixture("counter.toml"), "--raw"]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
    assert_eq!(summary["strategy"], "raw", "{summary}");
    assert_eq!(summary["stress_groups_ran"], 0, "{summary}");
    let (code, summary, err) = run(&[&fixture("racy.toml"), "--raw"]);
    assert_eq!(code, Some(1), "{err}\n{summary}");
    assert!(
        summary["counts"]["postcondition"].as_u64().unwrap_or(0) > 0,
        "{summary}"
    );
}

#[test]
fn raw_runs_pipelines_with_their_postcondition() {
    let (code, summary, err) = run(&[&pipeline("passes.toml"), "--raw"]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    let (code, summary, err) = run(&[&pipeline("files.toml"), "--raw"]);
    assert_eq!(code, Some(0), "{err}\n{summary}");
    assert_eq!(summary["counts"]["pass"], 32, "{summary}");
}

#[test]
fn raw_refuses_stress_options() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(
        &[
            "run",
            &fixture("counter.toml"),
            "--raw",
            "--strategy",
            "random",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn fences_lists_a_pipelines_sites_and_all_refuses_one() {
    let dir = tempfile::tempdir().unwrap();
    let spec = pipeline("passes.toml");
    let out = wgstress(&["fences", spec.as_str(), "--sites"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("passes.wgsl:") && listed.contains(": site 0 "),
        "{listed}"
    );
    // The shader with a barrier at every site is one file: a single kernel's.
    let out = wgstress(
        &["fences", spec.as_str(), "--all", "-o", "all.wgsl"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("passes: --all writes one shader with a barrier at every site"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_pipeline_run_replays_from_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = pipeline("asserts.toml");
    let out = wgstress(&["run", &spec, "--runs", "2", "--no-log"], dir.path());
    let table = String::from_utf8(out.stdout).unwrap();
    let line = table
        .lines()
        .find_map(|l| l.strip_prefix("replay"))
        .unwrap_or_else(|| panic!("no replay line:\n{table}"));
    let replay: Vec<String> = shell_words(line.trim());
    let mut args = vec!["run".to_string(), spec.clone(), "--runs".into(), "3".into()];
    args.extend(replay);
    args.push("--no-log".into());
    let again = wgstress(&args, dir.path());
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains("failed in 3 of 3 runs"), "{text}");
}

/// Splits the replay options as a shell would (single quotes only).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[test]
fn a_binding_map_ping_pongs_one_entry_point_between_two_buffers() {
    for mode in ["--raw", "--strategy=systematic"] {
        let (code, summary, err) = run(&[&pipeline("pingpong.toml"), mode]);
        assert_eq!(code, Some(0), "{mode}: {err}\n{summary}");
        assert_eq!(summary["counts"]["pass"], 32, "{summary}");
    }
}

#[test]
fn binding_maps_are_checked_against_the_spec_and_the_shader() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(pipeline("pingpong.wgsl"), dir.path().join("pingpong.wgsl")).unwrap();
    let spec = std::fs::read_to_string(pipeline("pingpong.toml")).unwrap();
    let swap = "bind = [{ slot = 0, binding = 1 }, { slot = 1, binding = 0 }]";
    for (edit, expected) in [
        (
            "bind = [{ slot = 0, binding = 1 }, { slot = 1, binding = 5 }]",
            "pingpong.toml:10:1: [[dispatch]] 2: bind: slot 0:1 takes binding 0:5, which no [[binding]] declares",
        ),
        (
            "bind = [{ slot = 0, binding = 1 }, { slot = 1, binding = 1 }]",
            "pingpong.toml:10:1: [[dispatch]] 2: bind: binding 0:1 is bound at two slots",
        ),
        (
            "bind = [{ slot = 0, binding = 1 }]",
            "pingpong.wgsl: `step` uses @group(0) @binding(1) `dst` but its dispatch's `bind` puts that binding at another slot and nothing here",
        ),
    ] {
        let path = dir.path().join("pingpong.toml");
        std::fs::write(&path, spec.replace(swap, edit)).unwrap();
        let out = wgstress(&["run", path.to_str().unwrap()], dir.path());
        assert_eq!(out.status.code(), Some(2), "{edit}");
        // The one line of wgstress's own (lavapipe may add its XDG_RUNTIME_DIR warnings).
        let err = stderr(&out);
        let own: Vec<&str> = err.lines().filter(|l| l.starts_with("wgstress:")).collect();
        assert_eq!(own.len(), 1, "{err}");
        assert!(own[0].contains(expected), "{edit}: {err}");
    }
}
