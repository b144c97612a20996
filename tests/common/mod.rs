//! Running the `wgstress` binary as a user does, for the CLI's integration tests.
#![allow(dead_code)]

pub mod device;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs wgstress with `args` in `dir`.
pub fn wgstress<S: AsRef<std::ffi::OsStr>>(args: &[S], dir: &Path) -> Output {
    wgstress_timed(args, dir).0
}

/// Runs wgstress with `args` in `dir`; returns its output and how long it took.
pub fn wgstress_timed<S: AsRef<std::ffi::OsStr>>(args: &[S], dir: &Path) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("wgstress runs");
    (out, start.elapsed())
}

/// The path of `tests/fixtures/NAME`.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// The lines of a JSON-lines file that parse (none where it cannot be read): a log a killed
/// process may have left with a partial last line.
pub fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
