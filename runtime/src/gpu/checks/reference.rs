//! Reference kernels: a correct, simple kernel the user provides runs once per session, as
//! written (no instrumentation, no stress), on the application's initial contents; what it
//! leaves in a binding is what every run must leave there.

use crate::app::check::Reference;
use crate::app::spec::{App, BindingKind};
use crate::error::{Result, RuntimeError};
use crate::gpu::device::{self, Gpu};
use naga::{AddressSpace, StorageAccess};
use std::path::PathBuf;
use std::time::Duration;

/// How long the one run of a reference kernel may take before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The reference kernels run so far this session: checks that name the same kernel (file,
/// entry point, workgroups) share its one run.
#[derive(Default)]
pub(crate) struct Runs {
    done: Vec<(Key, Written)>,
}

/// A reference kernel: its file (the application's when none), entry point and workgroups.
type Key = (Option<PathBuf>, String, [u32; 3]);

/// What one run of a reference kernel left in each storage binding it writes.
type Written = Vec<((u32, u32), Vec<u32>)>;

impl Runs {
    /// The words the reference kernel `r` leaves in binding `key`.
    pub(crate) fn output(
        &mut self,
        gpu: &Gpu,
        app: &App,
        r: &Reference,
        key: (u32, u32),
    ) -> Result<&[u32]> {
        let id = (r.shader.clone(), r.entry.clone(), r.workgroups);
        let index = match self.done.iter().position(|(k, _)| *k == id) {
            Some(i) => i,
            None => {
                self.done.push((id, run(gpu, app, r)?));
                self.done.len() - 1
            }
        };
        let (_, outputs) = &self.done[index];
        outputs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, words)| words.as_slice())
            .ok_or_else(|| {
                RuntimeError::Input(format!(
                    "{}: the reference kernel `{}` does not write binding {}:{}, which a check compares with it",
                    app.name, r.entry, key.0, key.1
                ))
            })
    }
}

/// One binding the reference kernel uses.
struct Used {
    group: u32,
    binding: u32,
    ty: wgpu::BufferBindingType,
    /// The fewest bytes its type takes (one element of a runtime-sized array).
    min_bytes: u32,
}

/// Runs `r` once and reads back every storage binding it writes.
fn run(gpu: &Gpu, app: &App, r: &Reference) -> Result<Written> {
    let (path, source) = match &r.shader {
        Some(path) => (
            path.display().to_string(),
            wgstress_model::read::source(path)?,
        ),
        None => (app.shader_path.clone(), app.source.clone()),
    };
    // As wgpu takes it: directives naga refuses set aside, pointer parameters rewritten. A
    // shader that does not get that far is reported by `interface`, at its line and column.
    let (source, entry) = match wgstress_instrument::raw_wgsl(&source, &path) {
        Ok(raw) => (raw.wgsl.to_string(), raw.entry_point(&r.entry).to_string()),
        Err(_) => (
            wgstress_instrument::for_wgpu(&source).into_owned(),
            r.entry.clone(),
        ),
    };
    let (module, used) = interface(&source, &path, &entry)?;
    let ([x, y, z], max) = (
        r.workgroups,
        gpu.limits.max_compute_workgroups_per_dimension,
    );
    if x.max(y).max(z) > max {
        return Err(RuntimeError::Input(format!(
            "{path}: reference `{}`: workgroups {x} x {y} x {z} are beyond this adapter's limit of {max} per dimension",
            r.entry
        )));
    }
    let device = &gpu.device;
    let scope = device::scope(device);
    let buffers = used
        .iter()
        .map(|u| buffer(device, app, u, &path, r))
        .collect::<Result<Vec<_>>>()?;
    let (layouts, bind_groups) = bind_groups(device, &used, &buffers);
    let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("wgstress reference"),
        bind_group_layouts: &layout_refs,
        immediate_size: 0,
    });
    let constants = constants(app, &module);
    let what = format!("reference kernel {path}");
    let pipeline =
        device::shader_pipeline(device, &pipeline_layout, &what, &source, &entry, &constants)?;
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        for (group, bind_group) in bind_groups.iter().enumerate() {
            pass.set_bind_group(group as u32, bind_group, &[]);
        }
        pass.dispatch_workgroups(x, y, z);
    }
    let reads = copy_written(device, &mut encoder, &used, &buffers);
    let sizes: Vec<(&wgpu::Buffer, u64)> = reads.iter().map(|(_, b)| (b, b.size())).collect();
    // The scope stays open through the submission: what the encoder refuses surfaces when
    // it finishes, inside submit_and_read, and would otherwise reach wgpu's panicking handler.
    let words = device::submit_and_read(gpu, encoder, &sizes, TIMEOUT);
    device::end_scope(scope, || {
        format!("reference kernel `{}` of {path}", r.entry)
    })?;
    Ok(reads.iter().map(|(k, _)| *k).zip(words?).collect())
}

/// The buffer for binding `u`, holding the spec's initial contents; refused in words where
/// the spec's binding cannot serve the kernel's declaration.
fn buffer(
    device: &wgpu::Device,
    app: &App,
    u: &Used,
    path: &str,
    r: &Reference,
) -> Result<wgpu::Buffer> {
    let at = format!(
        "{path}: the reference kernel `{}` uses @group({}) @binding({})",
        r.entry, u.group, u.binding
    );
    let b = app
        .binding(u.group, u.binding)
        .ok_or_else(|| RuntimeError::Input(format!("{at}, which the spec does not declare")))?;
    if u64::from(b.words) * 4 < u64::from(u.min_bytes) {
        return Err(RuntimeError::Input(format!(
            "{at}, which needs at least {} bytes; the spec gives {} words",
            u.min_bytes, b.words
        )));
    }
    let uniform = u.ty == wgpu::BufferBindingType::Uniform;
    if uniform != (b.kind == BindingKind::Uniform) {
        return Err(RuntimeError::Input(format!(
            "{at} as {}, but the spec declares it {}",
            if uniform { "a uniform" } else { "storage" },
            format!("{:?}", b.kind).to_lowercase()
        )));
    }
    let usage = match b.kind {
        BindingKind::Storage => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        BindingKind::Uniform => wgpu::BufferUsages::UNIFORM,
    };
    let words = b.init.words(b.words)?;
    device::buffer_with(
        device,
        "wgstress reference",
        bytemuck::cast_slice(&words),
        usage,
    )
}

/// Bind group layouts and bind groups for groups 0 to the highest one used (empty where
/// none is).
fn bind_groups(
    device: &wgpu::Device,
    used: &[Used],
    buffers: &[wgpu::Buffer],
) -> (Vec<wgpu::BindGroupLayout>, Vec<wgpu::BindGroup>) {
    let groups = used.iter().map(|u| u.group + 1).max().unwrap_or(0);
    let mut layouts = Vec::new();
    let mut bind_groups = Vec::new();
    for group in 0..groups {
        let members: Vec<(&Used, &wgpu::Buffer)> = used
            .iter()
            .zip(buffers)
            .filter(|(u, _)| u.group == group)
            .collect();
        let entries: Vec<_> = members
            .iter()
            .map(|(u, _)| wgpu::BindGroupLayoutEntry {
                binding: u.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: u.ty,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        let entries: Vec<_> = members
            .iter()
            .map(|(u, buffer)| wgpu::BindGroupEntry {
                binding: u.binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        bind_groups.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        }));
        layouts.push(layout);
    }
    (layouts, bind_groups)
}

/// The spec's `[constants]` for the overrides this module declares (by name or `@id`):
/// wgpu refuses values for unknown ones.
fn constants<'a>(app: &'a App, module: &naga::Module) -> Vec<(&'a str, f64)> {
    app.constants
        .iter()
        .filter(|(name, _)| {
            module.overrides.iter().any(|(_, o)| {
                o.name.as_deref() == Some(name.as_str())
                    || o.id.is_some_and(|id| id.to_string() == *name)
            })
        })
        .map(|(k, v)| (k.as_str(), *v))
        .collect()
}

/// Copies every binding the kernel may write into a readback buffer of its own.
fn copy_written(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    used: &[Used],
    buffers: &[wgpu::Buffer],
) -> Vec<((u32, u32), wgpu::Buffer)> {
    let writable = |u: &Used| matches!(u.ty, wgpu::BufferBindingType::Storage { read_only: false });
    used.iter()
        .zip(buffers)
        .filter(|(u, _)| writable(u))
        .map(|(u, buffer)| {
            let read = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgstress reference readback"),
                size: buffer.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(buffer, 0, &read, 0, buffer.size());
            ((u.group, u.binding), read)
        })
        .collect()
}

/// Parses and validates the reference kernel; returns its module and the bindings its entry
/// point uses. Errors point at `path:line:column`.
fn interface(source: &str, path: &str, entry: &str) -> Result<(naga::Module, Vec<Used>)> {
    let at = |location: Option<naga::SourceLocation>| match location {
        Some(l) => format!("{path}:{}:{}", l.line_number, l.line_position),
        None => path.to_string(),
    };
    wgstress_instrument::check_nesting(source, path)?;
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| RuntimeError::Input(format!("{}: {}", at(e.location(source)), e.message())))?;
    let info = wgstress_instrument::validate_user(&module, Some(source), path)?;
    let index = module
        .entry_points
        .iter()
        .position(|ep| ep.name == entry && ep.stage == naga::ShaderStage::Compute)
        .ok_or_else(|| {
            let names: Vec<&str> = module
                .entry_points
                .iter()
                .filter(|ep| ep.stage == naga::ShaderStage::Compute)
                .map(|ep| ep.name.as_str())
                .collect();
            RuntimeError::Input(format!(
                "{path}: no @compute entry point named `{}` for the reference check (the shader has: {})",
                entry,
                names.join(", ")
            ))
        })?;
    let uses = info.get_entry_point(index);
    let mut used = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        if uses[handle].is_empty() {
            continue;
        }
        let ty = match var.space {
            AddressSpace::Storage { access } => wgpu::BufferBindingType::Storage {
                read_only: !access.contains(StorageAccess::STORE),
            },
            AddressSpace::Uniform => wgpu::BufferBindingType::Uniform,
            other => {
                return Err(RuntimeError::Input(format!(
                    "{path}: the reference kernel `{}` uses @group({}) @binding({}) in the {other:?} space; wgstress binds buffers only",
                    entry, rb.group, rb.binding
                )))
            }
        };
        used.push(Used {
            group: rb.group,
            binding: rb.binding,
            ty,
            min_bytes: module.types[var.ty].inner.size(module.to_ctx()),
        });
    }
    Ok((module, used))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::init::Init;
    use crate::app::spec::Binding;

    /// Writes two bindings from a third.
    const TWO_OUTPUTS: &str = "
@group(0) @binding(0) var<storage, read> input: array<u32, 4>;
@group(0) @binding(1) var<storage, read_write> doubled: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> squared: array<u32, 4>;

@compute @workgroup_size(4)
fn reference(@builtin(local_invocation_index) i: u32) {
    doubled[i] = input[i] * 2u;
    squared[i] = input[i] * input[i];
}";

    #[test]
    fn checks_naming_one_kernel_share_its_one_run() {
        let storage = |binding, init| Binding::storage(binding, 4, init);
        let app = App::bare(
            "t",
            TWO_OUTPUTS,
            [1; 3],
            vec![
                storage(0, Init::Iota { start: 3 }),
                storage(1, Init::Zeros),
                storage(2, Init::Zeros),
            ],
        );
        let r = Reference {
            shader: None,
            entry: "reference".into(),
            workgroups: [1; 3],
            compare: Default::default(),
        };
        let gpu = device::open(&Default::default()).unwrap();
        let mut runs = Runs::default();
        assert_eq!(runs.output(&gpu, &app, &r, (0, 1)).unwrap(), [6, 8, 10, 12]);
        assert_eq!(
            runs.output(&gpu, &app, &r, (0, 2)).unwrap(),
            [9, 16, 25, 36]
        );
        assert_eq!(runs.done.len(), 1, "one run served both bindings");
        let other = Reference {
            workgroups: [2, 1, 1],
            ..r
        };
        runs.output(&gpu, &app, &other, (0, 1)).unwrap();
        assert_eq!(runs.done.len(), 2, "another dispatch is another kernel run");
    }
}
