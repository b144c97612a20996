//! A session's buffers: the application's, each with the pristine copy it is reset from
//! before every run and its offset in each buffer layout, a dispatch's own uniform
//! contents, and wgstress's own (per-run parameters and results, the stress scratchpad,
//! the read-back copies).

use crate::app::spec::{App, BindingKind, Dispatch};
use crate::error::Result;
use crate::gpu::device::commands::Usage as U;
use crate::gpu::device::{Buffer, Gpu};
use crate::gpu::interface::Slot;
use crate::gpu::layout;
use crate::gpu::program::Program;
use crate::gpu::readback::ReadBack;
use wgstress_model::stress::params::LAYOUTS;

/// One binding of the application on the device.
pub(crate) struct AppBuffer {
    pub slot: Slot,
    pub buffer: Buffer,
    /// Pristine contents copied in before every run (storage bindings only).
    pub pristine: Option<Buffer>,
    /// Where the binding starts inside `buffer` in each buffer layout (0 for uniforms).
    pub offsets: [u64; LAYOUTS],
}

/// The application's buffers, one per slot, holding their initial contents; storage
/// buffers are padded so that every layout's shift fits (`align`: the storage offset
/// alignment).
pub(crate) fn app_buffers(
    gpu: &Gpu,
    app: &App,
    slots: Vec<Slot>,
    align: u64,
) -> Result<Vec<AppBuffer>> {
    let mut buffers = Vec::new();
    for (index, slot) in slots.into_iter().enumerate() {
        let binding = app
            .binding(slot.group, slot.binding)
            .expect("slot from spec");
        let mut contents: Vec<u8> = binding
            .init
            .words(slot.words)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let label = slot.name.as_str();
        let pristine = match slot.kind {
            BindingKind::Storage => {
                Some(gpu.buffer_with(label, &contents, U::COPY_SRC | U::COPY_DST)?)
            }
            BindingKind::Uniform => None,
        };
        let (usage, offsets) = match slot.kind {
            BindingKind::Storage => {
                contents.resize(contents.len() + layout::padding(align) as usize, 0);
                let usage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
                (usage, layout::offsets(index, align))
            }
            BindingKind::Uniform => (U::UNIFORM | U::COPY_DST, [0; LAYOUTS]),
        };
        let buffer = gpu.buffer_with(label, &contents, usage)?;
        buffers.push(AppBuffer {
            slot,
            buffer,
            pristine,
            offsets,
        });
    }
    Ok(buffers)
}

/// A dispatch's own uniform contents, as buffers by (group, binding).
pub(crate) fn uniform_buffers(
    gpu: &Gpu,
    app: &App,
    buffers: &[AppBuffer],
    dispatch: Option<&Dispatch>,
) -> Result<Vec<((u32, u32), Buffer)>> {
    let Some(dispatch) = dispatch else {
        return Ok(Vec::new());
    };
    dispatch
        .uniforms
        .iter()
        .map(|set| {
            let key = (set.group, set.binding);
            let slot = &buffers
                .iter()
                .find(|b| (b.slot.group, b.slot.binding) == key)
                .expect("validated: a declared uniform binding")
                .slot;
            let binding = app.binding(set.group, set.binding).expect("declared");
            let mut words = binding.init.words(slot.words)?;
            words[..set.words.len()].copy_from_slice(&set.words);
            let buffer = gpu.buffer_with(&slot.name, bytemuck::cast_slice(&words), U::UNIFORM)?;
            Ok((key, buffer))
        })
        .collect()
}

/// How a session's runs are laid out in wgstress's own buffers: per run, a params block
/// per slot, a results block per block and the read-back copies of checked bindings.
pub(crate) struct Sizes {
    /// Runs per batch at most.
    pub batch: usize,
    /// Params blocks per run: one per dispatch and one for the postcondition.
    pub slots: usize,
    pub params_stride: u64,
    /// Results blocks per run.
    pub blocks: usize,
    pub results_stride: u64,
    /// Bytes of a run's read-back copies.
    pub checked_stride: u64,
    pub scratch_words: u32,
}

impl Sizes {
    /// The sizes for `program` on an adapter of `limits`: batches of at most `batch` runs,
    /// fewer where the read-back copies would pass their share, and a scratchpad of
    /// `scratch_words` within the adapter's largest storage binding.
    pub(crate) fn new(
        program: &Program,
        limits: &wgpu::Limits,
        read_back: &ReadBack,
        batch: usize,
        scratch_words: u32,
    ) -> Sizes {
        let manifest = &program.manifests()[0];
        let max_scratch = (limits.max_storage_buffer_binding_size / 4).min(u64::from(u32::MAX));
        Sizes {
            batch: read_back.bound(batch),
            slots: program.units.len() + 1,
            params_stride: align(
                manifest.params.size.into(),
                limits.min_uniform_buffer_offset_alignment.into(),
            ),
            blocks: program.blocks(),
            results_stride: align(
                manifest.results.size.into(),
                limits.min_storage_buffer_offset_alignment.into(),
            ),
            checked_stride: read_back.stride,
            scratch_words: scratch_words.clamp(64, max_scratch as u32),
        }
    }
}

fn align(value: u64, to: u64) -> u64 {
    value.div_ceil(to) * to
}

/// wgstress's own buffers.
pub(crate) struct Own {
    pub params: Buffer,
    pub results: Buffer,
    pub results_read: Buffer,
    pub scratch: Buffer,
    /// The read-back copies of the bindings host checks read, if any.
    pub checked_read: Option<Buffer>,
}

impl Own {
    pub(crate) fn new(gpu: &Gpu, sizes: &Sizes) -> Result<Own> {
        let batch = sizes.batch as u64;
        let results_bytes = sizes.results_stride * batch * sizes.blocks as u64;
        Ok(Own {
            params: gpu.buffer(
                "wgstress params",
                sizes.params_stride * batch * sizes.slots as u64,
                U::UNIFORM | U::COPY_DST,
            )?,
            results: gpu.buffer(
                "wgstress results",
                results_bytes,
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            )?,
            results_read: gpu.buffer(
                "wgstress results readback",
                results_bytes,
                U::MAP_READ | U::COPY_DST,
            )?,
            scratch: gpu.buffer(
                "wgstress scratchpad",
                u64::from(sizes.scratch_words) * 4,
                U::STORAGE,
            )?,
            checked_read: match sizes.checked_stride > 0 {
                true => Some(gpu.buffer(
                    "wgstress checked readback",
                    sizes.checked_stride * batch,
                    U::MAP_READ | U::COPY_DST,
                )?),
                false => None,
            },
        })
    }
}
