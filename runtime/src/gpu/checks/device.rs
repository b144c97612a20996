//! Which of a session's checks run on the device and what they need there: a comparison
//! kernel per such check (`kernel`), its pipelines, its bind group in each buffer layout,
//! its expected words uploaded once, and the per-run result blocks a batch reads back in
//! place of the checked binding.

use super::kernel::{self, Against, Block, Kernel};
use super::Prepared;
use crate::app::spec::{BindingKind, Outputs};
use crate::error::Result;
use crate::gpu::buffers::AppBuffer;
use crate::gpu::device::commands::{
    BindGroupDesc, BindGroupId, BindingType, GroupEntry, LayoutDesc, LayoutEntry, LayoutId, PassOp,
    PipelineDesc, PipelineId, Step, Usage,
};
use crate::gpu::device::{Buffer, Gpu, Held};
use crate::gpu::interface::Slot;
use wgstress_model::stress::params::LAYOUTS;

/// Where a declared check is verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// On the host, from its binding read back in full.
    Host,
    /// On the device: the session's comparison `n` (`CheckPlan::kernels`).
    Device(usize),
}

/// Where each of a session's checks is verified, decided once when the session is made.
pub(crate) struct CheckPlan {
    /// One per declared check, in order.
    pub places: Vec<Place>,
    /// The comparisons on the device: the binding each reads and its kernel.
    pub kernels: Vec<((u32, u32), Kernel)>,
}

impl CheckPlan {
    /// Each check of `checks` on the device where it can be compared there exactly
    /// (`Prepared::on_device`) and its binding is a storage binding among `slots`, unless
    /// `host_only` says every check is verified on the host.
    pub(crate) fn new(checks: &[Prepared], slots: &[Slot], host_only: bool) -> CheckPlan {
        let mut plan = CheckPlan {
            places: Vec::new(),
            kernels: Vec::new(),
        };
        for check in checks {
            let key = (check.check.group, check.check.binding);
            let storage = slots
                .iter()
                .any(|s| (s.group, s.binding) == key && s.kind == BindingKind::Storage);
            let place = match check.on_device() {
                Some(kernel) if storage && !host_only => {
                    plan.kernels.push((key, kernel));
                    Place::Device(plan.kernels.len() - 1)
                }
                _ => Place::Host,
            };
            plan.places.push(place);
        }
        plan
    }

    /// Whether the declared check `index` is verified on the host.
    pub(crate) fn on_host(&self, index: usize) -> bool {
        self.places.get(index) == Some(&Place::Host)
    }
}

/// One comparison on the device.
struct Comparison {
    kernel: Kernel,
    /// `count`, each `next` pass, `found`, in the order a run dispatches them.
    pipelines: Vec<Held<PipelineId>>,
    /// The checked binding at its offset in each buffer layout, the expected words and the
    /// result blocks (at a dynamic offset).
    groups: Vec<Held<BindGroupId>>,
    expected: Option<Buffer>,
    _layout: Held<LayoutId>,
}

/// A session's comparisons on the device and their result blocks.
pub(crate) struct DeviceChecks {
    pub plan: CheckPlan,
    comparisons: Vec<Comparison>,
    /// Bytes between result blocks: a block, aligned for a dynamic storage offset.
    pub block_stride: u64,
    /// Result blocks of a batch, run after run, a block per comparison; and their read-back.
    results: Option<(Buffer, Buffer)>,
}

impl DeviceChecks {
    /// Makes `plan`'s comparisons of `checks` over `buffers`, with result blocks for batches
    /// of `batch` runs.
    pub(crate) fn new(
        gpu: &Gpu,
        plan: CheckPlan,
        checks: &[Prepared],
        buffers: &[AppBuffer],
        batch: usize,
    ) -> Result<DeviceChecks> {
        let align = u64::from(gpu.limits.min_storage_buffer_offset_alignment);
        let block_bytes = (kernel::BLOCK_WORDS * 4) as u64;
        let block_stride = block_bytes.div_ceil(align) * align;
        let results = match plan.kernels.len() as u64 * batch as u64 * block_stride {
            0 => None,
            bytes => Some((
                gpu.buffer(
                    "wgstress check results",
                    bytes,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                )?,
                gpu.buffer(
                    "wgstress check results readback",
                    bytes,
                    Usage::MAP_READ | Usage::COPY_DST,
                )?,
            )),
        };
        let mut comparisons = Vec::new();
        for (index, place) in plan.places.iter().enumerate() {
            let Place::Device(n) = place else { continue };
            let (key, kernel) = plan.kernels[*n];
            let check = &checks[index];
            let data = buffers
                .iter()
                .find(|b| (b.slot.group, b.slot.binding) == key)
                .expect("a planned binding");
            let blocks = &results.as_ref().expect("result blocks").0;
            comparisons.push(comparison(gpu, check, kernel, data, blocks, block_bytes)?);
        }
        Ok(DeviceChecks {
            plan,
            comparisons,
            block_stride,
            results,
        })
    }

    /// Writes `checks`' expected words again (after the initial contents they are computed
    /// from changed); the sizes are the session's.
    pub(crate) fn set_expected(&self, gpu: &Gpu, checks: &[Prepared]) -> Result<()> {
        for (index, place) in self.plan.places.iter().enumerate() {
            if let Place::Device(n) = place {
                let c = &self.comparisons[*n];
                if let Some(buffer) = &c.expected {
                    let words = &checks[index].expected()[..c.kernel.count as usize];
                    gpu.write(buffer, 0, bytemuck::cast_slice(words))?;
                }
            }
        }
        Ok(())
    }

    /// Bytes of device memory the comparisons hold.
    pub(crate) fn bytes(&self) -> u64 {
        let results = self.results.iter().map(|(r, read)| r.size() + read.size());
        let expected = self
            .comparisons
            .iter()
            .filter_map(|c| c.expected.as_ref().map(Buffer::size));
        results.chain(expected).sum()
    }

    /// Bytes of result blocks a batch of `runs` reads back.
    pub(crate) fn read_bytes(&self, runs: usize) -> u64 {
        self.block_stride * (self.comparisons.len() * runs) as u64
    }

    /// Zeroes the result blocks, before a batch's runs.
    pub(crate) fn clear(&self, commands: &mut Vec<Step>) {
        if let Some((results, _)) = &self.results {
            commands.push(Step::Clear {
                buffer: results.id(),
            });
        }
    }

    /// The steps that compare run `run`'s bindings, bound in buffer layout `layout`.
    pub(crate) fn compare(&self, steps: &mut Vec<PassOp>, run: usize, layout: usize) {
        for (n, c) in self.comparisons.iter().enumerate() {
            let offset = (run * self.comparisons.len() + n) as u64 * self.block_stride;
            let last = c.pipelines.len() - 1;
            for (p, pipeline) in c.pipelines.iter().enumerate() {
                steps.push(PassOp::Pipeline {
                    pipeline: pipeline.id(),
                });
                steps.push(PassOp::BindGroup {
                    index: 0,
                    group: c.groups[layout].id(),
                    offsets: vec![offset as u32],
                });
                let groups = if p == last { 1 } else { c.kernel.groups() };
                steps.push(PassOp::Dispatch {
                    workgroups: [groups, 1, 1],
                });
            }
        }
    }

    /// Copies a batch of `runs`' result blocks to their read-back buffer; the read, if any.
    pub(crate) fn read(
        &self,
        commands: &mut Vec<Step>,
        runs: usize,
    ) -> Option<crate::gpu::device::commands::Read> {
        let (results, read) = self.results.as_ref()?;
        let bytes = self.read_bytes(runs);
        commands.push(Step::Copy {
            from: results.id(),
            from_offset: 0,
            to: read.id(),
            to_offset: 0,
            size: bytes,
        });
        Some(crate::gpu::device::commands::Read {
            buffer: read.id(),
            bytes,
        })
    }

    /// Run `run`'s result block of each declared check compared on the device (`None` for
    /// those on the host), from the words a batch read back.
    pub(crate) fn blocks(&self, words: &[u32], run: usize) -> Vec<Option<Block>> {
        let stride = (self.block_stride / 4) as usize;
        self.plan
            .places
            .iter()
            .map(|place| match place {
                Place::Host => None,
                Place::Device(n) => {
                    let at = (run * self.comparisons.len() + n) * stride;
                    Some(Block::read(&words[at..at + kernel::BLOCK_WORDS]))
                }
            })
            .collect()
    }
}

/// The comparison of `check` by `kernel` over `data`, its result blocks in `blocks`.
fn comparison(
    gpu: &Gpu,
    check: &Prepared,
    kernel: Kernel,
    data: &AppBuffer,
    blocks: &Buffer,
    block_bytes: u64,
) -> Result<Comparison> {
    let storage = |read_only| BindingType::Storage { read_only };
    let mut entries = vec![LayoutEntry {
        binding: kernel::DATA_BINDING,
        ty: storage(true),
        dynamic: false,
    }];
    let expected = match kernel.against {
        Against::Buffer => {
            entries.push(LayoutEntry {
                binding: kernel::EXPECTED_BINDING,
                ty: storage(true),
                dynamic: false,
            });
            let words = &check.expected()[..kernel.count as usize];
            Some(gpu.buffer_with(
                "wgstress check expected",
                bytemuck::cast_slice(words),
                Usage::STORAGE | Usage::COPY_DST,
            )?)
        }
        Against::Word(_) => None,
    };
    entries.push(LayoutEntry {
        binding: kernel::BLOCK_BINDING,
        ty: storage(false),
        dynamic: true,
    });
    let layout = gpu.layout(&LayoutDesc {
        groups: vec![entries],
    })?;
    let label = format!("{} compared on the device", check.check.label());
    let wgsl = kernel.wgsl();
    let pipeline = |entry: &str, pass: Option<usize>| {
        gpu.pipeline(&PipelineDesc {
            label: label.clone(),
            layout: layout.id(),
            wgsl: wgsl.clone(),
            entry: entry.to_string(),
            constants: pass
                .map(|p| (kernel::PASS.to_string(), p as f64))
                .into_iter()
                .collect(),
        })
    };
    let mut pipelines = vec![pipeline(kernel::COUNT_ENTRY, None)?];
    for pass in 1..kernel::FIRST {
        pipelines.push(pipeline(kernel::NEXT_ENTRY, Some(pass))?);
    }
    pipelines.push(pipeline(kernel::FOUND_ENTRY, None)?);
    let bytes = u64::from(data.slot.words) * 4;
    let groups = (0..LAYOUTS)
        .map(|layout_index| {
            let mut entries = vec![GroupEntry {
                binding: kernel::DATA_BINDING,
                buffer: data.buffer.id(),
                offset: data.offsets[layout_index],
                size: Some(bytes),
            }];
            entries.extend(expected.as_ref().map(|e| GroupEntry {
                binding: kernel::EXPECTED_BINDING,
                buffer: e.id(),
                offset: 0,
                size: None,
            }));
            entries.push(GroupEntry {
                binding: kernel::BLOCK_BINDING,
                buffer: blocks.id(),
                offset: 0,
                size: Some(block_bytes),
            });
            gpu.bind_group(&BindGroupDesc {
                layout: layout.id(),
                group: 0,
                entries,
            })
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(Comparison {
        kernel,
        pipelines,
        groups,
        expected,
        _layout: layout,
    })
}

/// What a run left for its checks: the bindings read back, and the result block of each
/// check compared on the device.
pub(crate) struct RunRead<'a> {
    pub outputs: Outputs<'a>,
    pub blocks: Vec<Option<Block>>,
}

impl RunRead<'_> {
    /// The result block of declared check `index`, where it was compared on the device.
    pub(crate) fn block(&self, index: usize) -> Option<&Block> {
        self.blocks.get(index).and_then(Option::as_ref)
    }
}
