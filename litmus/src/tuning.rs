//! `wgstress tune`: the seed study's three tuning steps on parallel litmus tests.
//! (a) patch finding: weak MP/SB/LB behaviour for each distance x stressed location;
//! (b) access sequence: every sequence up to length 5, stressing the first word of a patch;
//! (c) spread: how many patches to stress.
//!
//! A budget holds: the grids are sized from what a cell costs on the device (`cell_cost`,
//! `TuneConfig::fit`), step (a) adds no distance row past its share of the time, and steps
//! (b) and (c) are sized again, from what (a)'s cells cost, to the time left, and stop at the
//! deadline after their least, when cells cost more than measured. A choice rests
//! on weak behaviour only when its setting showed at least `MIN_WEAK`: one weak SB outcome
//! in a grid of noise once chose a sequence, and `run` then used it.

use crate::runner::Litmus;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::tune_grid::{
    capacity, CellCost, Evidence, TuneConfig, MIN_WEAK, PERIODS,
};
use wgstress_model::stress::profile::Profile;
use wgstress_model::stress::sequence::Sequence;
use wgstress_runtime::gpu::device::Gpu;
use wgstress_runtime::Result;

const TESTS: [&str; 3] = ["mp", "sb", "lb"];

/// What a cell costs on `gpu` for `config`: MP cells, after a warm-up, of one and of three
/// iterations in the memory of the smallest tune, and of one in the memory of `config`'s.
pub fn cell_cost(gpu: &Gpu, config: &TuneConfig) -> Result<CellCost> {
    let mut smallest = config.clone();
    while smallest.coarser() {}
    let (small, large) = (capacity(&smallest), capacity(config));
    let base = Env {
        stress_groups: config.env.stress_groups.max(1),
        ..config.env.clone()
    };
    let mp = crate::catalog::find("mp").expect("known test");
    let time = |words: u64, iterations: &[u32]| -> Result<Vec<f64>> {
        let mut litmus = Litmus::new(gpu, mp.clone(), base.clone(), words, 1)?;
        let mut times = Vec::new();
        // The first cell warms up; each cell's own environment makes it clear the memory.
        for (i, n) in std::iter::once(1)
            .chain(iterations.iter().copied())
            .enumerate()
        {
            let env = Env {
                distance: 1,
                stress_offset: 2 + (i % 2) as u32,
                stride: 4,
                target_lines: base
                    .instances()
                    .min(base.stress_groups * base.workgroup_size),
                ..base.clone()
            };
            let start = Instant::now();
            litmus.set_env(env, &gpu.limits)?;
            litmus.run(gpu, n)?;
            times.push(start.elapsed().as_secs_f64());
        }
        Ok(times[1..].to_vec())
    };
    let at_small = time(small, &[1, 3])?;
    let per_iteration = ((at_small[1] - at_small[0]) / 2.0).max(0.0);
    let per_word = if large > small {
        ((time(large, &[1])?[0] - at_small[0]) / (large - small) as f64).max(0.0)
    } else {
        0.0
    };
    Ok(CellCost {
        fixed: (at_small[0] - per_iteration - per_word * small as f64).max(0.0),
        per_iteration,
        per_word,
    })
}

struct Bench {
    litmus: Vec<Litmus>,
}

impl Bench {
    fn new(gpu: &Gpu, config: &TuneConfig) -> Result<Bench> {
        let litmus = TESTS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                Litmus::new(
                    gpu,
                    crate::catalog::find(name).expect("known test"),
                    config.env.clone(),
                    capacity(config),
                    i as u64 + 1,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Bench { litmus })
    }

    /// Weak behaviours of test `t` in `env`.
    fn weak(&mut self, gpu: &Gpu, t: usize, env: Env, iterations: u32) -> Result<u64> {
        self.litmus[t].set_env(env, &gpu.limits)?;
        Ok(self.litmus[t].run(gpu, iterations)?.weak)
    }
}

/// `values` less their least-squares line: a trend over locations is not a period.
fn detrended(values: Vec<f64>) -> Vec<f64> {
    let n = values.len() as f64;
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = values.iter().sum::<f64>() / n;
    let sxx: f64 = (0..values.len()).map(|x| (x as f64 - mean_x).powi(2)).sum();
    let sxy: f64 = values
        .iter()
        .enumerate()
        .map(|(x, y)| (x as f64 - mean_x) * (y - mean_y))
        .sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    values
        .iter()
        .enumerate()
        .map(|(x, y)| y - mean_y - slope * (x as f64 - mean_x))
        .collect()
}

/// Finds the period of the stress effect over locations: the lag at which the three tests'
/// weak counts agree best with themselves shifted.
fn period(grid: &BTreeMap<String, Vec<Vec<u64>>>) -> (Option<u32>, f64) {
    let mut best = (None, 0.0);
    for p in PERIODS {
        let mut score = 0.0;
        let mut tests = 0.0;
        for rows in grid.values() {
            let cols = rows[0].len();
            if (p as usize) * 2 > cols {
                continue;
            }
            let sums = (0..cols)
                .map(|l| rows.iter().map(|r| r[l] as f64).sum())
                .collect();
            let effect = detrended(sums);
            let var: f64 = effect.iter().map(|e| e.powi(2)).sum();
            if var <= 0.0 {
                continue;
            }
            let lag = p as usize;
            let cov: f64 = (0..cols - lag).map(|l| effect[l] * effect[l + lag]).sum();
            score += cov / var;
            tests += 1.0;
        }
        if tests > 0.0 && score / tests > best.1 {
            best = (Some(p), score / tests);
        }
    }
    best
}

/// What `tune` found: the profile, and the weak behaviour its choices rest on.
pub struct Tuned {
    pub profile: Profile,
    pub evidence: Evidence,
    /// Stopped (Ctrl-C, SIGTERM) before its last cell: the profile rests on the cells that
    /// ran (`evidence.cells`) and is no tune's choice.
    pub interrupted: bool,
}

/// The cells of a tune, counted and timed as they run.
struct Cells<'a> {
    gpu: &'a Gpu,
    bench: Bench,
    iterations: u32,
    on_cell: &'a mut dyn FnMut(),
    stop: &'a AtomicBool,
    run: u64,
    weak: u64,
    seconds: f64,
}

impl Cells<'_> {
    /// Weak behaviours of test `t` in `env`; none, without running it, once `stop` is up.
    fn weak(&mut self, t: usize, env: Env) -> Result<u64> {
        if self.stop.load(Ordering::SeqCst) {
            return Ok(0);
        }
        (self.on_cell)();
        let start = Instant::now();
        let weak = self.bench.weak(self.gpu, t, env, self.iterations)?;
        self.seconds += start.elapsed().as_secs_f64();
        self.run += 1;
        self.weak += weak;
        Ok(weak)
    }

    /// Seconds a cell took so far.
    fn cost(&self) -> f64 {
        self.seconds / self.run.max(1) as f64
    }
}

/// Runs the three tuning steps, ending by `deadline` if given (see the module's note), or
/// after the cell running once `stop` is up; `on_cell` is called once per grid cell, for
/// progress.
pub fn tune(
    gpu: &Gpu,
    config: &TuneConfig,
    deadline: Option<Instant>,
    stop: &AtomicBool,
    on_cell: &mut dyn FnMut(),
) -> Result<Tuned> {
    let start = Instant::now();
    let mut config = config.clone();
    let mut cells = Cells {
        gpu,
        bench: Bench::new(gpu, &config)?,
        iterations: config.iterations_per_cell,
        on_cell,
        stop,
        run: 0,
        weak: 0,
        seconds: 0.0,
    };
    let base = Env {
        stress_groups: config.env.stress_groups.max(1),
        ..config.env.clone()
    };
    let spread_all = base
        .instances()
        .min(base.stress_groups * base.workgroup_size);

    // (a) patch finding, a distance at a time, within its share of the time.
    let share = deadline.map(|end| {
        let part = (3 * config.distances * config.locations) as f64 / config.cells() as f64;
        start + end.saturating_duration_since(start).mul_f64(part)
    });
    let mut grid: BTreeMap<String, Vec<Vec<u64>>> =
        TESTS.iter().map(|t| (t.to_string(), Vec::new())).collect();
    let mut row_seconds = 0.0;
    for d in 1..=config.distances {
        let row_start = Instant::now();
        let past = share.is_some_and(|end| row_start + Duration::from_secs_f64(row_seconds) > end);
        if d > 1 && past {
            break;
        }
        for (t, name) in TESTS.iter().enumerate() {
            let mut row = Vec::new();
            for l in 0..config.locations {
                if l == 0 || l == d {
                    // Not run (no stress on x or y), but a cell of the grid.
                    (cells.on_cell)();
                    row.push(0);
                    continue;
                }
                let env = Env {
                    distance: d,
                    stress_offset: l,
                    stride: config.locations + config.distances + 1,
                    target_lines: spread_all,
                    ..base.clone()
                };
                row.push(cells.weak(t, env)?);
            }
            grid.get_mut(*name).expect("a row per test").push(row);
        }
        row_seconds = row_start.elapsed().as_secs_f64();
    }
    let grid_weak: u64 = grid.values().flatten().flatten().sum();
    let (found, score) = period(&grid);
    let (patch_words, patch_note, patch_evidence) = match found {
        Some(p) if score > 0.3 && grid_weak >= MIN_WEAK => (p, format!("weak behaviour repeats every {p} words (autocorrelation {score:.2}, {grid_weak} weak behaviours)"), grid_weak),
        _ => (32, format!("no periodic pattern over stressed locations (best autocorrelation {score:.2}, {grid_weak} weak behaviours): kept PLDI'16's 32 words"), 0),
    };
    if let Some(end) = deadline {
        fit_rest(&mut config, end, cells.cost(), 2, spread_all);
    }

    // (b) access sequence: stress the first word of the next patch.
    let seq_env = |sequence: Sequence| Env {
        distance: 1,
        stress_offset: patch_words,
        stride: patch_words + 1,
        target_lines: spread_all,
        sequence,
        ..base.clone()
    };
    let mut raw: Vec<(Sequence, [u64; 3])> = Vec::new();
    // The least of this step: every sequence of one access.
    let least_sequences = Sequence::all(1).len();
    for sequence in Sequence::all(config.max_sequence) {
        if raw.len() >= least_sequences && past(deadline) {
            break;
        }
        let mut weak = [0; 3];
        for (t, w) in weak.iter_mut().enumerate() {
            *w = cells.weak(t, seq_env(sequence.clone()))?;
        }
        raw.push((sequence, weak));
    }
    let sequence_scores = normalised(&raw);
    let (best_sequence, sequence_evidence) = match best(&sequence_scores, &raw) {
        Some((sequence, weak)) if weak >= MIN_WEAK => (sequence, weak),
        _ => (Sequence::default(), 0),
    };
    if let Some(end) = deadline {
        fit_rest(&mut config, end, cells.cost(), 1, spread_all);
    }

    // (c) spread: stress m patches.
    let mut raw_spread: Vec<(u32, [u64; 3])> = Vec::new();
    for m in 1..=config.max_spread.min(base.instances()) {
        if !raw_spread.is_empty() && past(deadline) {
            break;
        }
        let mut weak = [0; 3];
        for (t, w) in weak.iter_mut().enumerate() {
            let env = Env {
                target_lines: m,
                ..seq_env(best_sequence.clone())
            };
            *w = cells.weak(t, env)?;
        }
        raw_spread.push((m, weak));
    }
    let spread_scores: Vec<(u32, f64)> = normalised(&raw_spread);
    // Without enough weak behaviour, keep the seed's two patches.
    let (spread, spread_evidence) = match best(&spread_scores, &raw_spread) {
        Some((m, weak)) if weak >= MIN_WEAK => (m, weak),
        _ => (2, 0),
    };

    let evidence = Evidence {
        patch: patch_evidence,
        sequence: sequence_evidence,
        spread: spread_evidence,
        weak: cells.weak,
        cells: cells.run,
    };
    let profile = Profile {
        adapter: gpu.info.name.clone(),
        driver: format!("{} {}", gpu.info.driver, gpu.info.driver_info),
        backend: format!("{:?}", gpu.info.backend),
        patch_words,
        sequence: best_sequence,
        spread,
        patch_note,
        patch_grid: grid,
        sequence_scores: sequence_scores
            .into_iter()
            .map(|(s, v)| (s.to_string(), v))
            .collect(),
        spread_scores,
        iterations_per_cell: config.iterations_per_cell,
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok(Tuned {
        profile,
        evidence,
        interrupted: stop.load(Ordering::SeqCst),
    })
}

/// Whether `deadline` has passed. Steps (b) and (c) check it before each setting: their
/// sizes come from an estimate, and a loaded machine makes cells dearer than it said; each
/// step still runs its least (every sequence of one access; one patch), so that every step
/// has a choice.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|end| Instant::now() >= end)
}

/// Sizes the steps still to run, from the step of `from` on (2: sequence and spread; 1:
/// spread), to end by `end` at `cost` seconds a cell: fewer patches first, then shorter
/// sequences, down to one of each.
fn fit_rest(config: &mut TuneConfig, end: Instant, cost: f64, from: u32, spread_all: u32) {
    let left = end.saturating_duration_since(Instant::now()).as_secs_f64();
    let cells = |c: &TuneConfig| {
        let sequences = if from == 2 {
            Sequence::all(c.max_sequence).len() as f64
        } else {
            0.0
        };
        3.0 * (sequences + f64::from(c.max_spread.min(spread_all.max(1))))
    };
    while cells(config) * cost > left {
        if config.max_spread > 4 {
            config.max_spread /= 2;
        } else if from == 2 && config.max_sequence > 2 {
            config.max_sequence -= 1;
        } else if config.max_spread > 1 {
            config.max_spread = (config.max_spread / 2).max(1);
        } else if from == 2 && config.max_sequence > 1 {
            config.max_sequence -= 1;
        } else {
            break;
        }
    }
}

/// Each test's counts divided by that test's total, summed: every test weighs the same.
fn normalised<K: Clone>(raw: &[(K, [u64; 3])]) -> Vec<(K, f64)> {
    let totals: Vec<f64> = (0..3)
        .map(|t| raw.iter().map(|(_, w)| w[t] as f64).sum::<f64>().max(1.0))
        .collect();
    raw.iter()
        .map(|(k, w)| (k.clone(), (0..3).map(|t| w[t] as f64 / totals[t]).sum()))
        .collect()
}

/// The setting with the highest score, if any scored, with its weak behaviours (summed over
/// the three tests).
fn best<K: Clone>(scores: &[(K, f64)], raw: &[(K, [u64; 3])]) -> Option<(K, u64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, (_, score)) in scores.iter().enumerate() {
        if *score > best.map_or(0.0, |(_, s)| s) {
            best = Some((i, *score));
        }
    }
    best.map(|(i, _)| (scores[i].0.clone(), raw[i].1.iter().sum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_finds_a_repeating_pattern() {
        let row: Vec<u64> = (0..128)
            .map(|l| if l % 32 == 5 { 100 } else { 1 })
            .collect();
        let grid: BTreeMap<String, Vec<Vec<u64>>> = TESTS
            .iter()
            .map(|t| (t.to_string(), vec![row.clone(), row.clone()]))
            .collect();
        assert_eq!(period(&grid).0, Some(32));
        let flat: BTreeMap<String, Vec<Vec<u64>>> = TESTS
            .iter()
            .map(|t| (t.to_string(), vec![vec![7; 128]]))
            .collect();
        assert_eq!(period(&flat).0, None);
        let trend: BTreeMap<String, Vec<Vec<u64>>> = TESTS
            .iter()
            .map(|t| (t.to_string(), vec![(0..128).map(|l| 100 + 3 * l).collect()]))
            .collect();
        assert!(
            period(&trend).1 < 0.3,
            "a trend is not a period: {:?}",
            period(&trend)
        );
    }

    #[test]
    fn a_choice_needs_enough_weak_behaviour() {
        let scores = [("a", 0.0), ("b", 2.0), ("c", 2.0), ("d", 1.0)];
        let raw = [
            ("a", [0; 3]),
            ("b", [3, 4, 5]),
            ("c", [9, 9, 9]),
            ("d", [1, 0, 0]),
        ];
        // The first of equals, with its weak behaviours over the three tests.
        assert_eq!(best(&scores, &raw), Some(("b", 12)));
        assert_eq!(best(&[("a", 0.0)], &[("a", [0; 3])]), None);
        let mut evidence = Evidence {
            sequence: MIN_WEAK - 1,
            ..Evidence::default()
        };
        assert!(!evidence.any());
        evidence.spread = MIN_WEAK;
        assert!(evidence.any());
    }
}
