//! Writing a run's parameters into the uniform block, at the offsets the manifest gives.

use wgstress_instrument::manifest::{Layout, Manifest, HOLD_PLACE};
use wgstress_model::stress::params::{RunParams, CAP_FACTOR, CAP_FLOOR, STALL_CHECKS};

/// How long a wait may see no progress before it is judged stalled, and a held workgroup be
/// held, on one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pacing {
    /// Progress checks (one per 64 steps of an invocation) without progress.
    pub stall_checks: u32,
    /// Checks a held invocation makes at most before it runs anyway.
    pub park_limit: u32,
    /// A stalled wait with nothing held is a hang only past this many iterations of its loop.
    pub hang_floor: u32,
    /// The watchdog's cap is this many times the run's (1 but in a confirmation).
    pub cap_scale: u32,
    /// The device runs a workgroup smaller than its vector with lanes that no invocation owns,
    /// which follow the control flow with their memory accesses dropped (llvmpipe): the
    /// instrumented shader finds them and lets them leave its loops (library.wgsl,
    /// `wgstress_enter_app`).
    pub masked_lanes: bool,
    /// Where the device's threads are the operating system's (llvmpipe), how many it runs, at
    /// least 1: a run that holds a workgroup has each wait at its start until that many
    /// started, and a holder tells a paused thread from a device without room by what started
    /// and finished (library.wgsl, `wgstress_meet`, `wgstress_others_quiet`). 0 elsewhere.
    pub meet: u32,
    /// The device starts a dispatch's workgroups out of id order (SwiftShader): the
    /// application's ids are given in the order its workgroups start (library.wgsl,
    /// `wgstress_in_start_order`), in shaders built for it (`InstrumentOptions::start_order`),
    /// and an occupancy bound admits them in that order.
    pub in_order: bool,
}

/// How a batch's waits are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stalls {
    /// A wait that saw no progress for the device's window, with nothing held, ends the run
    /// as a hang: the in-shader detector's verdict, which the host then confirms.
    Judged,
    /// The confirmation of such a verdict: the host judges it by the clock
    /// (`Engine::confirm`). On a device whose loops only the watchdog's cap ends, no stall is
    /// judged in the shader below the cap, `cap_scale` times the run's: a wait lasts until it
    /// ends by itself or the cap ends it (and a stall beside a held workgroup is judged only
    /// as a hang would be, which a confirmation, of a run with nothing held, does not meet).
    /// On one whose driver ends an invocation's loops (llvmpipe), a wait cannot outlast the
    /// driver's budget however it is judged: stalls are judged past three times the floor
    /// (three quarters of that budget), so that an attempt ends with the first wait that
    /// nearly exhausted it rather than with every waiting workgroup spinning to the driver's
    /// end.
    Timed { cap_scale: u32 },
}

impl Pacing {
    /// This pacing for a batch whose waits are judged as `stalls` says.
    pub(crate) fn judging(self, stalls: Stalls) -> Pacing {
        match stalls {
            Stalls::Judged => self,
            Stalls::Timed { cap_scale } if self.hang_floor > 0 => Pacing {
                hang_floor: self.hang_floor.saturating_mul(3),
                cap_scale,
                ..self
            },
            Stalls::Timed { cap_scale } => Pacing {
                hang_floor: u32::MAX,
                cap_scale,
                ..self
            },
        }
    }

    /// llvmpipe ends an invocation's loops after 65,535 iterations in all: there a wait is
    /// judged after 1,024 steps and a workgroup held for at most 16,384 checks, leaving most
    /// of that budget to the application; and as its threads are the operating system's (one
    /// descheduled for a while holds up whoever waits for it), a stall with nothing held is a
    /// hang only once its loop passed 16,384 iterations (a quarter of llvmpipe's budget, which
    /// a loop with barriers spends three times as fast).
    ///
    /// SwiftShader, too, runs workgroups on threads of the operating system's, one per core,
    /// each to its end, so it is paced as llvmpipe is (a held workgroup blocks what is queued
    /// behind it on its thread, and is let go once every other started workgroup finished).
    /// It starts a dispatch's workgroups out of id order (16 tasks, task k taking workgroups
    /// k, k + 16, ... in turn, and others as a thread comes free), so its workgroups take
    /// their ids in the order they start.
    pub(crate) fn for_adapter(name: &str) -> Pacing {
        let name = name.to_lowercase();
        let on_threads = Pacing {
            stall_checks: 16,
            park_limit: 16384,
            hang_floor: 16384,
            cap_scale: 1,
            masked_lanes: true,
            meet: 1,
            in_order: false,
        };
        if name.contains("llvmpipe") {
            Pacing {
                meet: llvmpipe_threads(),
                ..on_threads
            }
        } else if name.contains("swiftshader") {
            Pacing {
                meet: cores().clamp(1, 16),
                in_order: true,
                ..on_threads
            }
        } else {
            Pacing {
                stall_checks: STALL_CHECKS,
                park_limit: u32::MAX,
                hang_floor: 0,
                cap_scale: 1,
                masked_lanes: false,
                meet: 0,
                in_order: false,
            }
        }
    }
}

/// The processors this process may run on.
fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// The threads llvmpipe runs compute work on, as it counts them: `LP_NUM_THREADS` where set,
/// else the processors this process may run on, at most 16 (Mesa's `LP_MAX_THREADS`).
fn llvmpipe_threads() -> u32 {
    let set = std::env::var("LP_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok());
    let threads = set.unwrap_or_else(cores);
    threads.clamp(1, 16)
}

/// The places of one dispatch a victim can be held at, besides its start: its loops, and its
/// writes (shaders that can park: instrument's passes/holds.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Places {
    pub loops: u32,
    pub writes: u32,
}

impl Places {
    pub(crate) fn of(manifest: &Manifest) -> Places {
        Places {
            loops: manifest.loops.len() as u32,
            writes: manifest.holds.len() as u32,
        }
    }

    /// The shader's place number of the `pick`-th place (modulo their number), or none.
    fn pick(self, pick: u32) -> Option<u32> {
        let all = self.loops + self.writes;
        if all == 0 {
            return None;
        }
        let i = pick % all;
        Some(if i < self.loops {
            i
        } else {
            HOLD_PLACE + i - self.loops
        })
    }
}

/// Fills `out` (one params block) with `run`'s values for an application of `workgroups`,
/// whose dispatch has `places`.
pub(crate) fn encode(
    run: &RunParams,
    pacing: Pacing,
    workgroups: [u32; 3],
    places: Places,
    layout: &Layout,
    out: &mut [u8],
) {
    let mut put = |name: &str, index: u32, value: u32| {
        let base = layout
            .offset(name)
            .unwrap_or_else(|| panic!("the wgstress library lays out `{name}`"));
        let at = (base + 4 * index) as usize;
        out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    };
    for (i, n) in workgroups.iter().enumerate() {
        put("app_groups", i as u32, *n);
    }
    put("app_total", 0, workgroups.iter().product());
    put("stress_groups", 0, run.stress_groups);
    put("strategy", 0, run.strategy.code());
    put("shuffle_mul", 0, run.shuffle_mul);
    put("shuffle_add", 0, run.shuffle_add);
    put("iterations", 0, run.iterations);
    put("patch_words", 0, run.patch_words);
    put("patch_offset", 0, run.patch_offset);
    put("spread", 0, run.patches.len() as u32);
    put("sequence", 0, run.sequence);
    put("sequence_len", 0, run.sequence_len);
    put("watchdog_limit", 0, run.watchdog_limit);
    put("scratch_words", 0, run.scratch_words);
    put("seed", 0, run.seed as u32 ^ (run.seed >> 32) as u32);
    put("app_enabled", 0, u32::from(run.app_enabled));
    put("placement", 0, run.placement.code());
    put("schedule", 0, run.schedule.code());
    put("victim", 0, run.victim.unwrap_or(u32::MAX));
    // A dispatch without places (no loop, no write) holds the victim at its start.
    let (park_step, park_place) = match run.park_place {
        None => (run.park_step, u32::MAX),
        Some(pick) => match places.pick(pick) {
            Some(place) => (run.park_step, place),
            None => (0, u32::MAX),
        },
    };
    put("park_step", 0, park_step);
    put("park_place", 0, park_place);
    put("lead", 0, u32::from(run.lead && run.victim.is_some()));
    if let Some(script) = &run.script {
        put("script_len", 0, script.len());
        put("script_prefix", 0, script.prefix().len() as u32);
        put("script_cycle", 0, script.cycle().len() as u32);
        put("script_ends", 0, script.ends_mask());
        for (i, group) in script.words().enumerate() {
            put("script", i as u32, group);
        }
    }
    put("occupancy", 0, run.occupancy);
    put("stall_checks", 0, pacing.stall_checks);
    put("park_limit", 0, pacing.park_limit);
    put("hang_floor", 0, pacing.hang_floor);
    put("masked_lanes", 0, u32::from(pacing.masked_lanes));
    put("meet", 0, pacing.meet);
    put("in_order", 0, u32::from(pacing.in_order));
    put(
        "watchdog_cap",
        0,
        run.watchdog_limit
            .saturating_mul(CAP_FACTOR)
            .max(CAP_FLOOR)
            .saturating_mul(pacing.cap_scale),
    );
    for (i, patch) in run.patches.iter().enumerate() {
        put("patches", i as u32, *patch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_drivers_are_paced_for_their_threads_and_swiftshader_gives_ids_in_start_order() {
        let swiftshader = Pacing::for_adapter("SwiftShader Device (Subzero)");
        let browser = Pacing::for_adapter("google swiftshader");
        let llvmpipe = Pacing::for_adapter("llvmpipe (LLVM 15.0.6, 256 bits)");
        let gpu = Pacing::for_adapter("NVIDIA H200");
        assert_eq!(swiftshader, browser);
        assert!(swiftshader.in_order && swiftshader.meet >= 1);
        assert!(!llvmpipe.in_order && llvmpipe.meet >= 1);
        assert_eq!(swiftshader.park_limit, llvmpipe.park_limit);
        assert!(!gpu.in_order && gpu.meet == 0 && gpu.park_limit == u32::MAX);
    }
}
