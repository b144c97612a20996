//! The bind groups of one pipeline of a session: wgstress's own bindings (params and
//! results at dynamic offsets, the scratchpad) in its group, and the application's buffers
//! at the slots the pipeline's shader has them, one bind group per buffer layout.

use crate::app::spec::{App, BindingKind, Dispatch};
use crate::error::Result;
use crate::gpu::buffers::{uniform_buffers, AppBuffer};
use crate::gpu::device::commands::{
    BindGroupDesc, BindGroupId, BindingType, GroupEntry, LayoutDesc, LayoutEntry, LayoutId,
};
use crate::gpu::device::{Buffer, Gpu, Held};
use crate::gpu::interface::{read_only, Binds, Use};
use wgstress_instrument::Manifest;
use wgstress_model::stress::params::LAYOUTS;

/// For each buffer layout, the bind groups of a pipeline by group number.
pub(crate) type Groups = Vec<Vec<(u32, Held<BindGroupId>)>>;

/// A pipeline's layout and bind groups, with the dispatch's own uniform buffers they bind.
pub(crate) struct Bindings {
    pub layout: Held<LayoutId>,
    pub groups: Groups,
    /// Held for as long as the groups that bind them.
    pub _uniforms: Vec<((u32, u32), Buffer)>,
}

/// The pipeline layout and bind groups of `pipeline`, which runs `dispatch` (`None`: the
/// postcondition) with wgstress's own `ours` (params, results, scratchpad).
pub(crate) fn pipeline_layout(
    gpu: &Gpu,
    app: &App,
    buffers: &[AppBuffer],
    manifest: &Manifest,
    ours: [&Buffer; 3],
    pipeline: &Use,
    dispatch: Option<&Dispatch>,
) -> Result<Bindings> {
    let uniforms = uniform_buffers(gpu, app, buffers, dispatch)?;
    let max_group = buffers
        .iter()
        .map(|b| b.slot.group)
        .chain([manifest.bind_group])
        .max()
        .unwrap_or(0);
    let bound: Vec<Vec<Bound>> = (0..=max_group)
        .map(|group| bound_in_group(group, buffers, manifest, ours, pipeline, &uniforms))
        .collect();
    let desc = LayoutDesc {
        groups: bound
            .iter()
            .map(|b| b.iter().map(|b| b.entry).collect())
            .collect(),
    };
    let layout = gpu.layout(&desc)?;
    let mut groups: Groups = (0..LAYOUTS).map(|_| Vec::new()).collect();
    for (group, bound) in bound.iter().enumerate() {
        if bound.is_empty() {
            continue;
        }
        for (index, per_layout) in groups.iter_mut().enumerate() {
            let entries = bound
                .iter()
                .map(|b| GroupEntry {
                    binding: b.entry.binding,
                    buffer: b.buffer.id(),
                    offset: b.offsets[index],
                    size: b.size,
                })
                .collect();
            let bind_group = gpu.bind_group(&BindGroupDesc {
                layout: layout.id(),
                group: group as u32,
                entries,
            })?;
            per_layout.push((group as u32, bind_group));
        }
    }
    Ok(Bindings {
        layout,
        groups,
        _uniforms: uniforms,
    })
}

/// One binding of a bind group: its layout entry, its buffer, and the range bound there in
/// each buffer layout.
struct Bound<'a> {
    entry: LayoutEntry,
    buffer: &'a Buffer,
    offsets: [u64; LAYOUTS],
    size: Option<u64>,
}

/// What group `group` binds: wgstress's own bindings in the manifest's group, and the
/// application's buffers.
fn bound_in_group<'a>(
    group: u32,
    buffers: &'a [AppBuffer],
    manifest: &Manifest,
    ours: [&'a Buffer; 3],
    pipeline: &Use,
    uniforms: &'a [((u32, u32), Buffer)],
) -> Vec<Bound<'a>> {
    let mut bound = Vec::new();
    if group == manifest.bind_group {
        let b = &manifest.bindings;
        let sized = |size: u32| (size > 0).then_some(u64::from(size));
        let storage = BindingType::Storage { read_only: false };
        let [params, results, scratch] = ours;
        for (binding, ty, dynamic, buffer, size) in [
            (
                b.params,
                BindingType::Uniform,
                true,
                params,
                sized(manifest.params.size),
            ),
            (
                b.results,
                storage,
                true,
                results,
                sized(manifest.results.size),
            ),
            (b.scratch, storage, false, scratch, None),
        ] {
            bound.push(Bound {
                entry: LayoutEntry {
                    binding,
                    ty,
                    dynamic,
                },
                buffer,
                offsets: [0; LAYOUTS],
                size,
            });
        }
    }
    for buf in buffers.iter().filter(|b| b.slot.group == group) {
        // The slot of this pipeline's shader the binding is at, if any.
        let Some(at) = Binds(pipeline.bind).slot_of(group, buf.slot.binding) else {
            continue;
        };
        let ty = match buf.slot.kind {
            BindingKind::Storage => BindingType::Storage {
                read_only: read_only(pipeline.inst, group, at),
            },
            BindingKind::Uniform => BindingType::Uniform,
        };
        let key = (buf.slot.group, buf.slot.binding);
        let own = uniforms.iter().find(|(k, _)| *k == key).map(|(_, b)| b);
        bound.push(Bound {
            entry: LayoutEntry {
                binding: at,
                ty,
                dynamic: false,
            },
            buffer: own.unwrap_or(&buf.buffer),
            offsets: buf.offsets,
            // Storage buffers carry padding for the shifts: bind exactly the declared words.
            size: (buf.slot.words > 0).then_some(u64::from(buf.slot.words) * 4),
        });
    }
    bound
}
