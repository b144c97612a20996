//! A step of a round: what trials found (a set that passed, or the verdict that ends the
//! round), and what the trials cost.

use crate::lab::FixSet;
use crate::lab::Lab;
use crate::trials::{Asked, Trials};
use wgstress_model::fences::outcome::{FenceVerdict, Fix};

/// A step's answer: a set that passed its trials (with how the trials ended, if early),
/// or the verdict that ends the round.
pub(crate) enum Step {
    Passed {
        fix: FixSet,
        kind: Fix,
        stopped: Option<wgstress_model::run::stop::Stop>,
    },
    Over(FenceVerdict),
}

/// Trials and their runs over a round's steps.
#[derive(Default)]
pub(crate) struct Count {
    pub trials: u64,
    pub runs: u64,
    /// Seconds the runs took.
    pub seconds: f64,
    /// The search's deadline kept a trial from its runs.
    pub out_of_time: bool,
    /// Every trial asked, in order.
    pub asked: Vec<Asked>,
}

impl Count {
    /// Adds what `trials` counted, taking its record of the trials asked.
    pub(crate) fn add<L: Lab + ?Sized>(&mut self, trials: &mut Trials<L>) {
        self.trials += trials.trials;
        self.runs += trials.runs;
        self.seconds += trials.seconds;
        self.out_of_time |= trials.out_of_time;
        self.asked.append(&mut trials.asked);
    }
}
