//! A session's budget (runs, time, failures) and the configuration its runs share: what the
//! run loop runs under, and what the fence search's trials are sized and seeded with.

use crate::run::calibration::Calibration;
use crate::stress::params::Settings;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long a session runs: a number of runs, a time, a number of failures, or whichever
/// ends first.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub runs: Option<u64>,
    pub time: Option<Duration>,
    /// Stop once this many runs failed (`--until-failures`).
    pub failures: Option<u64>,
}

impl Budget {
    /// A share of this budget: for interleaving several configurations in rounds. The failure
    /// count is not shared: it counts a configuration's failures over all its rounds.
    pub fn share(&self, parts: u32) -> Budget {
        Budget {
            runs: self.runs.map(|n| n.div_ceil(u64::from(parts))),
            time: self.time.map(|t| t / parts),
            failures: self.failures,
        }
    }

    /// This budget less `spent` of its time (calibration's share, say).
    pub fn less(&self, spent: Duration) -> Budget {
        Budget {
            time: self.time.map(|t| t.saturating_sub(spent)),
            ..*self
        }
    }
}

#[derive(Clone)]
pub struct RunConfig {
    /// `iterations` is the calibrated (or given) count; adaptive arms scale it.
    pub settings: Settings,
    pub budget: Budget,
    /// Seeds of run i: `run_seed(master_seed, i)`.
    pub master_seed: u64,
    /// Replay: every run uses this seed's parameters.
    pub replay: Option<u64>,
    /// Systematic stress draws each run's shape from the adaptive arms (false: the user fixed
    /// the shape, every run uses `settings.shape`).
    pub adaptive: bool,
    /// What calibration measured before these runs, if it ran.
    pub calibration: Option<Calibration>,
    pub stop: Arc<AtomicBool>,
}
