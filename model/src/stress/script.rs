//! A scripted schedule: the order in which a run's workgroups take their steps, one step at a
//! time, as a prefix and then a cycle gone round a number of times. A progress model's oracle
//! gives an execution that need not end as such a lasso (a livelock, or a wait whose state
//! alternates, which no hold of one workgroup makes happen); a run that follows it to its end
//! without the application ending is starved under that model.
//!
//! A step is one entry into an application loop's body (the scheduler's step); a workgroup
//! whose next step the script does not name waits, and one the script no longer names waits
//! until the script is over, unless the script says it ends: after its last step it goes on
//! to leave its loop (an entry that is no step), and entering its loop once more means the run
//! left the script's execution.

use serde::{Deserialize, Serialize};

/// Entries the parameters block holds: the prefix and one cycle together.
pub const SCRIPT_WORDS: usize = 64;

/// Workgroups a script can say end: ids below this (a mask of one word).
pub const SCRIPT_ENDING: u32 = 32;

/// Workgroups (linear application ids) in the order they step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Script {
    prefix: Vec<u32>,
    cycle: Vec<u32>,
    rounds: u32,
    /// The workgroups that end within the prefix (the cycle does not name them).
    ends: Vec<u32>,
}

impl Script {
    /// The prefix, then `rounds` times the cycle, `ends` the workgroups that end after their
    /// last step of the prefix; none where the cycle is empty, `rounds` is 0, the prefix and
    /// the cycle do not fit the parameters block, or a workgroup said to end is named by the
    /// cycle or is not below `SCRIPT_ENDING`.
    pub fn new(prefix: Vec<u32>, cycle: Vec<u32>, rounds: u32, ends: Vec<u32>) -> Option<Script> {
        let fits = !cycle.is_empty() && rounds > 0 && prefix.len() + cycle.len() <= SCRIPT_WORDS;
        let ending = ends
            .iter()
            .all(|w| *w < SCRIPT_ENDING && !cycle.contains(w));
        (fits && ending).then_some(Script {
            prefix,
            cycle,
            rounds,
            ends,
        })
    }

    /// The workgroups that end within the script, as a mask.
    pub fn ends_mask(&self) -> u32 {
        self.ends.iter().fold(0, |mask, w| mask | 1 << w)
    }

    pub fn prefix(&self) -> &[u32] {
        &self.prefix
    }

    pub fn cycle(&self) -> &[u32] {
        &self.cycle
    }

    /// Steps the script takes in all.
    pub fn len(&self) -> u32 {
        self.prefix.len() as u32 + self.rounds * self.cycle.len() as u32
    }

    /// Never: a script has a cycle and goes round it at least once.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The workgroup of step `turn` (from 0), while the script lasts.
    pub fn at(&self, turn: u32) -> Option<u32> {
        let turn = turn as usize;
        let p = self.prefix.len();
        if turn < p {
            return Some(self.prefix[turn]);
        }
        (turn < self.len() as usize).then(|| self.cycle[(turn - p) % self.cycle.len()])
    }

    /// The prefix and one cycle, as the parameters block holds them.
    pub fn words(&self) -> impl Iterator<Item = u32> + '_ {
        self.prefix.iter().chain(&self.cycle).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_follows_the_prefix_as_many_rounds_as_asked() {
        let s = Script::new(vec![1], vec![0, 1, 1], 2, vec![]).unwrap();
        assert_eq!(s.len(), 7);
        let steps: Vec<Option<u32>> = (0..8).map(|t| s.at(t)).collect();
        assert_eq!(
            steps,
            [1, 0, 1, 1, 0, 1, 1]
                .into_iter()
                .map(Some)
                .chain([None])
                .collect::<Vec<_>>()
        );
        assert_eq!(s.words().collect::<Vec<_>>(), [1, 0, 1, 1]);
    }

    #[test]
    fn a_script_without_a_cycle_or_too_long_for_the_block_is_refused() {
        assert!(Script::new(vec![0], vec![], 2, vec![]).is_none());
        assert!(Script::new(vec![], vec![0], 0, vec![]).is_none());
        assert!(Script::new(vec![0; SCRIPT_WORDS], vec![1], 1, vec![]).is_none());
        assert!(Script::new(vec![0; SCRIPT_WORDS - 1], vec![1], 1, vec![]).is_some());
    }

    #[test]
    fn only_a_workgroup_the_cycle_does_not_name_can_end() {
        let s = Script::new(vec![2, 0, 1], vec![1, 2], 2, vec![0]).unwrap();
        assert_eq!(s.ends_mask(), 1);
        assert!(Script::new(vec![2, 0, 1], vec![1, 2], 2, vec![2]).is_none());
        assert!(Script::new(vec![40], vec![1], 2, vec![40]).is_none());
    }
}
