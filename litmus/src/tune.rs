//! `wgstress tune`: the seed study's three tuning steps on parallel litmus tests.
//! (a) patch finding: weak MP/SB/LB behaviour for each distance x stressed location;
//! (b) access sequence: every sequence up to length 5, stressing the first word of a patch;
//! (c) spread: how many patches to stress.

use crate::{env::Env, runner::Litmus};
use std::collections::BTreeMap;
use std::time::Instant;
use wgstress_runtime::gpu::device::Gpu;
use wgstress_runtime::stress::profile::Profile;
use wgstress_runtime::stress::strategy::Sequence;
use wgstress_runtime::Result;

#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// Distances 1..=distances between x and y.
    pub distances: u32,
    /// Stressed locations 0..locations from x.
    pub locations: u32,
    pub max_sequence: usize,
    pub max_spread: u32,
    pub iterations_per_cell: u32,
    pub env: Env,
}

const TESTS: [&str; 3] = ["mp", "sb", "lb"];
const PERIODS: [u32; 5] = [4, 8, 16, 32, 64];

impl TuneConfig {
    /// Scales the grids to fit `budget` seconds, given that one cell (one test, one setting)
    /// took `cell_seconds`: fewer iterations first, then coarser grids.
    pub fn fit(&mut self, budget: f64, cell_seconds: f64) {
        let cells = |c: &TuneConfig| {
            f64::from(
                3 * (c.distances * c.locations
                    + Sequence::all(c.max_sequence).len() as u32
                    + c.max_spread),
            )
        };
        let per_iteration = cell_seconds / f64::from(self.iterations_per_cell.max(1));
        while cells(self) * per_iteration * f64::from(self.iterations_per_cell) > budget {
            if self.iterations_per_cell > 4 {
                self.iterations_per_cell /= 2;
            } else if self.locations > 64 {
                self.locations /= 2;
            } else if self.max_sequence > 3 {
                self.max_sequence -= 1;
            } else if self.max_spread > 16 {
                self.max_spread /= 2;
            } else if self.distances > 1 {
                self.distances -= 1;
            } else {
                break;
            }
        }
    }

    pub fn cells(&self) -> u64 {
        3 * u64::from(
            self.distances * self.locations
                + Sequence::all(self.max_sequence).len() as u32
                + self.max_spread,
        )
    }
}

struct Bench {
    litmus: Vec<Litmus>,
}

impl Bench {
    fn new(gpu: &Gpu, config: &TuneConfig) -> Result<Bench> {
        let widest = Env {
            stride: config.locations.max(PERIODS[4] + 1) + config.distances + 1,
            ..config.env.clone()
        };
        let litmus = TESTS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                Litmus::new(
                    gpu,
                    crate::catalog::find(name).expect("known test"),
                    config.env.clone(),
                    widest.memory_words(),
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

/// Runs the three tuning steps; `on_cell` is called once per grid cell, for progress.
pub fn tune(gpu: &Gpu, config: &TuneConfig, on_cell: &mut dyn FnMut()) -> Result<Profile> {
    let start = Instant::now();
    let mut bench = Bench::new(gpu, config)?;
    let n = config.iterations_per_cell;
    let base = Env {
        stress_groups: config.env.stress_groups.max(1),
        ..config.env.clone()
    };
    let spread_all = base
        .instances()
        .min(base.stress_groups * base.workgroup_size);

    // (a) patch finding.
    let mut grid = BTreeMap::new();
    for (t, name) in TESTS.iter().enumerate() {
        let mut rows = Vec::new();
        for d in 1..=config.distances {
            let mut row = Vec::new();
            for l in 0..config.locations {
                on_cell();
                if l == 0 || l == d {
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
                row.push(bench.weak(gpu, t, env, n)?);
            }
            rows.push(row);
        }
        grid.insert(name.to_string(), rows);
    }
    let (found, score) = period(&grid);
    let (patch_words, patch_note) = match found {
        Some(p) if score > 0.3 => (p, format!("weak behaviour repeats every {p} words (autocorrelation {score:.2})")),
        _ => (32, format!("no periodic pattern over stressed locations (best autocorrelation {score:.2}): kept the seed's 32 words")),
    };

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
    for sequence in Sequence::all(config.max_sequence) {
        let mut weak = [0; 3];
        for (t, w) in weak.iter_mut().enumerate() {
            on_cell();
            *w = bench.weak(gpu, t, seq_env(sequence.clone()), n)?;
        }
        raw.push((sequence, weak));
    }
    let sequence_scores = normalised(&raw);
    let best_sequence: Sequence = best(&sequence_scores)
        .map(|s| s.parse().expect("printed sequence parses"))
        .unwrap_or_default();

    // (c) spread: stress m patches.
    let mut raw_spread: Vec<(u32, [u64; 3])> = Vec::new();
    for m in 1..=config.max_spread.min(base.instances()) {
        let mut weak = [0; 3];
        for (t, w) in weak.iter_mut().enumerate() {
            on_cell();
            let env = Env {
                target_lines: m,
                ..seq_env(best_sequence.clone())
            };
            *w = bench.weak(gpu, t, env, n)?;
        }
        raw_spread.push((m, weak));
    }
    let spread_scores: Vec<(u32, f64)> = normalised(&raw_spread);
    // With no weak behaviour at all, keep the seed's two patches.
    let spread = spread_scores
        .iter()
        .fold((2, 0.0), |b, (m, s)| if *s > b.1 { (*m, *s) } else { b })
        .0;

    Ok(Profile {
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
        iterations_per_cell: n,
        seconds: start.elapsed().as_secs_f64(),
    })
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

fn best(scores: &[(Sequence, f64)]) -> Option<String> {
    scores
        .iter()
        .filter(|(_, s)| *s > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(seq, _)| seq.to_string())
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
    fn fit_scales_down_to_the_budget() {
        let mut config = TuneConfig {
            distances: 4,
            locations: 128,
            max_sequence: 5,
            max_spread: 64,
            iterations_per_cell: 64,
            env: Env::default(),
        };
        config.fit(10.0, 0.05);
        let estimate = config.cells() as f64 * 0.05 / 64.0 * f64::from(config.iterations_per_cell);
        assert!(
            estimate <= 10.0 || config.iterations_per_cell == 4,
            "{config:?}"
        );
        assert!(config.iterations_per_cell < 64);
    }
}
