//! deploy/: the Kubernetes manifests validate against the Job and PersistentVolumeClaim
//! schemas (kubernetes-validate from PyPI, which bundles them), and the bundled plan is one
//! that `wgstress campaign` accepts. The Slurm array job runs for real in
//! deploy/slurm/test-local.sh, which .ci/run calls.
//!
//! The README's test command installs nothing from PyPI, so this test installs the validator
//! itself, into a virtual environment of its own under the target directory, once; it skips
//! with a reason printed only where that cannot be done (no python3, no venv, no network).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python that has kubernetes_validate: the system's if it has it, else this test's
/// own virtual environment, made on first use. Err says why neither can be had.
fn validator() -> &'static Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let system = PathBuf::from("python3");
        if has_validator(&system) {
            return Ok(system);
        }
        install(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("kubernetes-validate"))
    })
}

fn has_validator(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import kubernetes_validate"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A virtual environment at `dir` with kubernetes-validate installed. A `ready` file marks
/// one whose install finished; anything else there is a half-made one, made again.
fn install(dir: &Path) -> Result<PathBuf, String> {
    let python = dir.join("bin/python3");
    let ready = dir.join("ready");
    if ready.exists() && has_validator(&python) {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(dir);
    step(
        Command::new("python3").args(["-m", "venv"]).arg(dir),
        "python3 -m venv (Debian: apt-get install python3-venv)",
    )?;
    step(
        Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "kubernetes-validate",
        ]),
        "pip install kubernetes-validate (it needs PyPI)",
    )?;
    std::fs::write(&ready, "").map_err(|e| format!("{}: {e}", ready.display()))?;
    Ok(python)
}

fn step(command: &mut Command, what: &str) -> Result<(), String> {
    match command.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("{what} could not start: {e}")),
    }
}

/// `kubernetes-validate --strict FILE` under `python`: whether it passed, and what it said.
fn validate(python: &Path, file: &Path) -> (bool, String) {
    let out = Command::new(python)
        .args(["-m", "kubernetes_validate", "--strict"])
        .arg(file)
        .output()
        .expect("python3 runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
fn the_kubernetes_manifests_validate_against_their_schemas() {
    let python = match validator() {
        Ok(python) => python,
        Err(why) => {
            // Straight to stderr: the test harness captures what eprintln! prints.
            let _ = writeln!(
                std::io::stderr(),
                "deploy.rs: skipped the Kubernetes schema check: {why}"
            );
            return;
        }
    };
    let dir = root().join("deploy/kubernetes");
    for name in ["job.yaml", "results.yaml"] {
        let (passed, said) = validate(python, &dir.join(name));
        assert!(passed, "{name}: {said}");
        assert!(said.contains("passed for resource"), "{name}: {said}");
    }
    // The validator refuses what the schema does not know: it is not passing everything.
    let text = std::fs::read_to_string(dir.join("job.yaml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let broken = tmp.path().join("job.yaml");
    std::fs::write(&broken, text.replace("  parallelism:", "  paralelism:")).unwrap();
    let (passed, said) = validate(python, &broken);
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
