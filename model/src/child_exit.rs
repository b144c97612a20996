//! How a child command of a campaign ended: its exit status or the signal that killed it.
//! The shard's log records it and the shard reports it as each item ends (`ShardEvent`).

use serde::{Deserialize, Serialize};

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// Its exit status: 0 passed, 1 failed, 2 an error, 130 interrupted by SIGINT, 143 by
    /// SIGTERM, 129 by SIGHUP (the campaign died).
    Status(i32),
    /// Killed by this signal.
    Signal(i32),
    /// It could not be started.
    NotStarted,
}

impl Exit {
    pub fn passed(self) -> bool {
        self == Exit::Status(0)
    }

    pub fn failed(self) -> bool {
        self == Exit::Status(1)
    }

    /// Stopped from outside: Ctrl-C, or killed by SIGINT, SIGKILL or SIGTERM (what Slurm
    /// and Kubernetes send at a time limit), as opposed to a crash.
    pub fn interrupted(self) -> bool {
        matches!(
            self,
            Exit::Status(129)
                | Exit::Status(130)
                | Exit::Status(143)
                | Exit::Signal(2)
                | Exit::Signal(9)
                | Exit::Signal(15)
        )
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Exit::Status(0) => f.write_str("passed"),
            Exit::Status(1) => f.write_str("failed"),
            Exit::Status(130) => f.write_str("interrupted"),
            Exit::Status(143) => f.write_str("terminated"),
            Exit::Status(129) => f.write_str("hung up (its campaign died)"),
            Exit::Status(n) => write!(f, "error (exit {n})"),
            Exit::Signal(n) => write!(f, "killed by signal {n}"),
            Exit::NotStarted => f.write_str("not started"),
        }
    }
}
