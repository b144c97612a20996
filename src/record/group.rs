//! A program `record` runs (Node, Chromium), in a process group of its own that ends with
//! `record` on every path out of it: dropped (the recording's end, an error, a panic), or a
//! signal that quits `record` (`interrupt::at_quit`). Chromium starts a dozen processes of
//! its own and Node may start more; they stay in the group, and the whole group is killed,
//! not only the process `record` started. Each child is also told by the kernel to end when
//! `record` dies by a signal no handler sees (SIGKILL).

use crate::interrupt::{at_quit, AtQuit};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};

pub struct Group {
    child: Child,
    _at_quit: AtQuit,
}

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
            _at_quit: at_quit(move || wgstress_chromium::kill_group(group)),
        })
    }

    /// How the leader ended, if it has.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        wgstress_chromium::kill_group(self.child.id() as libc::pid_t);
        let _ = self.child.wait();
    }
}
