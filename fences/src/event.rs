//! What the fence search reports as it goes, for whoever shows progress; the library prints
//! nothing itself.

use crate::trial::Trial;
use std::time::Duration;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::stress::params::Settings;
use wgstress_model::stress::strategy::Strategy;

#[derive(Clone, Copy, Debug)]
pub enum SearchEvent<'a> {
    /// Systematic stress showed no failure: the other strategies share the rest of the
    /// budget.
    TryingOthers,
    /// A strategy's stress was calibrated before its confirming runs.
    Calibrated {
        settings: &'a Settings,
        calibration: &'a Calibration,
    },
    /// The application runs as is under `strategy` for `time`.
    Confirming { strategy: Strategy, time: Duration },
    /// A round of the search starts: trials of `runs_per_trial` runs, sized for the failure
    /// rate `rate` under `strategy`, over `sites` candidate sites.
    Round {
        rate: f64,
        strategy: Strategy,
        runs_per_trial: u64,
        sites: usize,
    },
    /// A barrier at every site still fails: make-atomic is tried, every candidate variable
    /// together, then the fewest that pass; in a later round, `kept` (the failed fix's
    /// variables) stay atomic while the others are searched.
    MakeAtomic { kept: &'a [String] },
    /// A trial of a set of `sites` fences ended.
    Trial { sites: usize, trial: Trial },
    /// The trials of a round are over.
    TrialsDone,
    /// The fix found runs for `time` under `strategy`.
    Verifying {
        sites: usize,
        time: Duration,
        strategy: Strategy,
    },
    /// The fix (`kept` barriers) failed its verification: another round, with trials sized
    /// for the failure rate `rate` it left; `pooled`: the round resizes its trials from the
    /// failures of the sets it asks that hold the fix (a fix of barriers alone; pool.rs).
    Refining {
        kept: usize,
        rate: f64,
        pooled: bool,
    },
}
