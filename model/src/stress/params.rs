//! The settings of a session of stressed runs, and the parameters of each run, drawn from its
//! seed: the same seed gives the same parameters, so a run replays from its seed and its
//! `Replay`.

use crate::stress::schedule::Schedule;
use crate::stress::script::Script;
use crate::stress::sequence::Sequence;
use crate::stress::strategy::Strategy;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Buffer layouts a session can bind (`wgstress_runtime::gpu::layout`); a run picks one with
/// its seed.
pub const LAYOUTS: usize = 16;

/// Where the stress workgroups sit among the dispatched ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StressPlacement {
    /// Spread evenly among the application's, so both run together on any scheduler.
    #[default]
    Interleaved,
    /// After the application's workgroups.
    After,
    /// Before the application's workgroups.
    Before,
}

impl StressPlacement {
    pub fn code(self) -> u32 {
        self as u32
    }
}

impl std::fmt::Display for StressPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StressPlacement::Interleaved => "interleaved",
            StressPlacement::After => "after",
            StressPlacement::Before => "before",
        })
    }
}

/// How systematic stress stresses: from a tuned device profile, or the seed's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StressShape {
    /// Words per patch (32 in the seed; 64 on some chips).
    pub patch_words: u32,
    /// Patches in the scratchpad.
    pub patch_count: u32,
    /// Word inside each patch that is stressed.
    pub patch_offset: u32,
    pub sequence: Sequence,
    /// Patches stressed per run (K).
    pub spread: u32,
}

impl Default for StressShape {
    fn default() -> Self {
        StressShape {
            patch_words: 32,
            patch_count: 64,
            patch_offset: 0,
            sequence: Sequence::default(),
            spread: 2,
        }
    }
}

/// Settings that hold for a whole session of runs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub strategy: Strategy,
    pub shuffle: bool,
    pub shape: StressShape,
    /// Stress loop iterations per thread.
    pub iterations: u32,
    /// Words the cache strategy streams over (the L2 size).
    pub cache_words: u32,
    pub watchdog_limit: u32,
    /// Stressing workgroups as a fraction of the application's, drawn per run in this range.
    pub stress_fraction: (f64, f64),
    pub placement: StressPlacement,
    /// Each run binds the application's storage buffers at one of `LAYOUTS` offsets.
    pub buffer_shuffle: bool,
    /// The progress model runs are scheduled under, and the occupancy bound.
    pub scheduling: Scheduling,
}

/// Which workgroups a run may hold back: a progress model's parking, an occupancy bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheduling {
    pub schedule: Schedule,
    /// At most this many application workgroups run at once (`None`: as the device runs them).
    pub occupancy: Option<u32>,
}

impl Scheduling {
    /// Whether runs so scheduled may hold a workgroup back.
    pub fn holds(&self) -> bool {
        self.schedule.parks() || self.occupancy.is_some()
    }
}

/// Progress checks (one per 64 steps of an invocation) a wait may see no progress in before
/// it is judged stalled: about 16,000 iterations of a spin loop, well within llvmpipe's
/// 65,535 and about a millisecond of one on a CPU driver.
pub const STALL_CHECKS: u32 = 256;

/// A loop leaves, progress or not, past this many times the watchdog's limit, and never
/// before `CAP_FLOOR` iterations: a safety net for a livelock whose state changes forever. A
/// wait that sees no progress is judged by the scheduler's step long before (a hang), and one
/// that sees progress is no failure however long it lasts.
pub const CAP_FACTOR: u32 = 4;
pub const CAP_FLOOR: u32 = 1 << 18;

/// What a run's parameters were drawn from, as it ran: with its seed, this replays it (the
/// CLI renders it as `wgstress run` options). The adaptive shape and the learned loop limit
/// change from run to run, so a run's replay names the ones it ran with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Replay {
    /// The user's shaders as given: the seed still picks the buffer layout.
    Raw,
    Stressed(Drawn),
}

/// The stress settings of a run or a session, structured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    pub strategy: Strategy,
    pub iterations: u32,
    pub stress_fraction: (f64, f64),
    pub placement: StressPlacement,
    /// Systematic stress's shape.
    pub sequence: Sequence,
    pub spread: u32,
    pub patch_words: u32,
    /// Words the cache strategy streams over.
    pub cache_words: u32,
    pub shuffle: bool,
    pub buffer_shuffle: bool,
    pub watchdog_limit: u32,
    #[serde(default)]
    pub scheduling: Scheduling,
}

impl Settings {
    /// What `run` (a run of these settings) was drawn from, with the stress shape,
    /// iterations and loop limit it actually ran with.
    pub fn replay(&self, run: &RunParams) -> Drawn {
        Drawn {
            // A run's sequence came from a shape: it is always 1 to 5 accesses.
            sequence: Sequence::from_bits(run.sequence, run.sequence_len)
                .unwrap_or_else(|_| self.shape.sequence.clone()),
            spread: run.patches.len() as u32,
            patch_words: run.patch_words,
            iterations: run.iterations,
            watchdog_limit: run.watchdog_limit,
            ..self.drawn()
        }
    }

    /// These settings, structured, as the session's log records them.
    pub fn drawn(&self) -> Drawn {
        Drawn {
            strategy: self.strategy,
            iterations: self.iterations,
            stress_fraction: self.stress_fraction,
            placement: self.placement,
            sequence: self.shape.sequence.clone(),
            spread: self.shape.spread,
            patch_words: self.shape.patch_words,
            cache_words: self.cache_words,
            shuffle: self.shuffle,
            buffer_shuffle: self.buffer_shuffle,
            watchdog_limit: self.watchdog_limit,
            scheduling: self.scheduling,
        }
    }

    /// These settings with systematic stress of `shape`.
    pub fn with_shape(&self, shape: &StressShape) -> Settings {
        Settings {
            shape: shape.clone(),
            ..self.clone()
        }
    }
}

/// The parameters of one run, all derived from its seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunParams {
    pub seed: u64,
    pub strategy: Strategy,
    pub stress_groups: u32,
    pub shuffle_mul: u32,
    pub shuffle_add: u32,
    pub iterations: u32,
    pub patches: Vec<u32>,
    pub patch_words: u32,
    pub patch_offset: u32,
    pub sequence: u32,
    pub sequence_len: u32,
    pub scratch_words: u32,
    pub watchdog_limit: u32,
    /// False only while calibrating stress alone.
    pub app_enabled: bool,
    #[serde(default)]
    pub placement: StressPlacement,
    /// Which buffer layout the run binds (0: the buffers as allocated).
    #[serde(default)]
    pub layout: u32,
    #[serde(default)]
    pub schedule: Schedule,
    /// The application workgroup (linear id) the schedule holds back, if any.
    #[serde(default)]
    pub victim: Option<u32>,
    /// The victim parks at its start (0), or at this pass of `park_place`.
    #[serde(default)]
    pub park_step: u32,
    /// Where the victim parks: a pick among the dispatch's places (its loops and its writes, the
    /// pick modulo their number), or, `None`, at its `park_step`-th loop step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub park_place: Option<u32>,
    /// The victim runs alone until it parks (or finishes): every other workgroup waits at its
    /// start until then, a prefix every model allows. For holds that starve only once the
    /// victim took something first (a lock, a flag it has still to clear).
    #[serde(default)]
    pub lead: bool,
    /// The order the workgroups take their steps in, where the run follows a script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Script>,
    /// At most this many application workgroups run at once (0: any).
    #[serde(default)]
    pub occupancy: u32,
}

impl RunParams {
    /// Draws this run's stress parameters; the same seed gives the same parameters.
    pub fn draw(seed: u64, settings: &Settings, app_groups: u32) -> RunParams {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let shape = &settings.shape;
        let stress_groups = if settings.strategy == Strategy::None {
            0
        } else {
            let (lo, hi) = settings.stress_fraction;
            let fraction = if hi > lo {
                rng.random_range(lo..=hi)
            } else {
                lo
            };
            stress_groups(app_groups, fraction)
        };
        let (shuffle_mul, shuffle_add) = if settings.shuffle && app_groups > 1 {
            (
                coprime(&mut rng, app_groups, 1, app_groups),
                rng.random_range(0..app_groups),
            )
        } else {
            (1, 0)
        };
        let spread = shape.spread.clamp(1, shape.patch_count.min(64));
        let patches = sample(&mut rng, shape.patch_count as usize, spread as usize)
            .into_iter()
            .map(|p| p as u32)
            .collect();
        let patch_words = shape.patch_words * shape.patch_count;
        // Drawn last, so that the other parameters of a seed stay as they were without it.
        let layout = if settings.buffer_shuffle {
            rng.random_range(0..LAYOUTS as u32)
        } else {
            0
        };
        let schedule = settings.scheduling.schedule;
        let (victim, park_step, park_place) = if schedule.parks() && app_groups > 0 {
            victim(&mut rng, schedule, app_groups, shuffle_mul, shuffle_add)
        } else {
            (None, 0, None)
        };
        RunParams {
            seed,
            strategy: settings.strategy,
            stress_groups,
            shuffle_mul,
            shuffle_add,
            iterations: settings.iterations,
            patches,
            patch_words: shape.patch_words,
            patch_offset: shape.patch_offset,
            sequence: shape.sequence.bits(),
            sequence_len: shape.sequence.len() as u32,
            scratch_words: if settings.strategy == Strategy::Cache {
                settings.cache_words
            } else {
                patch_words
            },
            watchdog_limit: settings.watchdog_limit,
            app_enabled: true,
            placement: settings.placement,
            layout,
            schedule,
            victim,
            park_step,
            park_place,
            lead: false,
            script: None,
            occupancy: settings.scheduling.occupancy.unwrap_or(0),
        }
    }
}

/// The workgroup a run under `schedule` holds back, and where. Steered toward the ones others
/// wait for: half the time one of the first four the device starts (a lock's first holders,
/// the first tiles of a chained scan). Under HSA and unfair, half the time at its start and
/// else at one of the dispatch's places (a loop, or after a write: a lock, a ticket, a tile
/// just taken, a flag still to set), each alike, at its first pass three times in four and
/// else at a pass up to the 32nd (octaves 1-2, 2-4, ..., 16-32), so that every place is
/// tried as often as any. OBE and LOBE hold a workgroup only before its first
/// step.
fn victim(
    rng: &mut impl Rng,
    schedule: Schedule,
    app_groups: u32,
    shuffle_mul: u32,
    shuffle_add: u32,
) -> (Option<u32>, u32, Option<u32>) {
    let rank = if rng.random_bool(0.5) {
        rng.random_range(0..app_groups.min(4))
    } else {
        rng.random_range(0..app_groups)
    };
    // The id wgstress_role gives the application workgroup dispatched rank-th.
    let id = ((u64::from(rank) * u64::from(shuffle_mul) % u64::from(app_groups)
        + u64::from(shuffle_add))
        % u64::from(app_groups)) as u32;
    let (step, place) = match schedule {
        Schedule::Fair | Schedule::Obe | Schedule::Lobe => (0, None),
        Schedule::Hsa | Schedule::Unfair => {
            if rng.random_bool(0.5) {
                (0, None)
            } else {
                let place = rng.random::<u32>();
                let pass = if rng.random_bool(0.75) {
                    1
                } else {
                    let octave = rng.random_range(0..5u32);
                    rng.random_range((1u32 << octave)..=(2u32 << octave))
                };
                (pass, Some(place))
            }
        }
    };
    (Some(id), step, place)
}

/// Stress workgroups for a fraction of the application's.
fn stress_groups(app_groups: u32, fraction: f64) -> u32 {
    ((f64::from(app_groups) * fraction).round() as u32).max(1)
}

impl RunParams {
    /// This run's parameters for one dispatch of a pipeline of `groups` workgroups: the same
    /// stress (none where the dispatch runs without), and a workgroup shuffle that is a
    /// bijection of this dispatch's workgroups: the run's multiplier, moved up to the next one
    /// co-prime with `groups`, and its offset modulo `groups`. A function of the run's
    /// parameters only, so a run replays from its seed.
    pub fn for_dispatch(&self, groups: u32, stress: bool) -> RunParams {
        let (shuffle_mul, shuffle_add) = if groups <= 1 {
            (1, 0)
        } else {
            let mut m = (self.shuffle_mul % groups).max(1);
            while gcd(m, groups) != 1 {
                m += 1;
            }
            (m, self.shuffle_add % groups)
        };
        RunParams {
            stress_groups: if stress { self.stress_groups } else { 0 },
            shuffle_mul,
            shuffle_add,
            ..self.clone()
        }
    }
}

/// The most stress workgroups runs of `settings` draw.
pub fn max_stress_groups(settings: &Settings, app_groups: u32) -> u32 {
    match settings.strategy {
        Strategy::None => 0,
        _ => stress_groups(app_groups, settings.stress_fraction.1),
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A random multiplier in `lowest..below` (`below` at most `n`) co-prime with `n`, so that
/// x -> x * m mod n is a bijection; 1 when that range is empty.
pub fn coprime(rng: &mut impl Rng, n: u32, lowest: u32, below: u32) -> u32 {
    let below = below.min(n);
    if below <= lowest {
        return 1;
    }
    loop {
        let m = rng.random_range(lowest..below);
        if gcd(m, n) == 1 {
            return m;
        }
    }
}

/// The seed of run `index` in a session started from `master`.
pub fn run_seed(master: u64, index: u64) -> u64 {
    // splitmix64: consecutive runs get unrelated seeds.
    let mut z = master.wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(strategy: Strategy, shuffle: bool) -> Settings {
        Settings {
            strategy,
            shuffle,
            shape: StressShape::default(),
            iterations: 100,
            cache_words: 1 << 20,
            watchdog_limit: 1000,
            stress_fraction: (0.15, 0.5),
            placement: StressPlacement::Interleaved,
            buffer_shuffle: true,
            scheduling: Default::default(),
        }
    }

    #[test]
    fn same_seed_same_parameters() {
        let s = settings(Strategy::Systematic, true);
        assert_eq!(RunParams::draw(42, &s, 100), RunParams::draw(42, &s, 100));
        assert_ne!(RunParams::draw(42, &s, 100), RunParams::draw(43, &s, 100));
    }

    #[test]
    fn stress_groups_are_15_to_50_percent() {
        let s = settings(Strategy::Systematic, false);
        for seed in 0..200 {
            let p = RunParams::draw(seed, &s, 200);
            assert!((30..=100).contains(&p.stress_groups), "{}", p.stress_groups);
            assert_eq!(p.patches.len(), 2);
            assert!(p.patches.iter().all(|x| *x < 64));
            assert_ne!(p.patches[0], p.patches[1]);
        }
    }

    #[test]
    fn shuffle_is_a_bijection() {
        let s = settings(Strategy::None, true);
        for seed in 0..50 {
            let n = 36;
            let p = RunParams::draw(seed, &s, n);
            let mut seen: Vec<u32> = (0..n)
                .map(|x| (x * p.shuffle_mul % n + p.shuffle_add) % n)
                .collect();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_dispatch_shuffles_its_own_workgroups_as_a_bijection() {
        let s = settings(Strategy::Systematic, true);
        for seed in 0..50 {
            let p = RunParams::draw(seed, &s, 360);
            for n in [1u32, 2, 6, 7, 12, 64, 90, 360, 1000] {
                let d = p.for_dispatch(n, true);
                let mut seen: Vec<u32> = (0..n)
                    .map(|x| {
                        ((u64::from(x) * u64::from(d.shuffle_mul) % u64::from(n)) as u32
                            + d.shuffle_add)
                            % n
                    })
                    .collect();
                seen.sort();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "seed {seed}, {n} groups");
                assert_eq!(d.stress_groups, p.stress_groups);
            }
            assert_eq!(p.for_dispatch(8, false).stress_groups, 0);
        }
    }
}
