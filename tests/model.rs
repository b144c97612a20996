//! The log and campaigns build without a device: `wgstress-log` and `wgstress-campaign`
//! depend on `wgstress-model` (and `wgstress-progress`), never on wgpu, naga or the crates
//! that use them, so that the data wgstress's commands write can be read, merged and
//! reported on a machine without a GPU stack.

use std::path::Path;
use std::process::Command;

/// Crates a device-free crate must not reach.
const DEVICE: [&str; 5] = [
    "wgpu",
    "naga",
    "wgstress-runtime",
    "wgstress-litmus",
    "wgstress-instrument",
];

/// The packages `package` depends on (normal dependencies only, the whole tree), one per line.
fn tree(package: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("cargo tree prints UTF-8")
}

fn assert_device_free(package: &str) {
    let tree = tree(package);
    assert!(tree.contains("wgstress-model"), "{package}:\n{tree}");
    for line in tree.lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        assert!(
            !DEVICE
                .iter()
                .any(|d| name == *d || name.starts_with(&format!("{d}-"))),
            "{package} depends on {line}"
        );
    }
}

#[test]
fn the_log_has_no_device() {
    assert_device_free("wgstress-log");
}

#[test]
fn campaigns_have_no_device() {
    assert_device_free("wgstress-campaign");
}

#[test]
fn the_model_has_no_device() {
    let tree = tree("wgstress-model");
    for line in tree.lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        assert!(
            !DEVICE
                .iter()
                .any(|d| name == *d || name.starts_with(&format!("{d}-"))),
            "wgstress-model depends on {line}"
        );
    }
}

/// The fence search works on the instrumenter's modules (naga) but never on a device: its
/// GPU lab is the runtime's, which depends on it.
#[test]
fn the_fence_search_has_no_device() {
    let tree = tree("wgstress-fences");
    assert!(tree.contains("wgstress-instrument"), "{tree}");
    for line in tree.lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        assert!(
            !["wgpu", "wgstress-runtime", "wgstress-litmus"]
                .iter()
                .any(|d| name == *d || name.starts_with(&format!("{d}-"))),
            "wgstress-fences depends on {line}"
        );
    }
}
