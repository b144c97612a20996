//! What the search is asked to do, and what every step of it works with.

use crate::error::FenceError;
use crate::lab::{Confirmed, Lab};
use crate::source::AppSource;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wgstress_model::event::SearchEvent;
use wgstress_model::fences::patch::Choice;
use wgstress_model::reporter::Reporter;
use wgstress_model::stress::strategy::Strategy;

/// What the search is asked to do.
#[derive(Clone)]
pub struct FenceSearchConfig {
    /// The user's strategy; none: systematic, then a short compare if it shows nothing.
    pub strategy: Option<Strategy>,
    /// Time to confirm the failure and measure its rate (calibration's share included).
    pub budget: Duration,
    /// Time the fix found runs, shared by the strategies that showed the failure.
    pub verify: Duration,
    /// Time the search's trials may take over every round: once it is spent, the trials
    /// keep every site they have not yet dropped, and the set kept so far (it passed its
    /// trials) is verified; no further round starts.
    pub search: Duration,
    pub master_seed: u64,
    /// Systematic stress draws each run's shape from the adaptive arms.
    pub adaptive: bool,
    /// Ctrl-C.
    pub stop: Arc<AtomicBool>,
    /// The fix suggested: portable (both sides of every pair) or what this adapter needed.
    pub choice: Choice,
    /// Time to measure what the verified fix costs (beside the lab's other build of the
    /// application, if it has one: `Lab::has_reference`).
    pub cost: Duration,
}

/// What every step of the search works with.
pub(crate) struct Context<'a, L: Lab + ?Sized> {
    pub config: &'a FenceSearchConfig,
    pub shader: &'a AppSource,
    pub lab: &'a mut L,
    pub reporter: &'a mut dyn Reporter,
    /// The confirming runs, one per strategy tried.
    pub tried: &'a [Confirmed],
    /// When the search's time (`FenceSearchConfig::search`) is spent.
    pub deadline: Instant,
    /// Seconds a run took under the chosen strategy while the failure was confirmed.
    pub pace: f64,
}

impl<L: Lab + ?Sized> Context<'_, L> {
    pub(crate) fn report(&mut self, event: SearchEvent<'_>) -> Result<(), L::Error> {
        report::<L>(self.reporter, event)
    }
}

/// Reports `event`; a reporter that cannot take it ends the search with its error, as a
/// failed write ends a run.
pub(crate) fn report<L: Lab + ?Sized>(
    reporter: &mut dyn Reporter,
    event: SearchEvent<'_>,
) -> Result<(), L::Error> {
    reporter
        .emit(event.into())
        .map_err(|e| L::Error::from(FenceError::from(e)))
}
