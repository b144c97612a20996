//! Environment search: random environments first, then guided ones (the best so far with one
//! parameter redrawn), each scored on every mutant's death rate and chosen by Algorithm 1
//! with the mutants in the place of the paper's devices.

use super::choose::{merge_environments, Score};
use super::mutants::{run_suite, Pool};
use super::test::Test;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wgstress_model::litmus::env::{Env, LitmusPlacement};
use wgstress_model::litmus::kind::Kind;
use wgstress_model::litmus::mutants::ceiling_rate;
use wgstress_model::litmus::search::{Candidate, Phase, SearchResult};
use wgstress_model::stress::sequence::Sequence;
use wgstress_runtime::gpu::device::Gpu;
use wgstress_runtime::{Result, RuntimeError};

/// The values each parameter may take.
#[derive(Clone, Debug)]
pub struct Space {
    pub testing_groups: Vec<u32>,
    pub workgroup_size: u32,
    pub strides: Vec<u32>,
    /// Words between the end of the x region and y's region; 0 puts y inside x's stride.
    pub y_gaps: Vec<u32>,
    pub placements: Vec<LitmusPlacement>,
    pub shuffles: Vec<bool>,
    /// Stress workgroups per testing workgroup.
    pub stress_ratios: Vec<f64>,
    pub stress_iterations: Vec<u32>,
    pub pre_stress: Vec<u32>,
    pub target_lines: Vec<u32>,
    pub sequences: Vec<Sequence>,
    /// Words from x that stress hammers (within the stride; skipped when a test location).
    pub stress_offsets: Vec<u32>,
}

impl Default for Space {
    fn default() -> Self {
        Space {
            testing_groups: vec![256, 512, 1024],
            workgroup_size: 256,
            strides: vec![1, 2, 4, 16, 32, 64],
            y_gaps: vec![0, 1 << 18, 1 << 20],
            placements: vec![
                LitmusPlacement::Direct,
                LitmusPlacement::Permuted,
                LitmusPlacement::YPermuted,
                LitmusPlacement::Scattered,
            ],
            shuffles: vec![false, true],
            stress_ratios: vec![0.0, 0.0, 0.25, 0.5, 1.0],
            stress_iterations: vec![16, 64, 256, 1024],
            pre_stress: vec![0, 0, 16, 64],
            target_lines: vec![1, 2, 8, 64],
            sequences: Sequence::all(3),
            stress_offsets: vec![1, 3, 8, 17, 33],
        }
    }
}

/// A point of the space: an index into each parameter's values.
pub(crate) type Point = [usize; 11];

impl Space {
    fn sizes(&self) -> Point {
        [
            self.testing_groups.len(),
            self.strides.len(),
            self.y_gaps.len(),
            self.placements.len(),
            self.shuffles.len(),
            self.stress_ratios.len(),
            self.stress_iterations.len(),
            self.pre_stress.len(),
            self.target_lines.len(),
            self.sequences.len(),
            self.stress_offsets.len(),
        ]
    }

    pub fn random(&self, rng: &mut impl Rng) -> Point {
        self.sizes().map(|n| rng.random_range(0..n.max(1)))
    }

    /// `point` with one parameter redrawn to another value.
    pub fn neighbour(&self, point: &Point, rng: &mut impl Rng) -> Point {
        let sizes = self.sizes();
        let movable: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] > 1).collect();
        let mut next = *point;
        if let Some(&gene) = movable.get(rng.random_range(0..movable.len().max(1))) {
            let shift = rng.random_range(1..sizes[gene]);
            next[gene] = (point[gene] + shift) % sizes[gene];
        }
        next
    }

    /// The environment at `point`; stress is dropped when its words would hit a location.
    pub fn env(&self, p: &Point, limits: &wgpu::Limits) -> Option<Env> {
        let testing_groups = self.testing_groups[p[0]];
        let stride = self.strides[p[1]];
        let instances = testing_groups * self.workgroup_size;
        let gap = self.y_gaps[p[2]];
        let distance = if gap == 0 && stride >= 2 {
            stride / 2
        } else {
            instances.checked_mul(stride)?.checked_add(gap)?
        };
        let stress_groups = (f64::from(testing_groups) * self.stress_ratios[p[5]]).round() as u32;
        let env = Env {
            testing_groups,
            workgroup_size: self.workgroup_size,
            stride,
            distance,
            placement: self.placements[p[3]],
            shuffle: self.shuffles[p[4]],
            stress_groups,
            stress_offset: self.stress_offsets[p[10]],
            target_lines: self.target_lines[p[8]].min(instances),
            line_size: 1,
            sequence: self.sequences[p[9]].clone(),
            stress_iterations: self.stress_iterations[p[6]],
            pre_stress: self.pre_stress[p[7]],
            fence: false,
            same_thread: false,
        };
        if crate::env::check(&env, limits).is_ok() {
            return Some(env);
        }
        let calm = Env {
            stress_groups: 0,
            pre_stress: 0,
            ..env
        };
        crate::env::check(&calm, limits).is_ok().then_some(calm)
    }
}

#[derive(Clone, Debug)]
pub struct EnvSearchConfig {
    pub space: Space,
    /// Wall time for the whole search.
    pub budget: Duration,
    /// Time each mutant runs in each environment.
    pub per_test: Duration,
    /// Share of the budget for random environments before guided ones.
    pub random_share: f64,
    /// Algorithm 1's reproducibility target and per-test time budget.
    pub reproducibility: f64,
    pub test_budget: f64,
    pub seed: u64,
}

fn choose(candidates: &[Candidate], config: &EnvSearchConfig) -> usize {
    let rates: Vec<Vec<f64>> = candidates.iter().map(|c| c.rates.clone()).collect();
    merge_environments(&rates, config.reproducibility, config.test_budget).unwrap_or(0)
}

/// Searches for `config.budget`, telling `progress` about every candidate (and the best so
/// far), until `stop` is up (a candidate it cuts short is not scored). At least one
/// environment is tried; another starts only when one more as long as the longest so far
/// still ends within the budget, and is cut short (not scored) at the budget's end.
pub fn search(
    gpu: &Gpu,
    tests: &[Test],
    config: &EnvSearchConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Candidate, &Candidate),
) -> Result<SearchResult> {
    let mutants: Vec<Test> = tests
        .iter()
        .filter(|t| matches!(t.kind, Kind::Mutant(_)))
        .cloned()
        .collect();
    if mutants.is_empty() {
        return Err(RuntimeError::Input("no mutants to search with".into()));
    }
    let ceiling = ceiling_rate(config.reproducibility, config.test_budget);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(config.seed);
    let (mut pool, mut candidates, mut points) = (Pool::default(), Vec::new(), Vec::new());
    let mut best = 0;
    let start = Instant::now();
    let mut invalid = 0;
    // The longest environment so far stands for the next: the search then ends within its
    // budget unless an environment outlasts every one before it.
    let next_fits = |candidates: &[Candidate]| {
        let longest = candidates.iter().map(|c| c.seconds).fold(0.0, f64::max);
        start.elapsed().as_secs_f64() + longest <= config.budget.as_secs_f64()
    };
    while !stop.load(Ordering::SeqCst) && (candidates.is_empty() || next_fits(&candidates)) {
        let random =
            start.elapsed().as_secs_f64() < config.budget.as_secs_f64() * config.random_share;
        let (point, phase) = if random || points.is_empty() {
            (config.space.random(&mut rng), Phase::Random)
        } else {
            (
                config.space.neighbour(&points[best], &mut rng),
                Phase::Guided,
            )
        };
        let Some(env) = config.space.env(&point, &gpu.limits) else {
            invalid += 1;
            if invalid > 10_000 {
                return Err(RuntimeError::Input(
                    "no environment of the search space fits this adapter".into(),
                ));
            }
            continue;
        };
        let began = Instant::now();
        // Past the budget, an environment after the first is cut short and not scored: one
        // that outlasts every one before it (new pipelines to compile, a loaded machine)
        // would otherwise overrun the budget by its whole length.
        let deadline = (!candidates.is_empty()).then(|| start + config.budget);
        let cut = AtomicBool::new(false);
        let results = watched(stop, deadline, &cut, || {
            run_suite(
                gpu,
                &mut pool,
                &mutants,
                &env,
                config.per_test,
                &cut,
                &mut |_| {},
            )
        })?;
        if cut.load(Ordering::SeqCst) {
            break;
        }
        let rates: Vec<f64> = results.iter().map(|r| r.rate).collect();
        let score = Score::of(&rates, ceiling);
        candidates.push(Candidate {
            env,
            phase,
            killed: rates.iter().filter(|r| **r > 0.0).count(),
            rates,
            above_ceiling: score.above_ceiling,
            min_rate: score.min_rate,
            seconds: began.elapsed().as_secs_f64(),
        });
        points.push(point);
        best = choose(&candidates, config);
        progress(candidates.last().expect("pushed"), &candidates[best]);
    }
    Ok(SearchResult {
        mutants: mutants.iter().map(|t| t.name.clone()).collect(),
        best: (!candidates.is_empty()).then_some(best),
        candidates,
        ceiling_rate: ceiling,
        seconds: start.elapsed().as_secs_f64(),
        interrupted: stop.load(Ordering::SeqCst),
    })
}

/// Runs `work` with `cut` raised once `stop` is up or `deadline` has passed, checked every
/// few milliseconds by a thread of its own while `work` runs.
fn watched<T>(
    stop: &AtomicBool,
    deadline: Option<Instant>,
    cut: &AtomicBool,
    work: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if stop.load(Ordering::SeqCst) || deadline.is_some_and(|d| Instant::now() >= d) {
                    cut.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        let out = work();
        done.store(true, Ordering::SeqCst);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watch_cuts_work_at_its_deadline_or_stop_and_not_before() {
        let spin = |cut: &AtomicBool| {
            let start = Instant::now();
            while !cut.load(Ordering::SeqCst) && start.elapsed().as_secs() < 5 {
                std::thread::yield_now();
            }
            start.elapsed()
        };
        let (stop, cut) = (AtomicBool::new(false), AtomicBool::new(false));
        let soon = Instant::now() + std::time::Duration::from_millis(50);
        assert!(watched(&stop, Some(soon), &cut, || spin(&cut)).as_secs() < 5);
        assert!(cut.load(Ordering::SeqCst));
        let (stop, cut) = (AtomicBool::new(true), AtomicBool::new(false));
        assert!(watched(&stop, None, &cut, || spin(&cut)).as_secs() < 5);
        let (stop, cut) = (AtomicBool::new(false), AtomicBool::new(false));
        watched(&stop, None, &cut, || {
            std::thread::sleep(std::time::Duration::from_millis(30))
        });
        assert!(!cut.load(Ordering::SeqCst));
    }

    #[test]
    fn neighbours_differ_in_one_parameter() {
        let space = Space::default();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let p = space.random(&mut rng);
            let q = space.neighbour(&p, &mut rng);
            assert_eq!(p.iter().zip(&q).filter(|(a, b)| a != b).count(), 1);
        }
    }

    #[test]
    fn points_make_valid_environments() {
        let space = Space::default();
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 30,
            ..wgpu::Limits::default()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut split = 0;
        for _ in 0..500 {
            let env = space.env(&space.random(&mut rng), &limits).expect("fits");
            crate::env::check(&env, &limits).unwrap();
            split += usize::from(env.split());
        }
        assert!(split > 0 && split < 500, "{split}");
    }
}
