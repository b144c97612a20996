//! A litmus test's outcomes counted by class over some iterations (`wgstress_litmus::runner`
//! counts them on a device).

use serde::Serialize;

/// Outcome counts over some iterations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct LitmusCounts {
    pub sequential: u64,
    pub interleaved: u64,
    pub weak: u64,
    /// Instances that showed the test's target behaviour.
    pub target: u64,
    /// Instances whose outcome the test's memory model disallows (a possible bug).
    pub disallowed: u64,
    /// Of those, instances whose outcome breaks coherence (SC per location), which WGSL
    /// promises; the rest break only the paper's release/acquire fences.
    pub incoherent: u64,
    /// Instances that read or left a value no store wrote (a bug, counted as disallowed and
    /// incoherent too).
    pub impossible: u64,
    /// Instances per outcome index (registers and final memory; `Test::describe` names them).
    #[serde(skip)]
    pub outcomes: Vec<u64>,
}

impl LitmusCounts {
    pub fn total(&self) -> u64 {
        self.sequential + self.interleaved + self.weak + self.impossible
    }

    pub fn add(&mut self, other: &LitmusCounts) {
        self.sequential += other.sequential;
        self.interleaved += other.interleaved;
        self.weak += other.weak;
        self.target += other.target;
        self.disallowed += other.disallowed;
        self.incoherent += other.incoherent;
        self.impossible += other.impossible;
        self.outcomes
            .resize(other.outcomes.len().max(self.outcomes.len()), 0);
        for (a, b) in self.outcomes.iter_mut().zip(&other.outcomes) {
            *a += b;
        }
    }
}
