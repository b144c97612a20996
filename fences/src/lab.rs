//! What the fence search asks of a device, and the answers: the `Lab` trait. The search
//! (search/) is written against it alone, so the same search runs on a GPU (the runtime's
//! `GpuLab`) and on a simulated one in the tests.

use crate::error::FenceError;
use crate::rewrite::Rewrite;
use std::time::Duration;
use wgstress_model::fences::measured::Measured;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::run::loop_limit::LoopLimit;
use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::stress::params::Settings;
use wgstress_model::stress::strategy::Strategy;

/// A fix to try: a storage barrier at each of `sites`, after the variables `atomic` (if any)
/// were made atomic; the sites are then those of the rewritten module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FixSet {
    /// In the order make-atomic's candidates come (declaration order).
    pub atomic: Vec<String>,
    /// Site indices, ascending.
    pub sites: Vec<usize>,
}

impl FixSet {
    /// Barriers at `sites` of the application as is.
    pub fn barriers(sites: &[usize]) -> FixSet {
        FixSet {
            atomic: Vec::new(),
            sites: sites.to_vec(),
        }
    }
}

/// What a measurement runs.
#[derive(Clone, Copy)]
pub enum Subject<'a> {
    /// The application as given.
    AsIs,
    /// The application with a fix placed by the instrumenter (naga's rendering).
    Fix(&'a FixSet),
    /// The application with its parts' text rewritten: the user's text with `fix` made in it,
    /// read like any input.
    Patched(&'a FixSet, &'a Rewrite),
    /// Another build of the application, for comparing costs (a bundled app's hand-written
    /// fixed variant): the lab's, where it has one (`Lab::has_reference`).
    Reference,
}

/// One strategy's runs of the application as is, and the configuration they ran under (its
/// stress calibrated on the device).
#[derive(Clone)]
pub(crate) struct Confirmed {
    pub config: RunConfig,
    pub measured: Measured,
}

/// Where the search runs its experiments.
pub trait Lab {
    /// What a lab's runs fail with; the search's own errors (a shader that does not parse, a
    /// variable that cannot be made atomic) become one.
    type Error: From<FenceError> + std::fmt::Display;

    /// The application's name and the adapter it runs on.
    fn names(&self) -> (String, String);

    /// The watchdog's loop limit of the application as is, and what its passing runs taught
    /// it; none where the lab has no watchdog.
    fn loop_limit(&self) -> Option<&LoopLimit>;

    /// The stress settings of `strategy` on this device, their iterations calibrated within a
    /// share of `budget` (none for no stress), and what calibration measured.
    fn settings(
        &mut self,
        strategy: Strategy,
        budget: &Budget,
    ) -> Result<(Settings, Option<Calibration>), Self::Error>;

    /// Runs `subject` under `config` from seed stream `seed` until `budget` is spent (a trial
    /// stops at its first failure: `budget.failures`).
    fn measure(
        &mut self,
        subject: Subject,
        config: &RunConfig,
        budget: &Budget,
        seed: u64,
    ) -> Result<Measured, Self::Error>;

    /// Fixes that may run next, most likely first: a lab may build them ahead, while it runs
    /// others. A hint; nothing depends on it but time.
    fn prepare(&mut self, _fixes: &[FixSet]) {}

    /// Times runs of each subject alone, without stress or instrumentation, in interleaved
    /// batches for about `time`: the seconds per run of each batch, by subject.
    fn time_runs(
        &mut self,
        subjects: &[Subject],
        time: Duration,
    ) -> Result<Vec<Vec<f64>>, Self::Error>;

    /// Whether the lab has another build of the application to time beside the fixes
    /// (`Subject::Reference`).
    fn has_reference(&self) -> bool {
        false
    }
}
