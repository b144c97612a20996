//! The watchdog's loop limit, learned from passing runs: data without a device, which the
//! runtime's engines keep and the fence search reads through its lab.
//!
//! A spin-wait that never ends (a lost task, a flag never set) runs to the limit in every
//! failing run; with a fixed limit of 2^20 polls that is about a second a run on a GPU,
//! and a batch of them outlasts any hang timeout. The limit is instead the highest trip count
//! any loop reached in a passing run, times a margin, within a floor and a ceiling: a loop
//! that never ends is cut within a few times the longest wait the application ever needed.

use serde::Serialize;

/// Trip counts seen in passing runs and the limit they give.
#[derive(Clone, Debug, Serialize)]
pub struct LoopLimit {
    /// The highest limit ever used: the device's ceiling, or what the user asked for.
    pub ceiling: u32,
    /// Learned: the highest trip count in a passing run, if any run passed yet.
    pub seen: Option<u32>,
    /// Passing runs that taught it.
    pub passing: u64,
    /// Whether the limit follows what was seen (false: the user fixed it).
    pub learning: bool,
}

/// The limit is the longest passing wait times this. A failing run costs the limit's
/// iterations, seconds where each poll of a lock convoy takes tens of microseconds, so the
/// margin is small; the fixed variants' waits stay within a few times the longest seen early
/// (bench/results/constants.md).
const MARGIN: u32 = 8;
/// The lowest learned limit. Sixteen passing runs do not show how long stress can stretch a
/// wait: below this floor, correct fixed variants had later runs cut by a limit learned from
/// their first runs. Every passing loop of the bundled fixed variants stays below 2^16, and an
/// endless spin still ends within 2^16 polls, milliseconds on a GPU
/// (bench/results/constants.md).
pub const FLOOR: u32 = 1 << 16;
/// Passing runs needed before the limit drops below the ceiling: stress and scheduling
/// lengthen waits, and a few runs have not seen the long ones.
/// Calibration's 16 passing runs of the application alone are enough: waiting for more lets
/// a first failing run spin to the ceiling and outlast the hang timeout.
const MIN_PASSING: u64 = 16;

/// The ceiling on a GPU: 2^18 polls, several times the longest loop of any passing run of the
/// bundled fixed variants, and short enough that a run which spins to it before the limit is
/// learned ends within the hang timeout, even in a lock convoy (bench/results/constants.md).
const GPU_CEILING: u32 = 1 << 18;
/// The ceiling on llvmpipe, whose shared loop limiter ends every loop of an invocation after
/// 65,535 iterations in all, silently: below it, an endless loop is reported at its line.
const LLVMPIPE_CEILING: u32 = 30_000;

/// A passing run whose longest loop came within this factor of the limit draws a warning:
/// on a busy CPU, legitimate spin-waits on llvmpipe reached 27,590 polls against its fixed
/// 30,000, and a slightly slower run is then cut and counted as a watchdog failure.
const NEAR: u32 = 2;

impl LoopLimit {
    /// A limit learned below `ceiling`.
    pub fn learned(ceiling: u32) -> LoopLimit {
        LoopLimit {
            ceiling: ceiling.max(1),
            seen: None,
            passing: 0,
            learning: true,
        }
    }

    /// A limit the user fixed.
    pub fn fixed(limit: u32) -> LoopLimit {
        LoopLimit {
            learning: false,
            ..LoopLimit::learned(limit)
        }
    }

    /// The ceiling for an adapter.
    pub fn ceiling_for(adapter_name: &str) -> u32 {
        if adapter_name.contains("llvmpipe") {
            LLVMPIPE_CEILING
        } else {
            GPU_CEILING
        }
    }

    /// Learns from a passing run whose loops reached at most `trips` iterations.
    pub fn observe_pass(&mut self, trips: u32) {
        self.passing += 1;
        self.seen = Some(self.seen.map_or(trips, |s| s.max(trips)));
    }

    /// Whether the limit now follows what passing runs showed.
    pub fn is_learned(&self) -> bool {
        self.learning && self.seen.is_some() && self.passing >= MIN_PASSING
    }

    /// Whether a passing run looped within `NEAR` times of the limit. A learned limit keeps
    /// `MARGIN` times the longest wait; this happens only where the limit cannot follow (the
    /// ceiling, or the limit the user gave).
    pub fn near_limit(&self) -> bool {
        self.seen
            .is_some_and(|seen| u64::from(seen) * u64::from(NEAR) >= u64::from(self.limit()))
    }

    /// What to say when passing runs came near the limit, if they did.
    pub fn warning(&self) -> Option<String> {
        if !self.near_limit() {
            return None;
        }
        let whose = if self.learning {
            "the ceiling on this adapter"
        } else {
            "as given"
        };
        let llvmpipe = if self.ceiling == LLVMPIPE_CEILING && self.learning {
            " (below 65,535 on llvmpipe, which ends every loop there)"
        } else {
            ""
        };
        Some(format!(
            "passing runs looped up to {} times, within {NEAR}x of the watchdog's limit of {} \
             ({whose}): a legitimate wait a little longer is cut there and counted as a watchdog \
             failure; if these waits are legitimate, give a higher --watchdog-limit{llvmpipe}",
            self.seen.unwrap_or_default(),
            self.limit()
        ))
    }

    /// The limit for the next runs.
    pub fn limit(&self) -> u32 {
        match self.seen {
            Some(seen) if self.is_learned() => seen
                .saturating_mul(MARGIN)
                .clamp(FLOOR.min(self.ceiling), self.ceiling),
            _ => self.ceiling,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_holds_until_enough_runs_passed() {
        let mut limit = LoopLimit::learned(GPU_CEILING);
        for _ in 0..MIN_PASSING - 1 {
            limit.observe_pass(10_000);
        }
        assert_eq!(limit.limit(), GPU_CEILING);
        limit.observe_pass(12_000);
        assert_eq!(limit.limit(), 12_000 * MARGIN);
    }

    #[test]
    fn the_limit_stays_within_floor_and_ceiling() {
        let mut short = LoopLimit::learned(GPU_CEILING);
        let mut long = LoopLimit::learned(LLVMPIPE_CEILING);
        for _ in 0..MIN_PASSING {
            short.observe_pass(3);
            long.observe_pass(20_000);
        }
        assert_eq!(short.limit(), FLOOR);
        assert_eq!(long.limit(), LLVMPIPE_CEILING);
    }

    #[test]
    fn a_fixed_limit_does_not_learn() {
        let mut limit = LoopLimit::fixed(123);
        for _ in 0..100 {
            limit.observe_pass(5);
        }
        assert_eq!(limit.limit(), 123);
    }

    #[test]
    fn passing_runs_near_a_limit_that_cannot_follow_draw_a_warning() {
        let mut fixed = LoopLimit::fixed(1000);
        fixed.observe_pass(499);
        assert!(fixed.warning().is_none());
        fixed.observe_pass(500);
        let warning = fixed.warning().unwrap();
        assert!(warning.contains("up to 500 times"), "{warning}");
        assert!(warning.contains("--watchdog-limit"), "{warning}");
        let mut ceiling = LoopLimit::learned(LLVMPIPE_CEILING);
        for _ in 0..MIN_PASSING {
            ceiling.observe_pass(27_590);
        }
        assert!(ceiling.warning().unwrap().contains("llvmpipe"));
        // A learned limit keeps eight times the longest wait.
        let mut learned = LoopLimit::learned(GPU_CEILING);
        for _ in 0..MIN_PASSING {
            learned.observe_pass(20_000);
        }
        assert!(!learned.near_limit());
    }

    #[test]
    fn llvmpipe_gets_a_ceiling_below_its_loop_limiter() {
        assert!(LoopLimit::ceiling_for("llvmpipe (LLVM 15.0.6, 256 bits)") < 65_535);
        assert_eq!(LoopLimit::ceiling_for("NVIDIA H100 80GB HBM3"), GPU_CEILING);
    }
}
