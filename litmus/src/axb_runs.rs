//! Running a progress litmus test on a device: one dispatch per iteration, every instance's
//! threads on workgroups of their own by the layout's mapping, memory cleared before each;
//! every thread's status (terminated, or gave up at its loop bound) copied out after it. The
//! iterations of a call share one submission and one read-back: a suite is tens of thousands
//! of short runs, and a submission's round trip would otherwise be most of their time.

use wgstress_progress::wgsl::{self, InstanceLayout as Layout, GAVE_UP, PARAMS, TERMINATED};
use wgstress_progress::AxbTest as Test;
use wgstress_runtime::gpu::device::Gpu;
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
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    mem: wgpu::Buffer,
    status: wgpu::Buffer,
    status_read: wgpu::Buffer,
    params: wgpu::Buffer,
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
        let device = &gpu.device;
        let scope = wgstress_runtime::gpu::device::scope(device);
        let entry = |binding: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let rw = wgpu::BufferBindingType::Storage { read_only: false };
        let [mem_at, status_at, params_at] = wgsl::BINDINGS;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("progress"),
            entries: &[
                entry(mem_at, rw),
                entry(status_at, rw),
                entry(params_at, wgpu::BufferBindingType::Uniform),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("progress"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = wgstress_runtime::gpu::device::shader_pipeline(
            device,
            &pipeline_layout,
            name,
            &wgsl::shader(test),
            wgsl::ENTRY,
            &[],
        )?;
        use wgpu::BufferUsages as U;
        let buffer = |label: &str, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let most_layout = Layout::new(wgsl::Mapping::Chunked, capacity);
        let mem = buffer(
            "progress memory",
            most_layout.memory_words() * 4,
            U::STORAGE | U::COPY_DST,
        );
        let status_bytes = most_layout.status_words(threads) * 4;
        let status = buffer(
            "progress status",
            status_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let status_read = buffer(
            "progress status readback",
            status_bytes * u64::from(batch),
            U::MAP_READ | U::COPY_DST,
        );
        let params = buffer(
            "progress params",
            PARAMS as u64 * 4,
            U::UNIFORM | U::COPY_DST,
        );
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("progress"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: mem_at,
                    resource: mem.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: status_at,
                    resource: status.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: params_at,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        wgstress_runtime::gpu::device::end_scope(scope, || format!("progress test {name}"))?;
        Ok(ProgressTest {
            threads,
            capacity,
            batch,
            pipeline,
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
        gpu.queue
            .write_buffer(&self.params, 0, bytemuck::cast_slice(&layout.params(bound)));
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let bytes = layout.status_words(self.threads) * 4;
        for k in 0..u64::from(iterations) {
            encoder.clear_buffer(&self.mem, 0, None);
            encoder.clear_buffer(&self.status, 0, None);
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.group, &[]);
                pass.dispatch_workgroups(layout.workgroups(self.threads), 1, 1);
            }
            encoder.copy_buffer_to_buffer(&self.status, 0, &self.status_read, k * bytes, bytes);
        }
        let read = wgstress_runtime::gpu::device::submit_and_read(
            gpu,
            encoder,
            &[(&self.status_read, bytes * u64::from(iterations))],
            timeout * iterations,
        )?;
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
