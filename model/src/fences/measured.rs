//! What runs of an application (as is, or with a fix) saw: the fence search's measurement,
//! and what one of its trials saw.

use crate::run::stop::Stop;
use serde::Serialize;

/// What runs of the application (as is, or with a fix) saw.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Measured {
    pub runs: u64,
    pub failures: u64,
    /// Failing runs the watchdog stopped (a loop that reached its limit).
    pub watchdog: u64,
    pub seconds: f64,
    /// Why the runs ended early, if Ctrl-C or an error (a hang, a lost device) ended them.
    #[serde(
        flatten,
        serialize_with = "crate::run::stop::aborted",
        deserialize_with = "crate::run::stop::from_aborted"
    )]
    pub stopped: Option<Stop>,
}

impl Measured {
    /// Runs an error ended before any result: what the search reports as an abort, the
    /// evidence gathered so far kept.
    pub fn failed(error: impl std::fmt::Display) -> Measured {
        Measured {
            stopped: Some(Stop::Aborted(error.to_string())),
            ..Measured::default()
        }
    }

    /// `measured`, or the error that ended it as a stop.
    pub fn or_stopped<E: std::fmt::Display>(measured: Result<Measured, E>) -> Measured {
        measured.unwrap_or_else(Measured::failed)
    }

    pub fn rate(&self) -> f64 {
        self.failures as f64 / self.runs.max(1) as f64
    }
}

/// What a trial of a set of fences saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trial {
    /// Every one of the runs passed.
    Pass { runs: u64 },
    /// A run failed; `runs` ran in all (a trial stops at its first failure, or on a device
    /// at the end of the batch that held it).
    Fail { runs: u64 },
}

impl Trial {
    pub fn passed(self) -> bool {
        matches!(self, Trial::Pass { .. })
    }

    pub fn runs(self) -> u64 {
        match self {
            Trial::Pass { runs } | Trial::Fail { runs } => runs,
        }
    }
}
