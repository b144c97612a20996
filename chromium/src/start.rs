//! Starting Chromium: which executable, the command line that turns WebGPU on in a headless
//! browser with a profile of its own, and the DevTools address it writes once it listens.

use crate::error::{ChromiumError, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long Chromium may take to listen for DevTools. Its start-up is CPU-bound: on a machine
/// whose cores are all busy (a CI runner running tests beside it) it takes many times longer
/// than on an idle one, and a slow start is not a failure.
const STARTUP: Duration = Duration::from_secs(180);

/// The Chromium to run: `chromium` (Debian's), else `chromium-browser` or `google-chrome`.
pub fn executable() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(ChromiumError::NotFound)
}

/// The command that starts a headless Chromium with WebGPU on, its profile in `profile`, on
/// `about:blank`, listening for DevTools on a port of its choosing.
pub fn command(profile: &Path) -> Result<Command> {
    std::fs::create_dir_all(profile)?;
    let mut command = Command::new(executable()?);
    command
        .arg("--headless=new")
        .arg("--enable-unsafe-webgpu")
        // SwiftShader where the machine has no GPU Chromium can use.
        .arg("--enable-unsafe-swiftshader")
        .arg("--remote-debugging-port=0")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--no-first-run")
        .arg("--no-default-browser-check")
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Chromium refuses to run as root inside its sandbox.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        command.arg("--no-sandbox");
    }
    Ok(command)
}

/// The DevTools address Chromium wrote into its `profile` directory once it listens;
/// `ended` says whether the process has ended meanwhile (how it did), which ends the wait.
pub fn devtools_address(
    profile: &Path,
    ended: &mut dyn FnMut() -> std::io::Result<Option<ExitStatus>>,
) -> Result<String> {
    let deadline = Instant::now() + STARTUP;
    let file = profile.join("DevToolsActivePort");
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return Ok(format!("ws://127.0.0.1:{port}{path}"));
            }
        }
        if let Some(status) = ended()? {
            return Err(ChromiumError::Ended(status));
        }
        if Instant::now() > deadline {
            return Err(ChromiumError::NotListening {
                seconds: STARTUP.as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How long a killed group's processes may take to go: they are gone when this ends, or a
/// profile would be removed under a process that still writes in it.
const GONE_WITHIN: Duration = Duration::from_secs(5);

/// Kills every process of the group `group` (one this process started, its leader not yet
/// reaped) and waits, a bounded while, until none is left.
#[cfg(unix)]
pub fn kill_group(group: libc::pid_t) {
    // SAFETY: kill(2) on a process group this process made; the leader is not reaped yet
    // (or was, after its group was killed), so the id is not another's.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let until = Instant::now() + GONE_WITHIN;
    // SAFETY: as above; signal 0 only asks whether a process of the group is left.
    while unsafe { libc::kill(-group, 0) } == 0 && Instant::now() < until {
        // The leader, a child of this process, is reaped here; the others by init.
        // SAFETY: waitpid(2) on this process's own child, not blocking.
        unsafe {
            libc::waitpid(group, std::ptr::null_mut(), libc::WNOHANG);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
