//! Running a progress litmus test on a device: one dispatch per iteration, every instance's
//! threads on workgroups of their own by the layout's mapping, memory cleared before each;
//! every thread's status (terminated, or gave up at its loop bound) copied out after it. The
//! iterations of a call share one submission and one read-back: a suite is tens of thousands
//! of short runs, and a submission's round trip would otherwise be most of their time.

use wgstress_progress::wgsl::{self, InstanceLayout as Layout, GAVE_UP, PARAMS, TERMINATED};
use wgstress_progress::AxbTest as Test;
use wgstress_runtime::gpu::device::commands::{
    BindGroupDesc, BindGroupId, BindingType, GroupEntry, LayoutDesc, LayoutEntry, LayoutId, PassOp,
    PipelineDesc, PipelineId, Read, Step, Submission, Usage as U, Write,
};
use wgstress_runtime::gpu::device::{Buffer, Gpu, Held};
use wgstress_runtime::{Result, RuntimeError};

/// What one iteration showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Iteration {
    /// Instances in which some thread gave up (did not terminate within its bound).
    pub hung_instances: u32,
    /// Per test thread, the instances in which it gave up.
    pub gave_up: Vec<u32>,
    /// Threads that reported nothing (a driver that ended the loop itself): counted as hung.
    pub(crate) silent: u32,
}

/// A test compiled for a device, with memory for up to `capacity` instances and read-back
/// room for `batch` iterations a submission.
pub struct ProgressTest {
    threads: usize,
    capacity: u32,
    batch: u32,
    pipeline: Held<PipelineId>,
    /// The pipeline's layout; kept with it.
    _layout: Held<LayoutId>,
    group: Held<BindGroupId>,
    mem: Buffer,
    status: Buffer,
    status_read: Buffer,
    params: Buffer,
}

impl ProgressTest {
    pub fn new(
        gpu: &Gpu,
        name: &str,
        test: &Test,
        capacity: u32,
        batch: u32,
    ) -> Result<ProgressTest> {
        let batch = batch.max(1);
        let threads = test.threads().len();
        let most = gpu.limits.max_compute_workgroups_per_dimension;
        if Layout::new(wgsl::Mapping::Chunked, capacity).workgroups(threads) > most {
            return Err(RuntimeError::Input(format!(
                "{capacity} instances of {name} need {} workgroups; this adapter dispatches at most {most} (give fewer --instances)",
                u64::from(capacity) * threads as u64
            )));
        }
        let entry = |binding: u32, ty: BindingType| LayoutEntry {
            binding,
            ty,
            dynamic: false,
        };
        let rw = BindingType::Storage { read_only: false };
        let [mem_at, status_at, params_at] = wgsl::BINDINGS;
        let layout = gpu.layout(&LayoutDesc {
            groups: vec![vec![
                entry(mem_at, rw),
                entry(status_at, rw),
                entry(params_at, BindingType::Uniform),
            ]],
        })?;
        let pipeline = gpu.pipeline(&PipelineDesc {
            label: name.to_string(),
            layout: layout.id(),
            wgsl: wgsl::shader(test),
            entry: wgsl::ENTRY.to_string(),
            constants: Vec::new(),
        })?;
        let most_layout = Layout::new(wgsl::Mapping::Chunked, capacity);
        let mem = gpu.buffer(
            "progress memory",
            most_layout.memory_words() * 4,
            U::STORAGE | U::COPY_DST,
        )?;
        let status_bytes = most_layout.status_words(threads) * 4;
        let status = gpu.buffer(
            "progress status",
            status_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        )?;
        let status_read = gpu.buffer(
            "progress status readback",
            status_bytes * u64::from(batch),
            U::MAP_READ | U::COPY_DST,
        )?;
        let params = gpu.buffer(
            "progress params",
            PARAMS as u64 * 4,
            U::UNIFORM | U::COPY_DST,
        )?;
        let bound = |binding: u32, buffer: &Buffer| GroupEntry {
            binding,
            buffer: buffer.id(),
            offset: 0,
            size: None,
        };
        let group = gpu.bind_group(&BindGroupDesc {
            layout: layout.id(),
            group: 0,
            entries: vec![
                bound(mem_at, &mem),
                bound(status_at, &status),
                bound(params_at, &params),
            ],
        })?;
        Ok(ProgressTest {
            threads,
            capacity,
            batch,
            pipeline,
            _layout: layout,
            group,
            mem,
            status,
            status_read,
            params,
        })
    }

    /// `iterations` dispatches of `layout` with loop bound `bound`, at most `batch`, in one
    /// submission; past `timeout` a run (the submission past `iterations` times it) is a
    /// hang, which the bound is there to prevent.
    pub fn run(
        &mut self,
        gpu: &Gpu,
        layout: Layout,
        bound: u32,
        iterations: u32,
        timeout: std::time::Duration,
    ) -> Result<Vec<Iteration>> {
        if layout.instances() > self.capacity || iterations > self.batch {
            return Err(RuntimeError::Input(format!(
                "{} instances and {iterations} iterations a submission, room for {} and {}",
                layout.instances(),
                self.capacity,
                self.batch
            )));
        }
        let mut batch = Submission {
            writes: vec![Write {
                buffer: self.params.id(),
                offset: 0,
                bytes: bytemuck::cast_slice(&layout.params(bound)).to_vec(),
            }],
            ..Submission::default()
        };
        let bytes = layout.status_words(self.threads) * 4;
        for k in 0..u64::from(iterations) {
            batch.commands.extend([
                Step::Clear {
                    buffer: self.mem.id(),
                },
                Step::Clear {
                    buffer: self.status.id(),
                },
                Step::Pass {
                    steps: vec![
                        PassOp::Pipeline {
                            pipeline: self.pipeline.id(),
                        },
                        PassOp::BindGroup {
                            index: 0,
                            group: self.group.id(),
                            offsets: Vec::new(),
                        },
                        PassOp::Dispatch {
                            workgroups: [layout.workgroups(self.threads), 1, 1],
                        },
                    ],
                },
                Step::Copy {
                    from: self.status.id(),
                    from_offset: 0,
                    to: self.status_read.id(),
                    to_offset: k * bytes,
                    size: bytes,
                },
            ]);
        }
        batch.reads.push(Read {
            buffer: self.status_read.id(),
            bytes: bytes * u64::from(iterations),
        });
        let read = gpu.submit(&batch, timeout * iterations)?;
        Ok(read[0]
            .chunks(bytes as usize / 4)
            .map(|words| tally(words, self.threads))
            .collect())
    }
}

/// Sorts status words (instance-major, a word per thread) into an iteration's counts.
pub(crate) fn tally(words: &[u32], threads: usize) -> Iteration {
    let mut it = Iteration {
        gave_up: vec![0; threads],
        ..Iteration::default()
    };
    for instance in words.chunks(threads) {
        let mut hung = false;
        for (t, &word) in instance.iter().enumerate() {
            match word {
                TERMINATED => {}
                GAVE_UP => {
                    it.gave_up[t] += 1;
                    hung = true;
                }
                _ => {
                    it.silent += 1;
                    hung = true;
                }
            }
        }
        it.hung_instances += u32::from(hung);
    }
    it
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_instance_hangs_when_any_of_its_threads_gave_up_or_never_reported() {
        let it = super::tally(&[1, 1, 2, 1, 1, 0, 2, 2], 2);
        assert_eq!(it.hung_instances, 3);
        assert_eq!(it.gave_up, vec![2, 1]);
        assert_eq!(it.silent, 1);
    }
}
