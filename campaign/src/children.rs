//! A shard's running items and the signals that reach them. Each item runs in a process group
//! of its own, so that a terminal's Ctrl-C reaches it only through the campaign, once: the
//! campaign's signal handler passes every SIGINT or SIGTERM on (`signal`), the first to stop
//! the item after its work in flight with its summary, the second to make it quit at once.
//! An item that starts after the first signal gets it as it starts.

use std::process::Child;
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct Children {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The process ids of the items running now.
    running: Vec<u32>,
    /// The first signal passed on, 0 before it.
    signal: i32,
}

impl Children {
    pub fn new() -> Children {
        Children::default()
    }

    /// Sends `signal` to every running item, and to every item that starts from now on.
    pub fn signal(&self, signal: i32) {
        let mut state = self.lock();
        if state.signal == 0 {
            state.signal = signal;
        }
        for pid in &state.running {
            send(*pid, signal);
        }
    }

    /// Waits for `child` while signals reach it; returns how it ended.
    pub(crate) fn wait(&self, mut child: Child) -> std::io::Result<std::process::ExitStatus> {
        let pid = child.id();
        {
            let mut state = self.lock();
            if state.signal != 0 {
                send(pid, state.signal);
            }
            state.running.push(pid);
        }
        // The process stays a zombie until reaped below, so its id cannot be reused while a
        // signal may still be sent to it.
        let exited = wait_without_reaping(pid);
        self.lock().running.retain(|p| *p != pid);
        exited?;
        child.wait()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(unix)]
fn send(pid: u32, signal: i32) {
    // SAFETY: kill(2) with a process id this campaign started and has not reaped.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

#[cfg(not(unix))]
fn send(_: u32, _: i32) {}

#[cfg(unix)]
fn wait_without_reaping(pid: u32) -> std::io::Result<()> {
    loop {
        // SAFETY: waitid(2) with a zeroed siginfo_t to fill in, for a child of this process.
        let done = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if done == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(not(unix))]
fn wait_without_reaping(_: u32) -> std::io::Result<()> {
    Ok(())
}
