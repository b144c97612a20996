//! One instrumented application on one device: its pipelines and buffers, and the batched
//! submission of many runs. A batch is one command buffer: for each run, reset the
//! application's buffers from pristine copies, dispatch each dispatch of the pipeline plus
//! stress (where the dispatch has it), dispatch the postcondition, compare the bindings of
//! the checks compared on the device (`checks::device`), and copy what the host checks read;
//! the per-run results blocks (one per dispatch, bound with dynamic offsets) and the checks'
//! result blocks come back in one read each at the end.
//!
//! A raw session dispatches the user's shaders as given (no stress, no watchdog, no
//! assertion hooks), with the same buffers, postcondition and host checks.

use crate::app::failure::CheckFailure;
use crate::app::spec::{App, Dispatch};
use crate::error::{Result, RuntimeError};
use crate::gpu::bind::{pipeline_layout, Bindings};
use crate::gpu::buffers::{app_buffers, AppBuffer, Own, Sizes};
use crate::gpu::checks::device::{CheckPlan, DeviceChecks, RunRead};
use crate::gpu::checks::Prepared;
use crate::gpu::device::commands::{PassOp, PipelineDesc, PipelineId, Read, Step, Submission};
use crate::gpu::device::{Gpu, Held};
use crate::gpu::interface::{match_bindings, Use};
use crate::gpu::params::{encode, Pacing, Places, Stalls};
use crate::gpu::program::{Program, Unit};
use crate::gpu::readback::ReadBack;
use std::time::Duration;
use wgstress_instrument::Manifest;
use wgstress_model::run::results_block::Record;
use wgstress_model::stress::params::LAYOUTS;
use wgstress_model::stress::params::{RunParams, Settings};
use wgstress_model::stress::strategy::Strategy;

/// One dispatch of a run (or the postcondition): its pipeline and what it binds.
struct Stage {
    pipeline: Held<PipelineId>,
    workgroups: [u32; 3],
    /// Whether stress workgroups run beside it.
    stress: bool,
    /// The user's shader as given: dispatched at its own size, without stress.
    raw: bool,
    /// The results block of a run it records into (the postcondition shares its unit's).
    block: usize,
    /// Its params block in a run: its own, as its dispatch size is its own.
    slot: usize,
    /// Its layout, the bind groups of each buffer layout, and the uniforms they bind.
    bindings: Bindings,
}

pub(crate) struct Session {
    /// The manifest of each results block of a run (`Program::manifests`).
    manifests: Vec<Manifest>,
    stages: Vec<Stage>,
    post: Option<Stage>,
    /// wgstress's bind group.
    own_group: u32,
    sizes: Sizes,
    buffers: Vec<AppBuffer>,
    own: Own,
    read_back: ReadBack,
    /// The checks compared on the device, after each run's postcondition.
    device_checks: DeviceChecks,
    max_dim: u32,
}

impl Session {
    /// Builds `program`'s pipelines (the user's shaders as given when `raw`) and buffers on
    /// `gpu`, for batches of at most `batch` runs and a scratchpad of `scratch_words`
    /// (`Sizes::new`). `checks` (the app's, prepared) are compared on the device where they
    /// can be (`CheckPlan`), unless `host_checks`; the rest read their bindings back.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        gpu: &Gpu,
        app: &App,
        program: &Program,
        raw: bool,
        batch: usize,
        scratch_words: u32,
        checks: &[Prepared],
        host_checks: bool,
    ) -> Result<Session> {
        if raw {
            crate::gpu::limits::check_dimensions(app, &gpu.limits)?;
        }
        let uses = uses(program);
        let slots = match_bindings(app, &uses)?;
        let manifests: Vec<Manifest> = program.manifests().into_iter().cloned().collect();
        let limits = &gpu.limits;
        let plan = CheckPlan::new(checks, &slots, host_checks);
        let read_back = ReadBack::plan(app, &slots, &|i| plan.on_host(i))?;
        let sizes = Sizes::new(program, limits, &read_back, batch, scratch_words);
        let align = u64::from(limits.min_storage_buffer_offset_alignment);
        let buffers = app_buffers(gpu, app, slots, align)?;
        let device_checks = DeviceChecks::new(gpu, plan, checks, &buffers, sizes.batch)?;
        let own = Own::new(gpu, &sizes)?;
        let build = Build {
            gpu,
            app,
            manifest: &manifests[0],
            buffers: &buffers,
            ours: [&own.params, &own.results, &own.scratch],
        };
        let stages = build.dispatch_stages(program, &uses, raw)?;
        let post = build.post_stage(program, uses.last(), sizes.slots - 1)?;
        Ok(Session {
            own_group: manifests[0].bind_group,
            manifests,
            stages,
            post,
            sizes,
            buffers,
            own,
            read_back,
            device_checks,
            max_dim: limits.max_compute_workgroups_per_dimension,
        })
    }

    /// Bytes of device memory the session's buffers hold.
    pub(crate) fn bytes(&self) -> u64 {
        let app = self
            .buffers
            .iter()
            .map(|b| b.buffer.size() + b.pristine.as_ref().map_or(0, |p| p.size()));
        let own = &self.own;
        let ours = [&own.params, &own.results, &own.results_read, &own.scratch]
            .into_iter()
            .chain(&own.checked_read)
            .map(|b| b.size());
        app.chain(ours).sum::<u64>() + self.device_checks.bytes()
    }

    /// Bytes a batch of `runs` runs reads back: the results blocks, the copies of the
    /// bindings host checks read, and the result blocks of the checks compared on the device.
    pub(crate) fn read_bytes(&self, runs: usize) -> u64 {
        let results = self.sizes.results_stride * (runs * self.sizes.blocks) as u64;
        results + self.read_back.stride * runs as u64 + self.device_checks.read_bytes(runs)
    }

    /// Writes the expected words of the checks compared on the device again, from `checks`
    /// prepared anew (the initial contents they come from changed).
    pub(crate) fn set_expected(&self, gpu: &Gpu, checks: &[Prepared]) -> Result<()> {
        self.device_checks.set_expected(gpu, checks)
    }

    /// Runs a batch holds at most.
    pub(crate) fn batch(&self) -> usize {
        self.sizes.batch
    }

    /// The most workgroups any dispatch of a run has: stress is drawn and checked against it.
    pub(crate) fn app_groups(&self) -> u32 {
        self.stages
            .iter()
            .map(|s| s.workgroups.iter().product())
            .max()
            .unwrap_or(1)
    }

    /// Checks that runs of `settings` fit this device: the application's workgroups with the
    /// most stress workgroups the settings draw, and the cache strategy's scratchpad.
    pub(crate) fn check(&self, settings: &Settings) -> Result<()> {
        let app = u64::from(self.app_groups());
        let stress = wgstress_model::stress::params::max_stress_groups(settings, self.app_groups());
        let limit = u64::from(self.max_dim) * u64::from(self.max_dim);
        if app + u64::from(stress) > limit {
            return Err(RuntimeError::Input(format!(
                "{app} application and up to {stress} stress workgroups are beyond this adapter's limit of {limit} (max_compute_workgroups_per_dimension squared): lower --stress-fraction or the workgroups"
            )));
        }
        if settings.strategy == Strategy::Cache && settings.cache_words > self.sizes.scratch_words {
            return Err(RuntimeError::Input(format!(
                "--cache-mib {} is beyond this adapter's largest storage buffer ({} MiB, max_storage_buffer_binding_size)",
                settings.cache_words >> 18,
                self.sizes.scratch_words >> 18
            )));
        }
        Ok(())
    }

    /// Runs `runs` (at most `batch()`) in one submission, their waits judged as `stalls`
    /// says. `check` sees each run's read-back buffers and the result blocks of its checks
    /// compared on the device; its verdicts come back beside the GPU records.
    pub(crate) fn run_batch(
        &self,
        gpu: &Gpu,
        runs: &[RunParams],
        stalls: Stalls,
        timeout: Duration,
        check: &dyn Fn(&RunRead) -> std::result::Result<(), CheckFailure>,
    ) -> Result<Vec<(Record, std::result::Result<(), CheckFailure>)>> {
        assert!(
            runs.len() <= self.sizes.batch,
            "a batch holds at most {} runs",
            self.sizes.batch
        );
        let mut batch = Submission::default();
        batch.writes.push(crate::gpu::device::commands::Write {
            buffer: self.own.params.id(),
            offset: 0,
            bytes: self.params(runs, gpu, stalls),
        });
        batch.commands.push(Step::Clear {
            buffer: self.own.results.id(),
        });
        self.device_checks.clear(&mut batch.commands);
        for (i, run) in runs.iter().enumerate() {
            self.encode_run(&mut batch.commands, i, run);
        }
        let used = self.sizes.results_stride * (runs.len() * self.sizes.blocks) as u64;
        batch.commands.push(Step::Copy {
            from: self.own.results.id(),
            from_offset: 0,
            to: self.own.results_read.id(),
            to_offset: 0,
            size: used,
        });
        let checked_used = self.read_back.stride * runs.len() as u64;
        batch.reads.push(Read {
            buffer: self.own.results_read.id(),
            bytes: used,
        });
        batch
            .reads
            .extend(self.own.checked_read.as_ref().map(|r| Read {
                buffer: r.id(),
                bytes: checked_used,
            }));
        let device_read = self.device_checks.read(&mut batch.commands, runs.len());
        batch.reads.extend(device_read);
        let read = gpu.submit(&batch, timeout)?;
        let results: &[u8] = bytemuck::cast_slice(&read[0]);
        let mut next = 1;
        let mut words = |present: bool| -> &[u32] {
            if !present {
                return &[];
            }
            next += 1;
            &read[next - 1]
        };
        let checked_words = words(self.own.checked_read.is_some());
        let device_words = words(device_read.is_some());
        let nothing = self.read_back.checked.is_empty() && device_read.is_none();
        Ok((0..runs.len())
            .map(|i| {
                // A run without the application (calibration's, an engine's first) has
                // nothing of it to check.
                let verdict = if nothing || !runs[i].app_enabled {
                    Ok(())
                } else {
                    check(&RunRead {
                        outputs: self.read_back.outputs(checked_words, i),
                        blocks: self.device_checks.blocks(device_words, i),
                    })
                };
                (self.record(results, i), verdict)
            })
            .collect())
    }

    /// The params blocks of a batch of `runs`: each stage's of each run.
    fn params(&self, runs: &[RunParams], gpu: &Gpu, stalls: Stalls) -> Vec<u8> {
        let layout = &self.manifests[0].params;
        let pacing = Pacing::for_adapter(&gpu.info.name).judging(stalls);
        let mut bytes =
            vec![0u8; self.sizes.params_stride as usize * runs.len() * self.sizes.slots];
        for (i, run) in runs.iter().enumerate() {
            for stage in self.stages.iter().chain(&self.post) {
                let groups = stage.workgroups.iter().product();
                let at = (i * self.sizes.slots + stage.slot) * self.sizes.params_stride as usize;
                let manifest = &self.manifests[stage.block.min(self.manifests.len() - 1)];
                encode(
                    &run.for_dispatch(groups, stage.stress),
                    pacing,
                    stage.workgroups,
                    Places::of(manifest),
                    layout,
                    &mut bytes[at..at + layout.size as usize],
                );
            }
        }
        bytes
    }

    /// Run `run`'s record, merged from its results blocks in the batch's `results`.
    fn record(&self, results: &[u8], run: usize) -> Record {
        let blocks: Vec<Record> = self
            .manifests
            .iter()
            .enumerate()
            .map(|(block, manifest)| {
                let at = (run * self.sizes.blocks + block) * self.sizes.results_stride as usize;
                crate::gpu::decode::decode(
                    &results[at..at + manifest.results.size as usize],
                    manifest,
                )
            })
            .collect();
        Record::merge(&blocks)
    }

    /// Writes `words` as the pristine contents of the storage binding at `(group, binding)`,
    /// which every later run starts from; false where the session has no such binding or it
    /// is not of `words`' size.
    pub(crate) fn set_pristine(
        &self,
        gpu: &Gpu,
        (group, binding): (u32, u32),
        words: &[u32],
    ) -> Result<bool> {
        let found = self.buffers.iter().find(|b| {
            (b.slot.group, b.slot.binding) == (group, binding)
                && b.slot.words as usize == words.len()
        });
        match found.and_then(|b| b.pristine.as_ref()) {
            Some(pristine) => {
                gpu.write(pristine, 0, bytemuck::cast_slice(words))?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn encode_run(&self, commands: &mut Vec<Step>, index: usize, run: &RunParams) {
        let layout = run.layout as usize % LAYOUTS;
        for b in &self.buffers {
            if let Some(pristine) = &b.pristine {
                commands.push(Step::Copy {
                    from: pristine.id(),
                    from_offset: 0,
                    to: b.buffer.id(),
                    to_offset: b.offsets[layout],
                    size: u64::from(b.slot.words) * 4,
                });
            }
        }
        let mut steps = Vec::new();
        for stage in &self.stages {
            self.bind(&mut steps, stage, index, layout);
            steps.push(PassOp::Pipeline {
                pipeline: stage.pipeline.id(),
            });
            if stage.raw {
                steps.push(PassOp::Dispatch {
                    workgroups: stage.workgroups,
                });
                continue;
            }
            let stress = if stage.stress { run.stress_groups } else { 0 };
            let total = stage.workgroups.iter().product::<u32>() + stress;
            let x = total.min(self.max_dim);
            steps.push(PassOp::Dispatch {
                workgroups: [x, total.div_ceil(x), 1],
            });
        }
        if let (Some(post), true) = (&self.post, run.app_enabled) {
            self.bind(&mut steps, post, index, layout);
            steps.push(PassOp::Pipeline {
                pipeline: post.pipeline.id(),
            });
            steps.push(PassOp::Dispatch {
                workgroups: post.workgroups,
            });
        }
        if run.app_enabled {
            self.device_checks.compare(&mut steps, index, layout);
        }
        commands.push(Step::Pass { steps });
        for c in &self.read_back.checked {
            let b = self
                .buffers
                .iter()
                .find(|b| (b.slot.group, b.slot.binding) == c.key)
                .expect("checked buffer");
            let read = self.own.checked_read.as_ref().expect("checked readback");
            commands.push(Step::Copy {
                from: b.buffer.id(),
                from_offset: b.offsets[layout],
                to: read.id(),
                to_offset: index as u64 * self.read_back.stride + c.offset,
                size: c.bytes,
            });
        }
    }
}

impl Session {
    /// Binds `stage`'s groups in buffer layout `layout`, wgstress's own at its params and
    /// results blocks of run `index`.
    fn bind(&self, steps: &mut Vec<PassOp>, stage: &Stage, index: usize, layout: usize) {
        let slot = (index * self.sizes.slots + stage.slot) as u64;
        let block = (index * self.sizes.blocks + stage.block) as u64;
        let offsets = [
            (slot * self.sizes.params_stride) as u32,
            (block * self.sizes.results_stride) as u32,
        ];
        for (group, bind_group) in &stage.bindings.groups[layout] {
            let dynamic = if *group == self.own_group {
                offsets.to_vec()
            } else {
                Vec::new()
            };
            steps.push(PassOp::BindGroup {
                index: *group,
                group: bind_group.id(),
                offsets: dynamic,
            });
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

/// Each pipeline of a run as its bindings see it: the dispatches', then the postcondition's,
/// which binds every binding at its own number.
fn uses(program: &Program) -> Vec<Use<'_>> {
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
    uses.extend(program.postcondition().map(|(unit, _)| {
        Use {
            inst: &unit.inst,
            entry: unit
                .inst
                .manifest
                .postcondition
                .as_ref()
                .map_or("", |p| &p.name),
            bind: &[],
        }
    }));
    uses
}

/// What every pipeline of a session is built with.
struct Build<'a> {
    gpu: &'a Gpu,
    app: &'a App,
    /// The first results block's manifest: its params and results layouts and wgstress's
    /// bind group are every block's.
    manifest: &'a Manifest,
    buffers: &'a [AppBuffer],
    /// wgstress's params, results and scratchpad buffers.
    ours: [&'a crate::gpu::device::Buffer; 3],
}

/// A shader to build a pipeline from: what error messages call it, its WGSL, entry point
/// and override values.
struct Shader {
    what: String,
    wgsl: String,
    entry: String,
    constants: Vec<(String, f64)>,
}

impl Build<'_> {
    /// A stage per dispatch, in order; `raw`: the user's shaders as given.
    fn dispatch_stages(&self, program: &Program, uses: &[Use], raw: bool) -> Result<Vec<Stage>> {
        let dispatches = program.units.iter().zip(&program.dispatches);
        dispatches
            .enumerate()
            .map(|(index, (unit, dispatch))| {
                let shader = self.dispatch_shader(unit, raw)?;
                let (pipeline, bindings) = self.pipeline(&uses[index], Some(dispatch), &shader)?;
                Ok(Stage {
                    pipeline,
                    workgroups: dispatch.workgroups,
                    stress: dispatch.stress && !raw,
                    raw,
                    block: index,
                    slot: index,
                    bindings,
                })
            })
            .collect()
    }

    /// The shader a dispatch runs: instrumented, or the user's as given when `raw` (with
    /// the spec's values for the overrides it declares).
    fn dispatch_shader(&self, unit: &Unit, raw: bool) -> Result<Shader> {
        let given = &unit.inst.manifest.entry_point;
        if !raw {
            return Ok(Shader {
                what: format!("instrumented {}", unit.path),
                wgsl: wgstress_instrument::for_wgpu(&unit.inst.wgsl).into_owned(),
                entry: given.wgsl_name.clone(),
                constants: Vec::new(),
            });
        }
        let text = unit.user.text()?;
        let shader = wgstress_instrument::raw_wgsl(&text, &unit.path)?;
        Ok(Shader {
            what: format!("shader {}", unit.path),
            constants: raw_constants(&shader.wgsl, &self.app.constants),
            entry: shader.entry_point(&given.name).to_string(),
            wgsl: shader.wgsl.into_owned(),
        })
    }

    /// The postcondition's stage, in params slot `slot`, if the program has one (`used`:
    /// its pipeline's bindings, the last of the session's).
    fn post_stage(
        &self,
        program: &Program,
        used: Option<&Use>,
        slot: usize,
    ) -> Result<Option<Stage>> {
        let Some((unit, block)) = program.postcondition() else {
            return Ok(None);
        };
        let used = used.expect("the postcondition's");
        let name = &unit
            .inst
            .manifest
            .postcondition
            .as_ref()
            .expect("postcondition");
        let shader = Shader {
            what: format!("instrumented {}", unit.path),
            wgsl: wgstress_instrument::for_wgpu(&unit.inst.wgsl).into_owned(),
            entry: name.wgsl_name.clone(),
            constants: Vec::new(),
        };
        let (pipeline, bindings) = self.pipeline(used, None, &shader)?;
        Ok(Some(Stage {
            pipeline,
            workgroups: self.app.postcondition_workgroups,
            stress: false,
            raw: false,
            block,
            slot,
            bindings,
        }))
    }

    /// The pipeline of `shader` for a stage whose bindings are `used` (running `dispatch`;
    /// `None`: the postcondition), and its bind groups.
    fn pipeline(
        &self,
        used: &Use,
        dispatch: Option<&Dispatch>,
        shader: &Shader,
    ) -> Result<(Held<PipelineId>, Bindings)> {
        let bindings = pipeline_layout(
            self.gpu,
            self.app,
            self.buffers,
            self.manifest,
            self.ours,
            used,
            dispatch,
        )?;
        let pipeline = self.gpu.pipeline(&PipelineDesc {
            label: shader.what.clone(),
            layout: bindings.layout.id(),
            wgsl: shader.wgsl.clone(),
            entry: shader.entry.clone(),
            constants: shader.constants.clone(),
        })?;
        Ok((pipeline, bindings))
    }
}
