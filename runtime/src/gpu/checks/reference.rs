//! Reference kernels: a correct, simple kernel the user provides runs once per session, as
//! written (no instrumentation, no stress), on the application's initial contents; what it
//! leaves in a binding is what every run must leave there.

use crate::app::check::Reference;
use crate::app::spec::{App, BindingKind};
use crate::error::{Result, RuntimeError};
use crate::gpu::device::commands::{
    BindGroupDesc, BindGroupId, BindingType, GroupEntry, LayoutDesc, LayoutEntry, PassOp,
    PipelineDesc, Read, Step, Submission, Usage,
};
use crate::gpu::device::{Buffer, Gpu, Held};
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
    ty: BindingType,
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
    let buffers = used
        .iter()
        .map(|u| buffer(gpu, app, u, &path, r))
        .collect::<Result<Vec<_>>>()?;
    let layout = gpu.layout(&LayoutDesc {
        groups: (0..groups(&used))
            .map(|group| {
                used.iter()
                    .filter(|u| u.group == group)
                    .map(|u| LayoutEntry {
                        binding: u.binding,
                        ty: u.ty,
                        dynamic: false,
                    })
                    .collect()
            })
            .collect(),
    })?;
    let bind_groups = bind_groups(gpu, layout.id(), &used, &buffers)?;
    let pipeline = gpu.pipeline(&PipelineDesc {
        label: format!("reference kernel {path}"),
        layout: layout.id(),
        wgsl: source.clone(),
        entry: entry.clone(),
        constants: constants(app, &module),
    })?;
    let mut steps = vec![PassOp::Pipeline {
        pipeline: pipeline.id(),
    }];
    for (group, bind_group) in bind_groups.iter().enumerate() {
        steps.push(PassOp::BindGroup {
            index: group as u32,
            group: bind_group.id(),
            offsets: Vec::new(),
        });
    }
    steps.push(PassOp::Dispatch {
        workgroups: [x, y, z],
    });
    let mut batch = Submission {
        commands: vec![Step::Pass { steps }],
        ..Submission::default()
    };
    let reads = copy_written(gpu, &mut batch, &used, &buffers)?;
    let words = gpu.submit(&batch, TIMEOUT).map_err(|e| match e {
        wgstress_device::DeviceError::Refused { message, .. } => RuntimeError::Wgpu {
            what: format!("reference kernel `{}` of {path}", r.entry),
            message,
        },
        other => other.into(),
    })?;
    Ok(reads.iter().map(|(k, _)| *k).zip(words).collect())
}

/// Bind groups 0 to the highest one `used` names.
fn groups(used: &[Used]) -> u32 {
    used.iter().map(|u| u.group + 1).max().unwrap_or(0)
}

/// The buffer for binding `u`, holding the spec's initial contents; refused in words where
/// the spec's binding cannot serve the kernel's declaration.
fn buffer(gpu: &Gpu, app: &App, u: &Used, path: &str, r: &Reference) -> Result<Buffer> {
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
    let uniform = u.ty == BindingType::Uniform;
    if uniform != (b.kind == BindingKind::Uniform) {
        return Err(RuntimeError::Input(format!(
            "{at} as {}, but the spec declares it {}",
            if uniform { "a uniform" } else { "storage" },
            format!("{:?}", b.kind).to_lowercase()
        )));
    }
    let usage = match b.kind {
        BindingKind::Storage => Usage::STORAGE | Usage::COPY_SRC,
        BindingKind::Uniform => Usage::UNIFORM,
    };
    let words = b.init.words(b.words)?;
    Ok(gpu.buffer_with("wgstress reference", bytemuck::cast_slice(&words), usage)?)
}

/// A bind group for each group of `layout` (empty where the kernel binds nothing there).
fn bind_groups(
    gpu: &Gpu,
    layout: crate::gpu::device::commands::LayoutId,
    used: &[Used],
    buffers: &[Buffer],
) -> Result<Vec<Held<BindGroupId>>> {
    (0..groups(used))
        .map(|group| {
            let entries = used
                .iter()
                .zip(buffers)
                .filter(|(u, _)| u.group == group)
                .map(|(u, buffer)| GroupEntry {
                    binding: u.binding,
                    buffer: buffer.id(),
                    offset: 0,
                    size: None,
                })
                .collect();
            Ok(gpu.bind_group(&BindGroupDesc {
                layout,
                group,
                entries,
            })?)
        })
        .collect()
}

/// The spec's `[constants]` for the overrides this module declares (by name or `@id`):
/// wgpu refuses values for unknown ones.
fn constants(app: &App, module: &naga::Module) -> Vec<(String, f64)> {
    app.constants
        .iter()
        .filter(|(name, _)| {
            module.overrides.iter().any(|(_, o)| {
                o.name.as_deref() == Some(name.as_str())
                    || o.id.is_some_and(|id| id.to_string() == *name)
            })
        })
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// Copies every binding the kernel may write into a readback buffer of its own.
fn copy_written(
    gpu: &Gpu,
    batch: &mut Submission,
    used: &[Used],
    buffers: &[Buffer],
) -> Result<Vec<((u32, u32), Buffer)>> {
    let writable = |u: &Used| matches!(u.ty, BindingType::Storage { read_only: false });
    used.iter()
        .zip(buffers)
        .filter(|(u, _)| writable(u))
        .map(|(u, buffer)| {
            let read = gpu.buffer(
                "wgstress reference readback",
                buffer.size(),
                Usage::MAP_READ | Usage::COPY_DST,
            )?;
            batch.commands.push(Step::Copy {
                from: buffer.id(),
                from_offset: 0,
                to: read.id(),
                to_offset: 0,
                size: buffer.size(),
            });
            batch.reads.push(Read {
                buffer: read.id(),
                bytes: buffer.size(),
            });
            Ok(((u.group, u.binding), read))
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
            AddressSpace::Storage { access } => BindingType::Storage {
                read_only: !access.contains(StorageAccess::STORE),
            },
            AddressSpace::Uniform => BindingType::Uniform,
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
        let gpu = crate::gpu::device::open(&Default::default()).unwrap();
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
