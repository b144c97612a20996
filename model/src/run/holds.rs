//! Where runs under a progress model held a workgroup, against where they could have: the
//! hold points' coverage. A workgroup can be held at its start, after a loop's iteration or
//! the loop, and after a write to storage (a store, an atomic: instrument's passes/holds.rs).
//! A place is one of these in the source: its start, a loop, a write. A run that holds a victim
//! records the place it held it at; every run records the places its victim passed where
//! the model would have let it be held.

use crate::stress::schedule::Schedule;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The first place after a write, in the shader's numbering: a place below it is a loop's
/// index among the manifest's loops, one at or above it `HOLD_PLACE` plus a write's index
/// among its holds.
pub const HOLD_PLACE: u32 = 0x10000;

/// Places a run's record can say it passed: the first 128 loops and the first 128 writes
/// (bit i of words 0-3 the loop of index i, of words 4-7 the write of index i).
pub const TRACKED: u32 = 128;

/// A place, as a record codes it: 0 the start, else 1 + the shader's place number.
pub type PlaceCode = u32;

/// What a session's runs held and passed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldTally {
    /// The places at which some run held its victim.
    pub held_at: BTreeSet<PlaceCode>,
    /// The workgroups some run drew to hold: held, or run on because the model guaranteed
    /// them when the run came to hold them.
    pub workgroups_held: BTreeSet<u32>,
    /// The places some run's victim passed where the model would have let it be held (bits
    /// as `TRACKED` says).
    pub reached: [u32; 8],
    /// In how many runs the victim passed each of them.
    #[serde(default)]
    pub reached_in: std::collections::BTreeMap<PlaceCode, u64>,
    /// Runs that held their victim at a place, whose places passed are counted.
    #[serde(default)]
    pub runs: u64,
    /// The most hold points a victim passed in a run.
    pub most_points: u32,
}

impl HoldTally {
    /// Whether no run held a victim or passed a place.
    pub fn is_empty(&self) -> bool {
        *self == HoldTally::default()
    }

    /// Adds one run: its victim, whether it was to be held at a place (`targeted`; else at
    /// its start, or at a loop step), and the record's `victim_parked` (0: never held, 1: at
    /// its start, n: at its hold point n - 1), `victim_site` (1 + the place), `reached` and
    /// the hold points the victim passed. The places passed count from targeted runs only,
    /// which alone pass the writes' hold points.
    pub fn add(
        &mut self,
        victim: Option<u32>,
        targeted: bool,
        parked: u32,
        site: u32,
        reached: &[u32; 8],
        most: u32,
    ) {
        if let Some(victim) = victim {
            // Tried: held, or guaranteed by the model when the run came to hold it.
            self.workgroups_held.insert(victim);
            if parked > 0 {
                self.held_at.insert(if parked == 1 { 0 } else { site });
            }
        }
        self.most_points = self.most_points.max(most);
        // Only a run that holds its victim at a place passes its writes' hold points.
        if !targeted {
            return;
        }
        for (mine, theirs) in self.reached.iter_mut().zip(reached) {
            *mine |= theirs;
        }
        for place in codes(reached) {
            *self.reached_in.entry(place).or_default() += 1;
        }
        self.runs += 1;
    }

    /// The places the runs' victims passed where the run could have held them (under HSA
    /// only while a lower id was unfinished: it always runs the lowest), coded, the start
    /// first.
    pub fn places_reached(&self) -> Vec<PlaceCode> {
        let mut out = vec![0];
        out.extend(codes(&self.reached));
        out
    }

    /// Of `places_reached`, those the victim passed in at least a quarter of the runs: the
    /// code a drawn workgroup commonly passes, which the draw (a place and a pass chosen at
    /// random) holds it at within a budget; a place only some runs or some workgroups pass (a
    /// fallback, a retry, the first tile's branch) is reported, not required.
    fn places_common(&self) -> Vec<PlaceCode> {
        let common = |p: &PlaceCode| {
            *p == 0 || self.reached_in.get(p).copied().unwrap_or(0) * 4 >= self.runs
        };
        self.places_reached().into_iter().filter(common).collect()
    }

    /// How well the runs under `model` covered the places it lets a workgroup be held at,
    /// among `workgroups`.
    pub fn coverage(&self, model: Schedule, workgroups: u32) -> HoldCoverage {
        let possible: Vec<PlaceCode> = match model {
            Schedule::Fair => Vec::new(),
            // A workgroup that has stepped runs on: only its start.
            Schedule::Obe | Schedule::Lobe => vec![0],
            Schedule::Hsa | Schedule::Unfair => self.places_common(),
        };
        let rare = match model {
            Schedule::Hsa | Schedule::Unfair => {
                (self.places_reached().len() - possible.len()) as u32
            }
            _ => 0,
        };
        // HSA always runs the lowest id: the others are the ones it may hold.
        let holdable = match model {
            Schedule::Hsa => workgroups.saturating_sub(1),
            _ => workgroups,
        };
        HoldCoverage {
            places: possible.len() as u32,
            places_held: possible.iter().filter(|p| self.held_at.contains(p)).count() as u32,
            rare_places: rare,
            workgroups: holdable,
            workgroups_held: self
                .workgroups_held
                .iter()
                .filter(|&&w| w < workgroups && (model != Schedule::Hsa || w != 0))
                .count() as u32,
            most_points: self.most_points,
        }
    }
}

/// The places a record's `reached` bits name, coded.
fn codes(reached: &[u32; 8]) -> Vec<PlaceCode> {
    let mut out = Vec::new();
    for (word, bits) in reached.iter().enumerate() {
        for bit in 0..32u32 {
            if bits & (1 << bit) != 0 {
                let index = (word as u32 % 4) * 32 + bit;
                let place = if word < 4 { index } else { HOLD_PLACE + index };
                out.push(1 + place);
            }
        }
    }
    out
}

/// A model's hold points as its runs covered them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldCoverage {
    /// The places the model lets a workgroup be held at, among those the runs passed.
    pub places: u32,
    /// Of those, the places some run held a workgroup at.
    pub places_held: u32,
    /// Places fewer than a quarter of the runs passed, not counted in `places`.
    #[serde(default)]
    pub rare_places: u32,
    /// The workgroups the model lets a run hold (under HSA all but the lowest id).
    pub workgroups: u32,
    /// The workgroups some run drew to hold (held, or guaranteed by the model then).
    pub workgroups_held: u32,
    /// The most hold points a victim passed in a run.
    pub most_points: u32,
}

impl HoldCoverage {
    /// Every place the model allows was held at, and every workgroup held.
    pub fn covered(&self) -> bool {
        self.places_held == self.places && self.workgroups_held >= self.workgroups
    }
}

impl std::fmt::Display for HoldCoverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "held at {} of {} place{}{}, tried {} of {} workgroup{}; up to {} hold point{} a victim passed",
            self.places_held,
            self.places,
            if self.places == 1 { "" } else { "s" },
            if self.rare_places > 0 {
                format!(" (and {} that few runs passed)", self.rare_places)
            } else {
                String::new()
            },
            self.workgroups_held,
            self.workgroups,
            if self.workgroups == 1 { "" } else { "s" },
            self.most_points,
            if self.most_points == 1 { "" } else { "s" },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_decode_as_the_shader_codes_them() {
        let mut tally = HoldTally::default();
        let mut reached = [0; 8];
        reached[0] = 0b101; // loops 0 and 2
        reached[4] = 0b10; // write 1
        reached[5] = 1; // write 32
        tally.add(Some(3), true, 4, 1 + HOLD_PLACE + 1, &reached, 9);
        assert_eq!(
            tally.places_reached(),
            vec![0, 1, 3, 1 + HOLD_PLACE + 1, 1 + HOLD_PLACE + 32]
        );
        let unfair = tally.coverage(Schedule::Unfair, 4);
        assert_eq!((unfair.places, unfair.places_held), (5, 1));
        assert_eq!((unfair.workgroups_held, unfair.most_points), (1, 9));
        assert!(!unfair.covered());
    }

    #[test]
    fn places_few_runs_pass_are_reported_not_required() {
        let mut tally = HoldTally::default();
        // Loop 0 in every run, loop 1 (a fallback) in one of eight.
        for run in 0..8u32 {
            let reached = [if run == 0 { 0b11 } else { 0b1 }, 0, 0, 0, 0, 0, 0, 0];
            tally.add(Some(run % 2), true, 2, 1, &reached, 4);
        }
        tally.add(Some(0), true, 1, 0, &[1, 0, 0, 0, 0, 0, 0, 0], 4);
        let c = tally.coverage(Schedule::Unfair, 2);
        assert_eq!((c.places, c.places_held, c.rare_places), (2, 2, 1));
        assert!(c.covered());
        assert!(
            c.to_string().contains("(and 1 that few runs passed)"),
            "{c}"
        );
    }

    #[test]
    fn obe_and_lobe_hold_only_at_the_start() {
        let mut tally = HoldTally::default();
        for victim in 0..2 {
            tally.add(Some(victim), true, 1, 0, &[1, 0, 0, 0, 1, 0, 0, 0], 3);
        }
        // A victim drawn but never held (the model guaranteed it) is tried, and held nowhere.
        tally.add(Some(5), true, 0, 0, &[0; 8], 3);
        assert_eq!(tally.held_at.len(), 1);
        for model in [Schedule::Obe, Schedule::Lobe] {
            let c = tally.coverage(model, 2);
            assert_eq!((c.places, c.places_held), (1, 1));
            assert!(c.covered(), "{model}");
        }
        assert!(!tally.coverage(Schedule::Hsa, 2).covered());
        // Workgroup 5 is none of 3: workgroup 2 was never tried.
        assert!(!tally.coverage(Schedule::Obe, 3).covered());
        assert!(tally.coverage(Schedule::Obe, 2).covered());
    }
}
