//! Running the `wgstress` binary with a deadline, for the tests of hostile and heavy inputs:
//! a command that never answers fails its test instead of hanging the suite.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How a process given a deadline ended.
pub enum Ended {
    /// It exited by itself, in `took`.
    Exited { output: Output, took: Duration },
    /// It ran past the deadline and was killed; what it printed until then.
    Killed { output: Output },
}

impl Ended {
    /// The output of a process that exited in time; panics, naming `what`, otherwise.
    pub fn exited(self, what: &str) -> Output {
        match self {
            Ended::Exited { output, .. } => output,
            Ended::Killed { output } => panic!(
                "{what}: no answer before the deadline; stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            ),
        }
    }
}

/// A `wgstress` command in `dir`, its stdout and stderr captured.
pub fn command<S: AsRef<std::ffi::OsStr>>(args: &[S], dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wgstress"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `command` for at most `limit`, then kills it.
pub fn within(mut command: Command, limit: Duration) -> Ended {
    let start = Instant::now();
    let mut child = command.spawn().expect("wgstress starts");
    let (out, err) = drain(&mut child);
    loop {
        if child.try_wait().expect("wait").is_some() {
            let output = collect(child, out, err);
            return Ended::Exited {
                output,
                took: start.elapsed(),
            };
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            return Ended::Killed {
                output: collect(child, out, err),
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `command` for at most `limit`, then sends it SIGINT, as Ctrl-C does, and gives it
/// `grace` more to exit. Its output and whether it was interrupted; None when it outlived
/// the grace too (it is then killed).
pub fn interrupting(
    mut command: Command,
    limit: Duration,
    grace: Duration,
) -> Option<(Output, bool)> {
    let start = Instant::now();
    let mut child = command.spawn().expect("wgstress starts");
    let (out, err) = drain(&mut child);
    let mut interrupted = false;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return Some((collect(child, out, err), interrupted));
        }
        let elapsed = start.elapsed();
        if !interrupted && elapsed > limit {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            interrupted = true;
        } else if interrupted && elapsed > limit + grace {
            let _ = child.kill();
            let _ = collect(child, out, err);
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

type Reader = std::thread::JoinHandle<Vec<u8>>;

/// Threads that read the child's pipes as it writes, so that a full pipe never stalls it.
fn drain(child: &mut Child) -> (Reader, Reader) {
    use std::io::Read;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    (
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stdout.read_to_end(&mut bytes);
            bytes
        }),
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr.read_to_end(&mut bytes);
            bytes
        }),
    )
}

fn collect(mut child: Child, out: Reader, err: Reader) -> Output {
    let status = child.wait().expect("wait");
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Exit status 2 with exactly one `wgstress: error:` line, containing `expected`, and no
/// panic.
pub fn assert_refused(out: &Output, expected: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("wgstress: error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{what}: {stderr}");
    assert!(
        errors[0].contains(expected),
        "{what}: `{}` lacks `{expected}`",
        errors[0]
    );
}
