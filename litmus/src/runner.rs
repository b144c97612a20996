//! Running a litmus test on a device: many iterations per submission, each iteration one
//! dispatch of every instance followed by the classification kernel; counts stay on the GPU
//! until the batch is read back.

use super::shader::{bins, generate, PARAMS};
use super::test::{Class, Outcomes, Test};
use rand::{Rng, SeedableRng};
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::{Env, LitmusPlacement};
use wgstress_runtime::gpu::device::commands::{
    BindGroupDesc, BindGroupId, BindingType, GroupEntry, LayoutDesc, LayoutEntry, LayoutId, PassOp,
    PipelineDesc, PipelineId, Read, Step, Submission, Usage as U, Write,
};
use wgstress_runtime::gpu::device::{Buffer, Gpu, Held};
use wgstress_runtime::{Result, RuntimeError};

/// Sorts a histogram (one bin per outcome, then one for impossible values) by class.
pub(crate) fn counts_of(histogram: &[u64], outcomes: &Outcomes) -> LitmusCounts {
    let n = outcomes.class.len();
    let mut counts = LitmusCounts {
        impossible: histogram[n],
        disallowed: histogram[n],
        incoherent: histogram[n],
        outcomes: histogram[..n].to_vec(),
        ..LitmusCounts::default()
    };
    for (o, &c) in histogram[..n].iter().enumerate() {
        match outcomes.class[o] {
            Class::Sequential => counts.sequential += c,
            Class::Interleaved => counts.interleaved += c,
            Class::Weak => counts.weak += c,
        }
        if outcomes.target[o] {
            counts.target += c;
        }
        if !outcomes.allowed[o] {
            counts.disallowed += c;
        }
        if !outcomes.coherent[o] {
            counts.incoherent += c;
        }
    }
    counts
}

/// How long a submission of litmus iterations may take before it counts as a hang.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

pub struct Litmus {
    pub test: Test,
    pub env: Env,
    pub outcomes: Outcomes,
    run: Held<PipelineId>,
    classify: Held<PipelineId>,
    /// The pipelines' layout; kept with them.
    _layout: Held<LayoutId>,
    group: Held<BindGroupId>,
    mem: Buffer,
    /// Bound in `group`; kept with it.
    _regs: Buffer,
    counts: Buffer,
    counts_read: Buffer,
    params: Buffer,
    rng: rand_chacha::ChaCha8Rng,
    /// Memory allocated for environments up to this many words.
    capacity: u64,
    /// The test memory holds another layout's leftovers: clear it before the next run.
    stale: bool,
}

/// A multiplier co-prime with `n` other than 1 where there is one (a permutation that
/// moves), below 2^32 / n so that the shader's k * m cannot overflow.
fn coprime(rng: &mut impl Rng, n: u32) -> u32 {
    wgstress_model::stress::params::coprime(rng, n, 2, u32::MAX / n.max(1))
}

impl Litmus {
    /// Compiles `test` for `env`; memory is sized for environments of up to `capacity_words`.
    pub fn new(gpu: &Gpu, test: Test, env: Env, capacity_words: u64, seed: u64) -> Result<Litmus> {
        crate::env::check(&env, &gpu.limits).map_err(RuntimeError::Input)?;
        let source = generate(&test, env.workgroup_size);
        let outcomes = test.outcomes();
        let entry = |binding: u32, ty: BindingType| LayoutEntry {
            binding,
            ty,
            dynamic: false,
        };
        let rw = BindingType::Storage { read_only: false };
        let layout = gpu.layout(&LayoutDesc {
            groups: vec![vec![
                entry(0, rw),
                entry(1, rw),
                entry(2, rw),
                entry(3, BindingType::Uniform),
            ]],
        })?;
        let pipeline = |entry: &str| {
            gpu.pipeline(&PipelineDesc {
                label: format!("litmus test {}", test.name),
                layout: layout.id(),
                wgsl: source.clone(),
                entry: entry.to_string(),
                constants: vec![("FENCE".to_string(), if env.fence { 1.0 } else { 0.0 })],
            })
        };
        let (run, classify) = (pipeline("run")?, pipeline("classify")?);
        let capacity = capacity_words.max(env.memory_words());
        let mem = gpu.buffer("litmus memory", capacity * 4, U::STORAGE | U::COPY_DST)?;
        let regs = gpu.buffer(
            "litmus registers",
            u64::from(env.instances()) * 4 * test.registers().max(1) as u64,
            U::STORAGE | U::COPY_DST,
        )?;
        // One word per bin and a sink that keeps stress loops from being optimised away.
        let counts_bytes = (bins(&test) as u64 + 1) * 4;
        let counts = gpu.buffer(
            "litmus counts",
            counts_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        )?;
        let counts_read = gpu.buffer(
            "litmus counts readback",
            counts_bytes,
            U::MAP_READ | U::COPY_DST,
        )?;
        let params = gpu.buffer(
            "litmus params",
            PARAMS.len() as u64 * 4,
            U::UNIFORM | U::COPY_DST,
        )?;
        let entries = [&mem, &regs, &counts, &params]
            .iter()
            .enumerate()
            .map(|(i, b)| GroupEntry {
                binding: i as u32,
                buffer: b.id(),
                offset: 0,
                size: None,
            })
            .collect();
        let group = gpu.bind_group(&BindGroupDesc {
            layout: layout.id(),
            group: 0,
            entries,
        })?;
        Ok(Litmus {
            test,
            env,
            outcomes,
            run,
            classify,
            _layout: layout,
            group,
            mem,
            _regs: regs,
            counts,
            counts_read,
            params,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            capacity,
            stale: false,
        })
    }

    /// Words of test memory allocated.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Changes the environment's run-time parameters (not its shape: workgroups, fence).
    pub(crate) fn set_env(&mut self, env: Env, limits: &wgpu::Limits) -> Result<()> {
        crate::env::check(&env, limits).map_err(RuntimeError::Input)?;
        let same_shape = env.testing_groups == self.env.testing_groups
            && env.workgroup_size == self.env.workgroup_size
            && env.fence == self.env.fence;
        if !same_shape || env.memory_words() > self.capacity {
            return Err(RuntimeError::Input(
                "this environment needs a new compilation: build a new Litmus".into(),
            ));
        }
        self.stale |= env != self.env;
        self.env = env;
        Ok(())
    }

    fn params(&mut self) -> Vec<u32> {
        let e = self.env.clone();
        let instances = e.instances();
        let total = e.testing_groups + e.stress_groups;
        let (shuffle_mul, shuffle_add) = if e.shuffle {
            (
                coprime(&mut self.rng, total),
                self.rng.random_range(0..total),
            )
        } else {
            (1, 0)
        };
        let mut draw = |on: bool| {
            if on {
                coprime(&mut self.rng, instances)
            } else {
                1
            }
        };
        let (pair_mul, observer_mul) = (draw(!e.same_thread), draw(!e.same_thread));
        let x_mul = draw(matches!(
            e.placement,
            LitmusPlacement::Permuted | LitmusPlacement::Scattered
        ));
        let y_mul = match e.placement {
            LitmusPlacement::Direct => 1,
            LitmusPlacement::Permuted => x_mul,
            LitmusPlacement::YPermuted | LitmusPlacement::Scattered => draw(true),
        };
        let params = vec![
            instances,
            pair_mul,
            observer_mul,
            x_mul,
            y_mul,
            e.stride,
            e.distance,
            e.testing_groups,
            e.stress_groups,
            e.stress_offset,
            e.target_lines,
            e.sequence.bits(),
            e.sequence.len() as u32,
            e.stress_iterations,
            e.pre_stress,
            shuffle_mul,
            shuffle_add,
            e.line_size.max(1),
            0,
        ];
        debug_assert_eq!(params.len(), PARAMS.len());
        params
    }

    /// Runs `iterations` iterations, as few submissions as the 32-bit counters allow.
    pub fn run(&mut self, gpu: &Gpu, iterations: u32) -> Result<LitmusCounts> {
        let per_submission = (u32::MAX / self.env.instances().max(1)).max(1);
        let mut counts = LitmusCounts::default();
        let mut left = iterations;
        while left > 0 {
            let n = left.min(per_submission);
            counts.add(&self.submit(gpu, n)?);
            left -= n;
        }
        Ok(counts)
    }

    /// Runs `iterations` iterations in one submission (new permutations for each submission).
    fn submit(&mut self, gpu: &Gpu, iterations: u32) -> Result<LitmusCounts> {
        let params = self.params();
        let mut batch = Submission {
            writes: vec![Write {
                buffer: self.params.id(),
                offset: 0,
                bytes: bytemuck::cast_slice(&params).to_vec(),
            }],
            ..Submission::default()
        };
        batch.commands.push(Step::Clear {
            buffer: self.counts.id(),
        });
        if std::mem::take(&mut self.stale) {
            batch.commands.push(Step::Clear {
                buffer: self.mem.id(),
            });
        }
        let total = self.env.testing_groups + self.env.stress_groups;
        let max = gpu.limits.max_compute_workgroups_per_dimension;
        let instances = self.env.instances();
        let classify_groups = instances.div_ceil(256);
        // No clears between iterations: classification resets the locations it reads, and
        // every register is written by its thread in every iteration.
        for _ in 0..iterations {
            batch.commands.push(Step::Pass {
                steps: vec![
                    PassOp::BindGroup {
                        index: 0,
                        group: self.group.id(),
                        offsets: Vec::new(),
                    },
                    PassOp::Pipeline {
                        pipeline: self.run.id(),
                    },
                    PassOp::Dispatch {
                        workgroups: [total.min(max), total.div_ceil(max), 1],
                    },
                    PassOp::Pipeline {
                        pipeline: self.classify.id(),
                    },
                    PassOp::Dispatch {
                        workgroups: [
                            classify_groups.min(65535),
                            classify_groups.div_ceil(65535),
                            1,
                        ],
                    },
                ],
            });
        }
        batch.commands.push(Step::Copy {
            from: self.counts.id(),
            from_offset: 0,
            to: self.counts_read.id(),
            to_offset: 0,
            size: self.counts.size(),
        });
        batch.reads.push(Read {
            buffer: self.counts_read.id(),
            bytes: self.counts_read.size(),
        });
        let read = gpu.submit(&batch, TIMEOUT)?;
        let histogram: Vec<u64> = read[0][..bins(&self.test)]
            .iter()
            .map(|w| u64::from(*w))
            .collect();
        Ok(counts_of(&histogram, &self.outcomes))
    }
}
