//! wgpu's device behind the boundary: the objects a session made, by id, each made in an
//! error scope of its own, and a batch encoded into one command buffer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wgstress_device::commands::{
    BindGroupDesc, BindGroupId, BindingType, BufferDesc, BufferId, LayoutDesc, LayoutId, PassOp,
    PipelineDesc, PipelineId, Resource, Step, Submission, Write,
};
use wgstress_device::{Device, DeviceError, DeviceResult as Result};

pub(super) struct WgpuDevice {
    device: wgpu::Device,
    queue: wgpu::Queue,
    features: wgpu::Features,
    lost: Arc<AtomicBool>,
    /// Set when a submission outlasted its hang timeout: the GPU may still be running it.
    hung: AtomicBool,
    /// The first error wgpu raised outside every error scope, with its reason: wgpu's
    /// default handler panics on it ("wgpu error: Out of Memory").
    uncaptured: Arc<Mutex<Option<String>>>,
    next: AtomicU32,
    objects: Mutex<Objects>,
}

/// What the device made, by id. wgpu's objects are handles that clone cheaply: a batch
/// takes clones of what it uses and waits without holding the lock, so that other threads
/// build pipelines meanwhile (the fence search builds the next trial's engines).
#[derive(Default)]
struct Objects {
    buffers: HashMap<u32, wgpu::Buffer>,
    layouts: HashMap<u32, (wgpu::PipelineLayout, Vec<wgpu::BindGroupLayout>)>,
    pipelines: HashMap<u32, wgpu::ComputePipeline>,
    groups: HashMap<u32, wgpu::BindGroup>,
}

impl WgpuDevice {
    pub(super) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        features: wgpu::Features,
    ) -> WgpuDevice {
        let lost = Arc::new(AtomicBool::new(false));
        let flag = lost.clone();
        device.set_device_lost_callback(move |_, _| flag.store(true, Ordering::SeqCst));
        let uncaptured: Arc<Mutex<Option<String>>> = Arc::default();
        let first = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |error| {
            if let Ok(mut first) = first.lock() {
                first.get_or_insert_with(|| reason(&error));
            }
        }));
        WgpuDevice {
            device,
            queue,
            features,
            lost,
            hung: AtomicBool::new(false),
            uncaptured,
            next: AtomicU32::new(1),
            objects: Mutex::default(),
        }
    }

    fn id(&self) -> u32 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn objects(&self) -> std::sync::MutexGuard<'_, Objects> {
        // A thread that panicked holding the lock left the maps whole: each change is one
        // insert or remove.
        self.objects.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn buffer(&self, id: BufferId) -> Result<wgpu::Buffer> {
        self.objects()
            .buffers
            .get(&id.0)
            .cloned()
            .ok_or_else(|| unknown("buffer", id.0))
    }

    fn wait(&self, index: wgpu::SubmissionIndex, timeout: Duration) -> Result<()> {
        let poll = self.device.poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: Some(timeout),
        });
        match poll {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => {
                self.hung.store(true, Ordering::SeqCst);
                Err(DeviceError::Hang(timeout))
            }
            Err(e) if self.is_lost() => Err(DeviceError::Lost(format!(
                "{e} (the driver reported it lost)"
            ))),
            Err(e) => Err(DeviceError::Lost(e.to_string())),
        }
    }

    /// `batch`'s commands in one command buffer, with clones of the buffers it reads.
    fn encode(
        &self,
        batch: &Submission,
    ) -> Result<(wgpu::CommandBuffer, Vec<(wgpu::Buffer, u64)>)> {
        let objects = self.objects();
        let buffer = |id: BufferId| {
            objects
                .buffers
                .get(&id.0)
                .ok_or_else(|| unknown("buffer", id.0))
        };
        for w in &batch.writes {
            self.queue
                .write_buffer(buffer(w.buffer)?, w.offset, &w.bytes);
        }
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for command in &batch.commands {
            match command {
                Step::Clear { buffer: id } => encoder.clear_buffer(buffer(*id)?, 0, None),
                Step::Copy {
                    from,
                    from_offset,
                    to,
                    to_offset,
                    size,
                } => encoder.copy_buffer_to_buffer(
                    buffer(*from)?,
                    *from_offset,
                    buffer(*to)?,
                    *to_offset,
                    *size,
                ),
                Step::Pass { steps } => {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    for step in steps {
                        match step {
                            PassOp::Pipeline { pipeline } => pass.set_pipeline(
                                objects
                                    .pipelines
                                    .get(&pipeline.0)
                                    .ok_or_else(|| unknown("pipeline", pipeline.0))?,
                            ),
                            PassOp::BindGroup {
                                index,
                                group,
                                offsets,
                            } => pass.set_bind_group(
                                *index,
                                objects
                                    .groups
                                    .get(&group.0)
                                    .ok_or_else(|| unknown("bind group", group.0))?,
                                offsets,
                            ),
                            PassOp::Dispatch {
                                workgroups: [x, y, z],
                            } => pass.dispatch_workgroups(*x, *y, *z),
                        }
                    }
                }
            }
        }
        let reads = batch
            .reads
            .iter()
            .map(|r| Ok((buffer(r.buffer)?.clone(), r.bytes)))
            .collect::<Result<Vec<_>>>()?;
        Ok((encoder.finish(), reads))
    }
}

/// An id the device never made or already released: a bug above the boundary.
fn unknown(what: &str, id: u32) -> DeviceError {
    DeviceError::Refused {
        what: format!("{what} #{id}"),
        message: "the device holds no such object".to_string(),
    }
}

impl Device for WgpuDevice {
    fn features(&self) -> wgpu::Features {
        self.features
    }

    fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    fn is_hung(&self) -> bool {
        self.hung.load(Ordering::SeqCst)
    }

    fn create_buffer(&self, desc: &BufferDesc, contents: Option<&[u8]>) -> Result<BufferId> {
        let what = || format!("buffer {} of {} bytes", desc.label, desc.size);
        // A scope of its own, so that the reason it could not be made (out of memory) is the
        // error, not the failed mapping that follows.
        let made = scope(&self.device);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&desc.label),
            size: desc.size,
            usage: wgpu::BufferUsages::from_bits_truncate(desc.usage.0),
            mapped_at_creation: contents.is_some(),
        });
        end_scope(made, what)?;
        if let Some(contents) = contents {
            {
                let mut mapped =
                    buffer
                        .get_mapped_range_mut(..)
                        .map_err(|e| DeviceError::Refused {
                            what: what(),
                            message: e.to_string().lines().next().unwrap_or_default().to_string(),
                        })?;
                mapped.slice(..contents.len()).copy_from_slice(contents);
            }
            buffer.unmap();
        }
        let id = self.id();
        self.objects().buffers.insert(id, buffer);
        Ok(BufferId(id))
    }

    fn create_layout(&self, desc: &LayoutDesc) -> Result<LayoutId> {
        let made = scope(&self.device);
        let groups: Vec<wgpu::BindGroupLayout> = desc
            .groups
            .iter()
            .map(|entries| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = entries
                    .iter()
                    .map(|e| wgpu::BindGroupLayoutEntry {
                        binding: e.binding,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: match e.ty {
                                BindingType::Uniform => wgpu::BufferBindingType::Uniform,
                                BindingType::Storage { read_only } => {
                                    wgpu::BufferBindingType::Storage { read_only }
                                }
                            },
                            has_dynamic_offset: e.dynamic,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                self.device
                    .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: None,
                        entries: &entries,
                    })
            })
            .collect();
        let refs: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().map(Some).collect();
        let layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("wgstress"),
                bind_group_layouts: &refs,
                immediate_size: 0,
            });
        end_scope(made, || "pipeline layout".to_string())?;
        let id = self.id();
        self.objects().layouts.insert(id, (layout, groups));
        Ok(LayoutId(id))
    }

    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId> {
        let layout = self
            .objects()
            .layouts
            .get(&desc.layout.0)
            .map(|(layout, _)| layout.clone())
            .ok_or_else(|| unknown("layout", desc.layout.0))?;
        let constants: Vec<(&str, f64)> = desc
            .constants
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        let made = scope(&self.device);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&desc.label),
                source: wgpu::ShaderSource::Wgsl(desc.wgsl.as_str().into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&desc.entry),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(&desc.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            });
        end_scope(made, || {
            format!("{} (entry point `{}`)", desc.label, desc.entry)
        })?;
        let id = self.id();
        self.objects().pipelines.insert(id, pipeline);
        Ok(PipelineId(id))
    }

    fn create_bind_group(&self, desc: &BindGroupDesc) -> Result<BindGroupId> {
        let made = scope(&self.device);
        let group = {
            let objects = self.objects();
            let layout = objects
                .layouts
                .get(&desc.layout.0)
                .and_then(|(_, groups)| groups.get(desc.group as usize))
                .ok_or_else(|| unknown("layout", desc.layout.0))?;
            let entries = desc
                .entries
                .iter()
                .map(|e| {
                    Ok(wgpu::BindGroupEntry {
                        binding: e.binding,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: objects
                                .buffers
                                .get(&e.buffer.0)
                                .ok_or_else(|| unknown("buffer", e.buffer.0))?,
                            offset: e.offset,
                            size: e.size.and_then(wgpu::BufferSize::new),
                        }),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            })
        };
        end_scope(made, || format!("bind group {}", desc.group))?;
        let id = self.id();
        self.objects().groups.insert(id, group);
        Ok(BindGroupId(id))
    }

    fn write(&self, write: Write) -> Result<()> {
        let buffer = self.buffer(write.buffer)?;
        self.queue.write_buffer(&buffer, write.offset, &write.bytes);
        Ok(())
    }

    /// One rule for every submission: past `timeout` it is a hang; any other failure to
    /// finish is a lost device.
    fn submit(&self, batch: &Submission, timeout: Duration) -> Result<Vec<Vec<u32>>> {
        // The scope stays open through the wait: what the encoder refuses surfaces when the
        // submission is validated, and would otherwise reach the uncaptured handler.
        let checked = scope(&self.device);
        let (commands, reads) = self.encode(batch)?;
        let index = self.queue.submit([commands]);
        for (buffer, bytes) in &reads {
            buffer
                .slice(..*bytes)
                .map_async(wgpu::MapMode::Read, |_| {});
        }
        self.wait(index, timeout)?;
        end_scope(checked, || "work of the batch".to_string())?;
        let uncaptured = self.uncaptured.lock().ok().and_then(|mut e| e.take());
        if let Some(message) = uncaptured {
            return Err(DeviceError::Refused {
                what: "work of the batch".to_string(),
                message,
            });
        }
        let mut words = Vec::with_capacity(reads.len());
        for (buffer, bytes) in &reads {
            let mapped = buffer
                .slice(..*bytes)
                .get_mapped_range()
                .map_err(|e| DeviceError::Lost(format!("reading results back: {e}")))?;
            words.push(bytemuck::cast_slice(&mapped).to_vec());
        }
        for (buffer, _) in &reads {
            buffer.unmap();
        }
        Ok(words)
    }

    fn release(&self, resource: Resource) {
        let mut objects = self.objects();
        match resource {
            Resource::Buffer(id) => drop(objects.buffers.remove(&id.0)),
            Resource::Layout(id) => drop(objects.layouts.remove(&id.0)),
            Resource::Pipeline(id) => drop(objects.pipelines.remove(&id.0)),
            Resource::BindGroup(id) => drop(objects.groups.remove(&id.0)),
        }
    }
}

/// A device whose work may never end is not destroyed: wgpu waits for the queue to go idle
/// when the last handle to it drops, forever for a raw kernel that deadlocked (no watchdog
/// ends its loops). Its handles are leaked instead, for the process's exit to reclaim.
impl Drop for WgpuDevice {
    fn drop(&mut self) {
        if self.is_hung() {
            std::mem::forget(self.queue.clone());
            std::mem::forget(self.device.clone());
        }
    }
}

/// Error scopes of every kind wgpu reports, pushed together (`scope`): validation, out of
/// memory and internal errors, each caught where it happens and none left to wgpu's default
/// handler, which panics.
struct Scope {
    /// In the order pushed; popped the other way round, also when the scope is dropped
    /// unended (an error returned inside it), as wgpu requires.
    guards: Vec<wgpu::ErrorScopeGuard>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        while let Some(guard) = self.guards.pop() {
            drop(guard);
        }
    }
}

/// Opens a `Scope` on `device`.
fn scope(device: &wgpu::Device) -> Scope {
    Scope {
        guards: vec![
            device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
            device.push_error_scope(wgpu::ErrorFilter::Internal),
            device.push_error_scope(wgpu::ErrorFilter::Validation),
        ],
    }
}

/// Ends a `Scope`: what wgpu rejected or could not do in it (too little memory included)
/// comes back as `DeviceError::Refused` about `what`, with wgpu's reason on one line, instead
/// of a panic in wgpu's default handler.
fn end_scope(mut scope: Scope, what: impl FnOnce() -> String) -> Result<()> {
    let mut first = None;
    while let Some(guard) = scope.guards.pop() {
        let caught = pollster::block_on(guard.pop());
        first = first.or(caught);
    }
    match first {
        Some(error) => Err(DeviceError::Refused {
            what: what(),
            message: reason(&error),
        }),
        None => Ok(()),
    }
}

/// wgpu's reason for `error` on one line: its chain of causes (wgpu's own description says
/// "Validation Error" on its first line and the causes below), each cause's first line but
/// the call it was in ("In Device::create_compute_pipeline, label = ..."), and the
/// `line:column` of a shader diagnostic where it has one.
pub(crate) fn reason(error: &wgpu::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cause = std::error::Error::source(error);
    while let Some(e) = cause {
        let text = e.to_string();
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if let Some(first) = lines.next() {
            // A shader diagnostic goes on with `┌─ wgsl:LINE:COLUMN` under its message.
            let at = lines.find_map(|l| l.strip_prefix("┌─ ")).and_then(|place| {
                let mut pieces = place.rsplitn(3, ':');
                let column = pieces.next()?;
                let line = pieces.next()?;
                Some(format!(" (at {line}:{column})"))
            });
            let part = format!("{first}{}", at.unwrap_or_default());
            if !first.starts_with("In ") && !parts.iter().any(|p| p.contains(first)) {
                parts.push(part);
            }
        }
        cause = e.source();
    }
    if parts.is_empty() {
        return error
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
    }
    parts.join(": ")
}
