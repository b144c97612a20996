//! The progress models a run can be scheduled under, each described once: its name (on the
//! command line, in logs and JSON), which workgroups it guarantees to run (Table 1 of Sorensen
//! et al., "Specifying and Testing GPU Workgroup Progress Models", with workgroup = thread and
//! id = the application's linear workgroup id), and its code, the value of
//! `WgstressParams::schedule`. The instrumenter's library `switch`es over that field through
//! constants written from this table (`wgstress_instrument::library_source`), so the WGSL
//! cannot drift from it.

use serde::{Deserialize, Serialize};

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// Every workgroup is guaranteed to run until it finishes: nothing is parked.
    #[default]
    Fair,
    /// Occupancy-bound execution: a workgroup that has taken a step keeps running; one that
    /// has not may wait indefinitely.
    Obe,
    /// Heterogeneous System Architecture: only the lowest-id unfinished workgroup is
    /// guaranteed to run.
    Hsa,
    /// Linear OBE: a workgroup that has taken a step, and every workgroup of a lower id than
    /// one that has, keeps running.
    Lobe,
    /// No workgroup is guaranteed to run.
    Unfair,
}

impl Schedule {
    pub const ALL: [Schedule; 5] = [
        Schedule::Fair,
        Schedule::Obe,
        Schedule::Hsa,
        Schedule::Lobe,
        Schedule::Unfair,
    ];

    /// The value of `WgstressParams::schedule`.
    pub fn code(self) -> u32 {
        match self {
            Schedule::Fair => 0,
            Schedule::Obe => 1,
            Schedule::Hsa => 2,
            Schedule::Lobe => 3,
            Schedule::Unfair => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Schedule::Fair => "fair",
            Schedule::Obe => "obe",
            Schedule::Hsa => "hsa",
            Schedule::Lobe => "lobe",
            Schedule::Unfair => "unfair",
        }
    }

    /// Which workgroups it guarantees to run, in a line.
    pub fn help(self) -> &'static str {
        match self {
            Schedule::Fair => "Every workgroup runs until it finishes (nothing parked)",
            Schedule::Obe => {
                "A workgroup that took a step keeps running; one that has not may wait forever"
            }
            Schedule::Hsa => "Only the lowest-id unfinished workgroup is guaranteed to run",
            Schedule::Lobe => {
                "A workgroup that took a step, and every lower id than one that did, keeps running"
            }
            Schedule::Unfair => "No workgroup is guaranteed to run",
        }
    }

    /// What a programmer's GPU must give for a wait that needs this model, in a phrase.
    pub(crate) fn in_practice(self) -> &'static str {
        match self {
            Schedule::Fair => "hangs where workgroups wait for a free compute unit in id order without preemption, as on every GPU tested so far once it is full",
            Schedule::Obe => "hangs on GPUs that do not keep running a started workgroup (every GPU of OOPSLA'21's campaign gave OBE)",
            Schedule::Hsa => "hangs on GPUs that may starve the lowest-id unfinished workgroup",
            Schedule::Lobe => "hangs on Apple and ARM GPUs, which were seen not to give LOBE",
            Schedule::Unfair => "terminates under any scheduler",
        }
    }

    /// The schedule called `name`.
    pub fn named(name: &str) -> Option<Schedule> {
        Schedule::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether a workgroup is ever parked under it.
    pub fn parks(self) -> bool {
        self != Schedule::Fair
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;

    fn from_str(name: &str) -> Result<Schedule, String> {
        Schedule::named(name).ok_or_else(|| {
            let names: Vec<&str> = Schedule::ALL.iter().map(|s| s.name()).collect();
            format!("no schedule `{name}` (choose from {})", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_codes_are_distinct() {
        for schedule in Schedule::ALL {
            assert_eq!(schedule.name().parse::<Schedule>(), Ok(schedule));
        }
        let mut codes: Vec<u32> = Schedule::ALL.iter().map(|s| s.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), Schedule::ALL.len());
        assert!("nosuch"
            .parse::<Schedule>()
            .unwrap_err()
            .contains("fair, obe, hsa, lobe, unfair"));
    }
}
