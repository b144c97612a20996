//! One instrumented application on one device: its pipelines and buffers, and the batched
//! submission of many runs. A batch is one command buffer: for each run, reset the
//! application's buffers from pristine copies, dispatch each dispatch of the pipeline plus
//! stress (where the dispatch has it), dispatch the postcondition, and copy what the host
//! checks read; the per-run results blocks (one per dispatch, bound with dynamic offsets)
//! come back in one read at the end.
//!
//! A raw session dispatches the user's shaders as given (no stress, no watchdog, no
//! assertion hooks), with the same buffers, postcondition and host checks.

use crate::app::failure::CheckFailure;
use crate::app::spec::{App, BindingKind, Outputs};
use crate::error::{Error, Result};
use crate::gpu::device::Gpu;
use crate::gpu::interface::{match_bindings, read_only, Binds, Slot, Use};
use crate::gpu::layout::{self, LAYOUTS};
use crate::gpu::params::encode;
use crate::gpu::program::Program;
use crate::run::record::Record;
use crate::stress::strategy::{RunParams, Settings, Strategy};
use std::time::Duration;
use wgpu::util::DeviceExt;
use wgstress_instrument::Manifest;

struct AppBuffer {
    slot: Slot,
    buffer: wgpu::Buffer,
    /// Pristine contents copied in before every run (storage bindings only).
    pristine: Option<wgpu::Buffer>,
    /// Where the binding starts inside `buffer` in each buffer layout (0 for uniforms).
    offsets: [u64; LAYOUTS],
}

/// Where one checked binding's copy sits in a run's share of the readback buffer.
struct Checked {
    key: (u32, u32),
    offset: u64,
    bytes: u64,
}

/// One dispatch of a run (or the postcondition): its pipeline and what it binds.
struct Stage {
    pipeline: wgpu::ComputePipeline,
    workgroups: [u32; 3],
    /// Whether stress workgroups run beside it.
    stress: bool,
    /// The user's shader as given: dispatched at its own size, without stress.
    raw: bool,
    /// The results block of a run it records into (the postcondition shares its unit's).
    block: usize,
    /// Its params block in a run: its own, as its dispatch size is its own.
    slot: usize,
    /// The bind groups of each buffer layout.
    groups: Vec<Vec<(u32, wgpu::BindGroup)>>,
}

pub struct Session {
    /// The manifest of each results block of a run (`Program::manifests`).
    pub manifests: Vec<Manifest>,
    stages: Vec<Stage>,
    post: Option<Stage>,
    /// Results blocks per run.
    blocks: usize,
    /// Params blocks per run: one per dispatch and one for the postcondition.
    slots: usize,
    own_group: u32,
    buffers: Vec<AppBuffer>,
    params: wgpu::Buffer,
    results: wgpu::Buffer,
    results_read: wgpu::Buffer,
    checked: Vec<Checked>,
    checked_read: Option<wgpu::Buffer>,
    checked_stride: u64,
    params_stride: u64,
    results_stride: u64,
    max_dim: u32,
    pub batch: usize,
    pub scratch_words: u32,
}

fn align(value: u64, to: u64) -> u64 {
    value.div_ceil(to) * to
}

/// Readback bytes a batch may hold for host checks.
const CHECK_BYTES_PER_BATCH: u64 = 256 << 20;

impl Session {
    pub fn new(
        gpu: &Gpu,
        app: &App,
        program: &Program,
        raw: bool,
        batch: usize,
        scratch_words: u32,
    ) -> Result<Session> {
        let mut uses: Vec<Use> = program
            .units
            .iter()
            .zip(&program.dispatches)
            .map(|(unit, dispatch)| Use {
                inst: &unit.inst,
                entry: &unit.inst.manifest.entry_point.name,
                bind: &dispatch.bind,
            })
            .collect();
        // The postcondition binds every binding at its own number.
        let post_use = program.postcondition().map(|(unit, _)| Use {
            inst: &unit.inst,
            entry: unit
                .inst
                .manifest
                .postcondition
                .as_ref()
                .map_or("", |p| &p.name),
            bind: &[],
        });
        uses.extend(post_use);
        let slots = match_bindings(app, &uses)?;
        let device = &gpu.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let manifests: Vec<Manifest> = program.manifests().into_iter().cloned().collect();
        let manifest = manifests[0].clone();
        let blocks = program.blocks();
        let limits = &gpu.limits;
        let params_stride = align(
            manifest.params.size.into(),
            limits.min_uniform_buffer_offset_alignment.into(),
        );
        let results_stride = align(
            manifest.results.size.into(),
            limits.min_storage_buffer_offset_alignment.into(),
        );

        let checked_keys = app.checked_bindings();
        let mut checked = Vec::new();
        let mut checked_stride = 0;
        for key in &checked_keys {
            let slot = slots
                .iter()
                .find(|s| (s.group, s.binding) == *key)
                .ok_or_else(|| {
                    Error::Input(format!(
                        "{}: a check reads binding {}:{}, which the spec does not declare",
                        app.name, key.0, key.1
                    ))
                })?;
            let bytes = u64::from(slot.words) * 4;
            checked.push(Checked {
                key: *key,
                offset: checked_stride,
                bytes,
            });
            checked_stride += bytes;
        }
        // Read-back copies of checked buffers bound the batch.
        let batch = match CHECK_BYTES_PER_BATCH.checked_div(checked_stride) {
            Some(fit) => batch.min(fit.max(1) as usize),
            None => batch,
        }
        .max(1);
        let max_scratch =
            (limits.max_storage_buffer_binding_size / 4).min(u64::from(u32::MAX)) as u32;
        let scratch_words = scratch_words.clamp(64, max_scratch);

        let align = u64::from(limits.min_storage_buffer_offset_alignment);
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
            let label = Some(slot.name.as_str());
            let pristine = (slot.kind == BindingKind::Storage).then(|| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label,
                    contents: &contents,
                    usage: wgpu::BufferUsages::COPY_SRC,
                })
            });
            let (usage, offsets) = match slot.kind {
                BindingKind::Storage => {
                    contents.resize(contents.len() + layout::padding(align) as usize, 0);
                    let usage = wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC;
                    (usage, layout::offsets(index, align))
                }
                BindingKind::Uniform => (
                    wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    [0; LAYOUTS],
                ),
            };
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label,
                contents: &contents,
                usage,
            });
            buffers.push(AppBuffer {
                slot,
                buffer,
                pristine,
                offsets,
            });
        }

        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let per_batch = (batch * blocks) as u64;
        let slots = program.units.len() + 1;
        let params = buffer(
            "wgstress params",
            params_stride * (batch * slots) as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let results = buffer(
            "wgstress results",
            results_stride * per_batch,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let results_read = buffer(
            "wgstress results readback",
            results_stride * per_batch,
            U::MAP_READ | U::COPY_DST,
        );
        let scratch = buffer(
            "wgstress scratchpad",
            u64::from(scratch_words) * 4,
            U::STORAGE,
        );
        let checked_read = (checked_stride > 0).then(|| {
            buffer(
                "wgstress checked readback",
                checked_stride * batch as u64,
                U::MAP_READ | U::COPY_DST,
            )
        });

        let ours = [&params, &results, &scratch];
        let make = |pipeline: &Use, dispatch: Option<&crate::app::spec::Dispatch>| {
            let uniforms = uniform_buffers(device, app, &buffers, dispatch)?;
            let (layouts, groups) =
                bind_groups(device, &buffers, &manifest, ours, pipeline, &uniforms);
            let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> =
                layouts.iter().map(Some).collect();
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("wgstress"),
                bind_group_layouts: &layout_refs,
                immediate_size: 0,
            });
            Ok::<_, Error>((pipeline_layout, groups))
        };
        let mut stages = Vec::new();
        for (index, (unit, dispatch)) in program.units.iter().zip(&program.dispatches).enumerate() {
            let (layout, groups) = make(&uses[index], Some(dispatch))?;
            let given = &unit.inst.manifest.entry_point;
            let (what, wgsl, entry, constants) = if raw {
                let shader = wgstress_instrument::raw_wgsl(&unit.source, &unit.path)?;
                let constants = raw_constants(&shader.wgsl, &app.constants);
                let entry = shader.entry_point(&given.name).to_string();
                let what = format!("shader {}", unit.path);
                (what, shader.wgsl.into_owned(), entry, constants)
            } else {
                let wgsl = wgstress_instrument::for_wgpu(&unit.inst.wgsl).into_owned();
                let what = format!("instrumented {}", unit.path);
                (what, wgsl, given.wgsl_name.clone(), Vec::new())
            };
            let constants: Vec<(&str, f64)> =
                constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            stages.push(Stage {
                pipeline: crate::gpu::device::shader_pipeline(
                    device, &layout, &what, &wgsl, &entry, &constants,
                )?,
                workgroups: dispatch.workgroups,
                stress: dispatch.stress && !raw,
                raw,
                block: index,
                slot: index,
                groups,
            });
        }
        let post = match program.postcondition() {
            Some((unit, block)) => {
                let name = &unit
                    .inst
                    .manifest
                    .postcondition
                    .as_ref()
                    .expect("postcondition")
                    .wgsl_name;
                let (layout, groups) = make(uses.last().expect("the postcondition's"), None)?;
                let wgsl = wgstress_instrument::for_wgpu(&unit.inst.wgsl);
                let what = format!("instrumented {}", unit.path);
                Some(Stage {
                    pipeline: crate::gpu::device::shader_pipeline(
                        device,
                        &layout,
                        &what,
                        &wgsl,
                        name,
                        &[],
                    )?,
                    workgroups: app.postcondition_workgroups,
                    stress: false,
                    raw: false,
                    block,
                    slot: slots - 1,
                    groups,
                })
            }
            None => None,
        };
        crate::gpu::device::end_scope(scope, || {
            format!("buffers and bind groups of {}", app.name)
        })?;
        Ok(Session {
            own_group: manifest.bind_group,
            manifests,
            stages,
            post,
            blocks,
            slots,
            buffers,
            params,
            results,
            results_read,
            checked,
            checked_read,
            checked_stride,
            params_stride,
            results_stride,
            max_dim: limits.max_compute_workgroups_per_dimension,
            batch,
            scratch_words,
        })
    }

    /// The most workgroups any dispatch of a run has: stress is drawn and checked against it.
    pub fn app_groups(&self) -> u32 {
        self.stages
            .iter()
            .map(|s| s.workgroups.iter().product())
            .max()
            .unwrap_or(1)
    }

    /// Checks that runs of `settings` fit this device: the application's workgroups with the
    /// most stress workgroups the settings draw, and the cache strategy's scratchpad.
    pub fn check(&self, settings: &Settings) -> Result<()> {
        let app = u64::from(self.app_groups());
        let stress = crate::stress::strategy::max_stress_groups(settings, self.app_groups());
        let limit = u64::from(self.max_dim) * u64::from(self.max_dim);
        if app + u64::from(stress) > limit {
            return Err(Error::Input(format!(
                "{app} application and up to {stress} stress workgroups are beyond this adapter's limit of {limit} (max_compute_workgroups_per_dimension squared): lower --stress-fraction or the workgroups"
            )));
        }
        if settings.strategy == Strategy::Cache && settings.cache_words > self.scratch_words {
            return Err(Error::Input(format!(
                "--cache-mib {} is beyond this adapter's largest storage buffer ({} MiB, max_storage_buffer_binding_size)",
                settings.cache_words >> 18,
                self.scratch_words >> 18
            )));
        }
        Ok(())
    }

    /// Runs `runs` (at most `self.batch`) in one submission. `check` sees each run's read-back
    /// buffers; its verdicts come back beside the GPU records.
    pub fn run_batch(
        &self,
        gpu: &Gpu,
        runs: &[RunParams],
        timeout: Duration,
        check: &dyn Fn(&Outputs) -> std::result::Result<(), CheckFailure>,
    ) -> Result<Vec<(Record, std::result::Result<(), CheckFailure>)>> {
        assert!(
            runs.len() <= self.batch,
            "a batch holds at most {} runs",
            self.batch
        );
        let layout = &self.manifests[0].params;
        let mut bytes = vec![0u8; self.params_stride as usize * runs.len() * self.slots];
        for (i, run) in runs.iter().enumerate() {
            for stage in self.stages.iter().chain(&self.post) {
                let groups = stage.workgroups.iter().product();
                let at = (i * self.slots + stage.slot) * self.params_stride as usize;
                encode(
                    &run.for_dispatch(groups, stage.stress),
                    stage.workgroups,
                    layout,
                    &mut bytes[at..at + layout.size as usize],
                );
            }
        }
        gpu.queue.write_buffer(&self.params, 0, &bytes);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.results, 0, None);
        for (i, run) in runs.iter().enumerate() {
            self.encode_run(&mut encoder, i, run);
        }
        let used = self.results_stride * (runs.len() * self.blocks) as u64;
        encoder.copy_buffer_to_buffer(&self.results, 0, &self.results_read, 0, used);
        let checked_used = self.checked_stride * runs.len() as u64;
        let mut reads = vec![(&self.results_read, used)];
        reads.extend(self.checked_read.as_ref().map(|r| (r, checked_used)));
        let read = crate::gpu::device::submit_and_read(gpu, encoder, &reads, timeout)?;
        let results: &[u8] = bytemuck::cast_slice(&read[0]);
        let checked_words: &[u32] = read.get(1).map_or(&[], Vec::as_slice);
        let out = {
            runs.iter()
                .enumerate()
                .map(|(i, _)| {
                    let blocks: Vec<Record> = self
                        .manifests
                        .iter()
                        .enumerate()
                        .map(|(block, manifest)| {
                            let at = (i * self.blocks + block) * self.results_stride as usize;
                            Record::decode(
                                &results[at..at + manifest.results.size as usize],
                                manifest,
                            )
                        })
                        .collect();
                    let record = Record::merge(&blocks);
                    let base = (i as u64 * self.checked_stride / 4) as usize;
                    let outputs = Outputs::new(
                        self.checked
                            .iter()
                            .map(|c| {
                                let start = base + (c.offset / 4) as usize;
                                (c.key, &checked_words[start..start + (c.bytes / 4) as usize])
                            })
                            .collect(),
                    );
                    let verdict = if self.checked.is_empty() {
                        Ok(())
                    } else {
                        check(&outputs)
                    };
                    (record, verdict)
                })
                .collect()
        };
        Ok(out)
    }

    fn encode_run(&self, encoder: &mut wgpu::CommandEncoder, index: usize, run: &RunParams) {
        let layout = run.layout as usize % LAYOUTS;
        for b in &self.buffers {
            if let Some(pristine) = &b.pristine {
                encoder.copy_buffer_to_buffer(
                    pristine,
                    0,
                    &b.buffer,
                    b.offsets[layout],
                    u64::from(b.slot.words) * 4,
                );
            }
        }
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for stage in &self.stages {
                self.bind(&mut pass, stage, index, layout);
                pass.set_pipeline(&stage.pipeline);
                if stage.raw {
                    let [x, y, z] = stage.workgroups;
                    pass.dispatch_workgroups(x, y, z);
                    continue;
                }
                let stress = if stage.stress { run.stress_groups } else { 0 };
                let total = stage.workgroups.iter().product::<u32>() + stress;
                let x = total.min(self.max_dim);
                pass.dispatch_workgroups(x, total.div_ceil(x), 1);
            }
            if let (Some(post), true) = (&self.post, run.app_enabled) {
                self.bind(&mut pass, post, index, layout);
                pass.set_pipeline(&post.pipeline);
                let [px, py, pz] = post.workgroups;
                pass.dispatch_workgroups(px, py, pz);
            }
        }
        for c in &self.checked {
            let b = self
                .buffers
                .iter()
                .find(|b| (b.slot.group, b.slot.binding) == c.key)
                .expect("checked buffer");
            let read = self.checked_read.as_ref().expect("checked readback");
            encoder.copy_buffer_to_buffer(
                &b.buffer,
                b.offsets[layout],
                read,
                index as u64 * self.checked_stride + c.offset,
                c.bytes,
            );
        }
    }
}

impl Session {
    /// Binds `stage`'s groups in buffer layout `layout`, wgstress's own at its params and
    /// results blocks of run `index`.
    fn bind(&self, pass: &mut wgpu::ComputePass, stage: &Stage, index: usize, layout: usize) {
        let slot = (index * self.slots + stage.slot) as u64;
        let block = (index * self.blocks + stage.block) as u64;
        let offsets = [
            (slot * self.params_stride) as u32,
            (block * self.results_stride) as u32,
        ];
        for (group, bind_group) in &stage.groups[layout] {
            let dynamic: &[u32] = if *group == self.own_group {
                &offsets
            } else {
                &[]
            };
            pass.set_bind_group(*group, bind_group, dynamic);
        }
    }
}

/// The values in `constants` for the overrides `source` declares (a raw shader keeps its
/// overrides, and wgpu refuses values for overrides a shader lacks).
fn raw_constants(source: &str, constants: &[(String, f64)]) -> Vec<(String, f64)> {
    match naga::front::wgsl::parse_str(source) {
        Ok(module) => wgstress_instrument::constants_for(&module, constants),
        Err(_) => Vec::new(),
    }
}

/// A dispatch's own uniform contents, as buffers by (group, binding).
fn uniform_buffers(
    device: &wgpu::Device,
    app: &App,
    buffers: &[AppBuffer],
    dispatch: Option<&crate::app::spec::Dispatch>,
) -> Result<Vec<((u32, u32), wgpu::Buffer)>> {
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
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(slot.name.as_str()),
                contents: bytemuck::cast_slice(&words),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            Ok((key, buffer))
        })
        .collect()
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
) -> (Vec<wgpu::BindGroupLayout>, Vec<Vec<(u32, wgpu::BindGroup)>>) {
    let max_group = buffers
        .iter()
        .map(|b| b.slot.group)
        .chain([manifest.bind_group])
        .max()
        .unwrap_or(0);
    let mut layouts = Vec::new();
    let mut groups: Vec<Vec<(u32, wgpu::BindGroup)>> = (0..LAYOUTS).map(|_| Vec::new()).collect();
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
