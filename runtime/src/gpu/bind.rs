//! The bind groups of one pipeline of a session: wgstress's own bindings (params and
//! results at dynamic offsets, the scratchpad) in its group, and the application's buffers
//! at the slots the pipeline's shader has them, one bind group per buffer layout.

use crate::app::spec::{App, BindingKind, Dispatch};
use crate::error::Result;
use crate::gpu::buffers::{uniform_buffers, AppBuffer};
use crate::gpu::interface::{read_only, Binds, Use};
use wgstress_instrument::Manifest;
use wgstress_model::stress::params::LAYOUTS;

/// For each buffer layout, the bind groups of a pipeline by group number.
pub(crate) type Groups = Vec<Vec<(u32, wgpu::BindGroup)>>;

/// The pipeline layout and bind groups of `pipeline`, which runs `dispatch` (`None`: the
/// postcondition) with wgstress's own `ours` (params, results, scratchpad).
pub(crate) fn pipeline_layout(
    device: &wgpu::Device,
    app: &App,
    buffers: &[AppBuffer],
    manifest: &Manifest,
    ours: [&wgpu::Buffer; 3],
    pipeline: &Use,
    dispatch: Option<&Dispatch>,
) -> Result<(wgpu::PipelineLayout, Groups)> {
    let uniforms = uniform_buffers(device, app, buffers, dispatch)?;
    let (layouts, groups) = bind_groups(device, buffers, manifest, ours, pipeline, &uniforms);
    let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("wgstress"),
        bind_group_layouts: &layout_refs,
        immediate_size: 0,
    });
    Ok((pipeline_layout, groups))
}

/// One binding of a bind group: its layout entry, its buffer, and the range bound there in
/// each buffer layout.
struct Bound<'a> {
    entry: wgpu::BindGroupLayoutEntry,
    buffer: &'a wgpu::Buffer,
    offsets: [u64; LAYOUTS],
    size: Option<wgpu::BufferSize>,
}

/// What group `group` binds: wgstress's own bindings in the manifest's group, and the
/// application's buffers.
fn bound_in_group<'a>(
    group: u32,
    buffers: &'a [AppBuffer],
    manifest: &Manifest,
    ours: [&'a wgpu::Buffer; 3],
    pipeline: &Use,
    uniforms: &'a [((u32, u32), wgpu::Buffer)],
) -> Vec<Bound<'a>> {
    let mut bound = Vec::new();
    if group == manifest.bind_group {
        let b = &manifest.bindings;
        let sized = |size: u32| wgpu::BufferSize::new(u64::from(size));
        let storage = wgpu::BufferBindingType::Storage { read_only: false };
        let [params, results, scratch] = ours;
        for (binding, ty, dynamic, buffer, size) in [
            (
                b.params,
                wgpu::BufferBindingType::Uniform,
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
                entry: layout_entry(binding, ty, dynamic),
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
            BindingKind::Storage => wgpu::BufferBindingType::Storage {
                read_only: read_only(pipeline.inst, group, at),
            },
            BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
        };
        let key = (buf.slot.group, buf.slot.binding);
        let own = uniforms.iter().find(|(k, _)| *k == key).map(|(_, b)| b);
        bound.push(Bound {
            entry: layout_entry(at, ty, false),
            buffer: own.unwrap_or(&buf.buffer),
            offsets: buf.offsets,
            // Storage buffers carry padding for the shifts: bind exactly the declared words.
            size: wgpu::BufferSize::new(u64::from(buf.slot.words) * 4),
        });
    }
    bound
}

/// Bind group layouts for groups 0..=max (empty where nothing is bound), and for each buffer
/// layout the bind groups.
fn bind_groups(
    device: &wgpu::Device,
    buffers: &[AppBuffer],
    manifest: &Manifest,
    ours: [&wgpu::Buffer; 3],
    pipeline: &Use,
    uniforms: &[((u32, u32), wgpu::Buffer)],
) -> (Vec<wgpu::BindGroupLayout>, Groups) {
    let max_group = buffers
        .iter()
        .map(|b| b.slot.group)
        .chain([manifest.bind_group])
        .max()
        .unwrap_or(0);
    let mut layouts = Vec::new();
    let mut groups: Groups = (0..LAYOUTS).map(|_| Vec::new()).collect();
    for group in 0..=max_group {
        let bound = bound_in_group(group, buffers, manifest, ours, pipeline, uniforms);
        let entries: Vec<_> = bound.iter().map(|b| b.entry).collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        if !bound.is_empty() {
            for (index, per_layout) in groups.iter_mut().enumerate() {
                let entries: Vec<_> = bound
                    .iter()
                    .map(|b| wgpu::BindGroupEntry {
                        binding: b.entry.binding,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: b.buffer,
                            offset: b.offsets[index],
                            size: b.size,
                        }),
                    })
                    .collect();
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &layout,
                    entries: &entries,
                });
                per_layout.push((group, bind_group));
            }
        }
        layouts.push(layout);
    }
    (layouts, groups)
}

fn layout_entry(
    binding: u32,
    ty: wgpu::BufferBindingType,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}
