//! deploy/: the Kubernetes manifests validate against the Job and PersistentVolumeClaim
//! schemas (kubernetes-validate from PyPI, which bundles them: .ci/run installs it), and the
//! bundled plan is one that `wgstress campaign` accepts. The Slurm array job runs for real in
//! deploy/slurm/test-local.sh, which .ci/run calls.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `kubernetes-validate --strict FILE`: whether it passed, and what it said.
fn validate(file: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .args(["-m", "kubernetes_validate", "--strict"])
        .arg(file)
        .output()
        .expect("python3 runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !said.contains("No module named"),
        "the validator is missing: python3 -m pip install kubernetes-validate (.ci/run does)"
    );
    (out.status.success(), said)
}

#[test]
fn the_kubernetes_manifests_validate_against_their_schemas() {
    let dir = root().join("deploy/kubernetes");
    for name in ["job.yaml", "results.yaml"] {
        let (passed, said) = validate(&dir.join(name));
        assert!(passed, "{name}: {said}");
        assert!(said.contains("passed for resource"), "{name}: {said}");
    }
    // The validator refuses what the schema does not know: it is not passing everything.
    let text = std::fs::read_to_string(dir.join("job.yaml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let broken = tmp.path().join("job.yaml");
    std::fs::write(&broken, text.replace("  parallelism:", "  paralelism:")).unwrap();
    let (passed, said) = validate(&broken);
    assert!(
        !passed && said.contains("'paralelism' was unexpected"),
        "{said}"
    );
}

/// The value of `key: VALUE` on the first line that has it.
fn value<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(key))
        .unwrap_or_else(|| panic!("no `{key}`"))
        .trim()
        .trim_matches('"')
}

#[test]
fn the_job_is_indexed_requests_a_gpu_per_pod_and_tells_wgstress_its_shard_count() {
    let text = std::fs::read_to_string(root().join("deploy/kubernetes/job.yaml")).unwrap();
    assert_eq!(value(&text, "completionMode:"), "Indexed");
    assert_eq!(value(&text, "nvidia.com/gpu:"), "1");
    let completions = value(&text, "completions:");
    let after = &text[text.find("name: JOB_COMPLETIONS").unwrap()..];
    assert_eq!(
        value(after, "value:"),
        completions,
        "JOB_COMPLETIONS is the Job's completions"
    );
    assert!(text.contains("/plans/bundled-buggy.toml"));
}

#[test]
fn the_bundled_plan_runs_the_eight_buggy_applications() {
    let plan = root().join("deploy/plans/bundled-buggy.toml");
    let out = common::wgstress(
        &[
            "campaign",
            plan.to_str().unwrap(),
            "--list",
            "--shard",
            "0/4",
        ],
        &root(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let items: Vec<&str> = text.lines().filter(|l| l.contains(" shard ")).collect();
    assert_eq!(items.len(), 8, "{text}");
    for app in wgstress_apps::all() {
        let line = format!("run {} --size large --time 20 --variant buggy", app.name);
        assert!(items.iter().any(|l| l.ends_with(&line)), "{line}: {text}");
    }
    assert!(
        items.iter().any(|l| l.starts_with('*')),
        "shard 0's are marked"
    );
}
