//! Running the MC Mutants suite in one environment: each test for a time, its target
//! behaviour counted. For a mutant that is a kill, and kills per second its death rate; for a
//! conformance test it is a disallowed behaviour, a possible bug in the driver or in naga.

use super::env::Env;
use super::runner::{Counts, Litmus};
use super::test::{Kind, Test};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wgstress_runtime::gpu::device::Gpu;
use wgstress_runtime::Result;

/// One test's run.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct TestResult {
    pub name: String,
    pub kind: Kind,
    pub iterations: u64,
    pub instances: u64,
    pub seconds: f64,
    pub counts: Counts,
    /// Target behaviours per second (for a mutant, its death rate).
    pub rate: f64,
    /// Disallowed outcomes seen, with their counts (any is a conformance violation).
    pub violations: Vec<Violation>,
}

impl TestResult {
    pub fn is_mutant(&self) -> bool {
        matches!(self.kind, Kind::Mutant(_))
    }
    pub fn killed(&self) -> bool {
        self.is_mutant() && self.counts.target > 0
    }
}

/// A disallowed outcome seen.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Violation {
    pub outcome: String,
    pub count: u64,
    /// It breaks coherence (SC per location), which WGSL promises; otherwise it breaks only
    /// the paper's release/acquire reading of storageBarrier() across workgroups.
    pub incoherent: bool,
}

/// Compiled tests, reused across environments of the same shape (workgroups, fence flag).
#[derive(Default)]
pub struct Pool {
    litmus: HashMap<(String, u32, u32, bool), Litmus>,
}

impl Pool {
    /// The test compiled for `env`'s shape, set to `env`.
    pub fn get(&mut self, gpu: &Gpu, test: &Test, env: &Env) -> Result<&mut Litmus> {
        let key = (
            test.name.clone(),
            env.testing_groups,
            env.workgroup_size,
            env.fence,
        );
        let fits = self
            .litmus
            .get(&key)
            .is_some_and(|l| l.capacity() >= env.memory_words());
        if !fits {
            let seed = self.litmus.len() as u64 + 1;
            let litmus = Litmus::new(gpu, test.clone(), env.clone(), 0, seed)?;
            self.litmus.insert(key.clone(), litmus);
        }
        let litmus = self.litmus.get_mut(&key).expect("inserted");
        litmus.set_env(env.clone(), &gpu.limits)?;
        Ok(litmus)
    }
}

/// Runs `test` in `env` for `time`, or until `stop` is up (then for as long as it ran):
/// submissions grow until each takes about a tenth of it.
pub fn run_test(
    gpu: &Gpu,
    pool: &mut Pool,
    test: &Test,
    env: &Env,
    time: Duration,
    stop: &AtomicBool,
) -> Result<TestResult> {
    let litmus = pool.get(gpu, test, env)?;
    // One untimed iteration first: the first dispatch of a pipeline may compile it.
    litmus.run(gpu, 1)?;
    let start = Instant::now();
    let (mut counts, mut iterations, mut batch) = (Counts::default(), 0u64, 1u32);
    while iterations == 0 || (start.elapsed() < time && !stop.load(Ordering::SeqCst)) {
        let t = Instant::now();
        counts.add(&litmus.run(gpu, batch)?);
        iterations += u64::from(batch);
        if t.elapsed() < time / 10 && batch < 1 << 16 {
            batch *= 2;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let violations = (0..counts.outcomes.len())
        .filter(|&o| counts.outcomes[o] > 0 && !litmus.outcomes.allowed[o])
        .map(|o| Violation {
            outcome: test.describe(o),
            count: counts.outcomes[o],
            incoherent: !litmus.outcomes.coherent[o],
        })
        .chain((counts.impossible > 0).then(|| Violation {
            outcome: "a value no store wrote".into(),
            count: counts.impossible,
            incoherent: true,
        }))
        .collect();
    Ok(TestResult {
        name: test.name.clone(),
        kind: test.kind,
        iterations,
        instances: iterations * u64::from(env.instances()),
        seconds,
        rate: counts.target as f64 / seconds,
        counts,
        violations,
    })
}

/// Runs every test in `tests`, telling `progress` after each one; once `stop` is up, the test
/// running ends and no other starts.
pub fn run_suite(
    gpu: &Gpu,
    pool: &mut Pool,
    tests: &[Test],
    env: &Env,
    time: Duration,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&TestResult),
) -> Result<Vec<TestResult>> {
    let mut results = Vec::new();
    for test in tests {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let result = run_test(gpu, pool, test, env, time, stop)?;
        progress(&result);
        results.push(result);
    }
    Ok(results)
}

/// The suite's scores over some results.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Summary {
    pub mutants: usize,
    pub killed: usize,
    /// Killed mutants / mutants.
    pub mutation_score: f64,
    /// Mean death rate over the mutants (kills per second).
    pub mean_death_rate: f64,
    /// For the reproducibility target and budget: the death rate needed, and how many
    /// mutants reach it (the paper's reproducible mutants).
    pub reproducibility: f64,
    pub budget: f64,
    pub ceiling_rate: f64,
    pub reproducible: usize,
    pub conformance_tests: usize,
    /// Tests that showed an outcome breaking coherence (a bug by WGSL's own rules).
    pub incoherent: Vec<String>,
    /// Tests that showed an outcome breaking only the paper's release/acquire fences.
    pub relacq_only: Vec<String>,
}

pub fn summarise(results: &[TestResult], reproducibility: f64, budget: f64) -> Summary {
    let mutants: Vec<&TestResult> = results.iter().filter(|r| r.is_mutant()).collect();
    let killed = mutants.iter().filter(|r| r.killed()).count();
    let ceiling = super::choose::ceiling_rate(reproducibility, budget);
    Summary {
        mutants: mutants.len(),
        killed,
        mutation_score: killed as f64 / mutants.len().max(1) as f64,
        // A fold from 0, not a sum: the sum of nothing is -0.
        mean_death_rate: mutants.iter().fold(0.0, |sum, r| sum + r.rate)
            / mutants.len().max(1) as f64,
        reproducibility,
        budget,
        ceiling_rate: ceiling,
        reproducible: mutants.iter().filter(|r| r.rate >= ceiling).count(),
        conformance_tests: results
            .iter()
            .filter(|r| matches!(r.kind, Kind::Conformance(_)))
            .count(),
        incoherent: results
            .iter()
            .filter(|r| r.violations.iter().any(|v| v.incoherent))
            .map(|r| r.name.clone())
            .collect(),
        relacq_only: results
            .iter()
            .filter(|r| !r.violations.is_empty() && r.violations.iter().all(|v| !v.incoherent))
            .map(|r| r.name.clone())
            .collect(),
    }
}
