//! How a command ended, and the exit status that says so.

use std::process::ExitCode;
use wgstress_model::run::stop::Stop;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every run passed (or the command runs nothing).
    Passed,
    /// Some run failed, or a fenced litmus test still showed weak behaviour.
    Failed,
    /// SIGINT (Ctrl-C) or SIGTERM stopped it; the results cover what finished.
    Interrupted,
    /// An error (a hang, a lost device) ended it early; the results cover what finished.
    Aborted,
}

impl Status {
    /// A session's status: how it stopped early, if it did, then whether a run failed.
    pub fn of(stopped: Option<&Stop>, failed: bool) -> Status {
        match stopped {
            Some(Stop::Aborted(_)) => Status::Aborted,
            Some(Stop::Interrupted) => Status::Interrupted,
            None if failed => Status::Failed,
            None => Status::Passed,
        }
    }

    /// 0 all passed, 1 some run failed, 2 an error, 130 interrupted by SIGINT, 143 by
    /// SIGTERM.
    pub fn number(self) -> u8 {
        match self {
            Status::Passed => 0,
            Status::Failed => 1,
            Status::Aborted => 2,
            Status::Interrupted => crate::interrupt::received()
                .unwrap_or(crate::interrupt::Signal::Interrupt)
                .exit_status(),
        }
    }

    pub fn code(self) -> ExitCode {
        ExitCode::from(self.number())
    }
}

/// Ends the process after results that an error cut short (a hang, a lost device, a log
/// that could no longer be written): its one error line, then exit status 2, at once
/// (`exit_now`).
pub fn exit_aborted(stopped: Option<&Stop>) -> ! {
    if let Some(Stop::Aborted(reason)) = stopped {
        eprintln!(
            "wgstress: error: {}",
            wgstress_model::escape::controls(reason)
        );
    }
    exit_now(Status::Aborted)
}

/// Ends the process at once with `status`'s code, the results already printed and logged:
/// after a hang the GPU may still be running the batch, and dropping the device would wait
/// for it, so nothing is dropped. Nor does the C library's exit run: a GPU driver's exit
/// handlers wait for the device too, forever for a raw kernel that never ends (no watchdog
/// stops its loops), so the process ends through `_exit`.
pub fn exit_now(status: Status) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let code = i32::from(status.number());
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process without running anything of it: output is flushed
    // above, files written before are closed by the kernel.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::{Status, Stop};

    #[test]
    fn an_abort_outranks_an_interruption_which_outranks_failures() {
        let hang = Stop::Aborted("hang".into());
        assert_eq!(Status::of(Some(&hang), true), Status::Aborted);
        assert_eq!(
            Status::of(Some(&Stop::Interrupted), true),
            Status::Interrupted
        );
        assert_eq!(Status::of(None, true), Status::Failed);
        assert_eq!(Status::of(None, false), Status::Passed);
    }
}
