//! Running the MC Mutants suite in one environment: each test for a time, its target
//! behaviour counted. For a mutant that is a kill, and kills per second its death rate; for a
//! conformance test it is a disallowed behaviour, a possible bug in the driver or in naga.

use super::runner::Litmus;
use super::test::Test;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::mutants::{TestResult, Violation};
use wgstress_runtime::gpu::device::Gpu;
use wgstress_runtime::Result;

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
pub(crate) fn run_test(
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
    let (mut counts, mut iterations, mut batch) = (LitmusCounts::default(), 0u64, 1u32);
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
