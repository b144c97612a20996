//! A program `record` runs (Node, Chromium), in a process group of its own that ends with
//! `record` on every path out of it: dropped (the recording's end, an error, a panic), or a
//! signal that quits `record` (`interrupt::at_quit`). Chromium starts a dozen processes of
//! its own and Node may start more; they stay in the group, and the whole group is killed,
//! not only the process `record` started. Each child is also told by the kernel to end when
//! `record` dies by a signal no handler sees (SIGKILL).

use crate::interrupt::{at_quit, AtQuit};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

pub struct Group {
    child: Child,
    _at_quit: AtQuit,
}

/// How long the group's processes may take to go once killed: they are gone when this ends,
/// or the directory they write in is removed under a process that still runs.
const GONE_WITHIN: Duration = Duration::from_secs(5);

impl Group {
    /// Starts `command` as the leader of a new process group.
    pub fn spawn(command: &mut Command) -> std::io::Result<Group> {
        command.process_group(0);
        // SAFETY: prctl(2) is async-signal-safe, and the closure allocates nothing.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = command.spawn()?;
        let group = child.id() as libc::pid_t;
        Ok(Group {
            child,
            _at_quit: at_quit(move || kill(group)),
        })
    }

    /// How the leader ended, if it has.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }
}

/// Kills every process of the group `group` and waits (a bounded while) until none is left.
fn kill(group: libc::pid_t) {
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

impl Drop for Group {
    fn drop(&mut self) {
        kill(self.child.id() as libc::pid_t);
        let _ = self.child.wait();
    }
}
