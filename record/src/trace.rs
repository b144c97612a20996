//! A wgpu API trace (a Rust program's `Trace::Directory`: trace.ron and the data files beside
//! it) read as a recording. A trace holds what the program asked of wgpu, not what it read
//! back: each buffer it could map for reading that a copy filled is given a read at the end,
//! whose words `wgstress import` takes from an unstressed replay.
//!
//! trace.ron is read by the `ron` crate into the types of format.rs, within bounds: its own
//! size, its depth, every data file's size (a regular file, at most what the buffer it fills
//! holds), and every buffer's size, checked before anything is allocated for it.

mod format;

use crate::error::RecordError;
use crate::recording::{
    BindEntry, BindGroup, Buffer, Event, GroupAt, Indirect, Pipeline, Recording, ShaderModule,
    Unsupported,
};
use format::{Action, Command, ComputeCommand, Data, PointerId, Resource};
use std::collections::BTreeMap;
use std::path::Path;

/// The trace formats `import` reads: wgpu's own name for each, as errors give it.
pub const TRACE_FORMATS: &str = "the trace.ron of wgpu 30 (object ids written `PointerId(N)`)";

/// The most trace.ron may hold: data over a few kilobytes goes to files beside it.
pub(crate) const TRACE_BYTES: u64 = 256 << 20;

/// The most one buffer of a trace may hold, and all its buffers together: a spec's bindings
/// are held in memory whole, several times over while it is made and replayed.
pub(crate) const BUFFER_BYTES: u64 = 1 << 30;
pub(crate) const ALL_BUFFER_BYTES: u64 = 4 << 30;

/// How deep trace.ron may nest: wgpu writes about ten levels; the bound keeps a hostile
/// trace from overflowing the stack.
const DEPTH: usize = 64;

/// wgpu's buffer usage flags by name, as the trace writes them ("COPY_SRC | STORAGE").
fn usage(text: &str) -> u32 {
    text.split('|')
        .map(str::trim)
        .map(|flag| match flag {
            "MAP_READ" => 0x0001,
            "MAP_WRITE" => 0x0002,
            "COPY_SRC" => 0x0004,
            "COPY_DST" => 0x0008,
            "INDEX" => 0x0010,
            "VERTEX" => 0x0020,
            "UNIFORM" => 0x0040,
            "STORAGE" => 0x0080,
            "INDIRECT" => 0x0100,
            "QUERY_RESOLVE" => 0x0200,
            _ => 0,
        })
        .fold(0, |a, b| a | b)
}

const MAP_READ: u32 = 0x0001;

fn malformed(what: impl Into<String>) -> RecordError {
    RecordError::Malformed(what.into())
}

/// Reads the trace in `dir`.
pub fn read_trace(dir: &Path) -> Result<Recording, RecordError> {
    let path = dir.join("trace.ron");
    let text = wgstress_model::read::text(&path, TRACE_BYTES, "a trace.ron may hold")
        .map_err(|e| malformed(e.to_string()))?;
    if !text.contains("PointerId(") && text.contains("Create") {
        return Err(malformed(format!(
            "{}: a trace of an older wgpu (its object ids are numbers, not `PointerId(N)`); \
             import reads {TRACE_FORMATS}",
            path.display()
        )));
    }
    // A program that ended without closing its trace leaves the list open.
    let closed = if text.trim_end().ends_with(']') {
        text
    } else {
        format!("{text}\n]")
    };
    let options = ron::Options::default()
        .with_recursion_limit(DEPTH)
        .with_default_extension(
            ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES
                | ron::extensions::Extensions::IMPLICIT_SOME,
        );
    let actions: Vec<Action> = options.from_str(&closed).map_err(|e| {
        malformed(format!(
            "{}:{}:{}: {} (import reads {TRACE_FORMATS})",
            path.display(),
            e.span.start.line,
            e.span.start.col,
            e.code
        ))
    })?;
    let mut t = Reader {
        dir,
        recording: Recording {
            version: 1,
            adapter: None,
            buffers: Vec::new(),
            shaders: Vec::new(),
            pipelines: Vec::new(),
            bind_groups: Vec::new(),
            timeline: Vec::new(),
            unsupported: Vec::new(),
            unresolved: 0,
        },
        buffers: BTreeMap::new(),
        shaders: BTreeMap::new(),
        pipelines: BTreeMap::new(),
        layouts: BTreeMap::new(),
        groups: BTreeMap::new(),
        copied_into: Vec::new(),
        buffer_bytes: 0,
    };
    for (index, action) in actions.into_iter().enumerate() {
        t.action(index, action)?;
    }
    // What the program could read back: each buffer it could map for reading that a copy
    // filled, read whole once everything ran.
    let mut read: Vec<usize> = t.copied_into.clone();
    read.sort_unstable();
    read.dedup();
    for buffer in read {
        // Within BUFFER_BYTES, checked when the buffer was made.
        let size = t.recording.buffers[buffer].size as usize;
        t.recording.timeline.push(Event::Read {
            buffer,
            offset: 0,
            data: crate::base64_data::encode_base64(&vec![0; size]),
            after: u32::MAX,
            at: String::new(),
        });
    }
    Ok(t.recording)
}

struct Reader<'a> {
    dir: &'a Path,
    recording: Recording,
    /// The trace's ids (addresses, reused after a drop) -> the live object's index.
    buffers: BTreeMap<PointerId, usize>,
    shaders: BTreeMap<PointerId, usize>,
    pipelines: BTreeMap<PointerId, usize>,
    /// Bind group layout -> (pipeline, group index) it came from.
    layouts: BTreeMap<PointerId, (usize, u32)>,
    groups: BTreeMap<PointerId, usize>,
    copied_into: Vec<usize>,
    /// The bytes of every buffer made so far, against ALL_BUFFER_BYTES.
    buffer_bytes: u64,
}

impl Reader<'_> {
    fn action(&mut self, index: usize, action: Action) -> Result<(), RecordError> {
        let at = format!("trace.ron action {index}");
        let bad = |what: &str| malformed(format!("{at}: {what}"));
        match action {
            Action::CreateBuffer(key, desc) => {
                let size = desc.size;
                self.buffer_bytes = self.buffer_bytes.saturating_add(size);
                if size > BUFFER_BYTES || self.buffer_bytes > ALL_BUFFER_BYTES {
                    return Err(crate::error::not_replayable(
                        &at,
                        format!(
                            "a buffer of {size} bytes ({} in all so far): a trace's buffers may \
                             hold {BUFFER_BYTES} bytes each and {ALL_BUFFER_BYTES} in all",
                            self.buffer_bytes
                        ),
                    ));
                }
                self.buffers.insert(key, self.recording.buffers.len());
                self.recording.buffers.push(Buffer {
                    label: desc.label.unwrap_or_default(),
                    size,
                    usage: usage(&desc.usage),
                    at,
                });
            }
            Action::WriteBuffer(write) => {
                let buffer = self.buffer(Some(write.id), &at)?;
                let room = self.recording.buffers[buffer]
                    .size
                    .saturating_sub(write.offset);
                let bytes = self.data(write.data, room, "the rest of the buffer it writes", &at)?;
                self.recording.timeline.push(Event::Write {
                    buffer,
                    offset: write.offset,
                    data: crate::base64_data::encode_base64(&bytes),
                    at,
                });
            }
            Action::CreateShaderModule(module) => {
                let bytes = self.data(
                    module.data,
                    wgstress_model::read::SOURCE_BYTES,
                    "a shader may hold",
                    &at,
                )?;
                self.shaders.insert(module.id, self.recording.shaders.len());
                self.recording.shaders.push(ShaderModule {
                    file: None,
                    label: module.desc.label.unwrap_or_default(),
                    code: String::from_utf8_lossy(&bytes).into_owned(),
                    at,
                });
            }
            Action::CreateComputePipeline(pipeline) => {
                let stage = pipeline.desc.stage;
                let shader = self.shaders.get(&stage.module).copied();
                self.pipelines
                    .insert(pipeline.id, self.recording.pipelines.len());
                self.recording.pipelines.push(Pipeline {
                    label: pipeline.desc.label.unwrap_or_default(),
                    shader,
                    entry_point: stage.entry_point,
                    constants: stage.constants,
                    at,
                });
            }
            Action::GetComputePipelineBindGroupLayout(layout) => {
                let pipeline = self
                    .pipelines
                    .get(&layout.pipeline)
                    .copied()
                    .ok_or_else(|| bad("a layout of a pipeline the trace did not create"))?;
                self.layouts.insert(layout.id, (pipeline, layout.index));
            }
            Action::CreateBindGroup(key, desc) => {
                let mut entries = Vec::new();
                for entry in desc.entries {
                    let binding = entry.binding;
                    let buffer = match entry.resource {
                        Resource::Buffer(buffer) => buffer,
                        Resource::Other(kind) => {
                            self.recording.unsupported.push(Unsupported {
                                call: format!("a bind group whose binding {binding} is a {kind}"),
                                at: at.clone(),
                            });
                            continue;
                        }
                    };
                    entries.push(BindEntry {
                        binding,
                        buffer: self.buffer(Some(buffer.buffer), &at)?,
                        offset: buffer.offset,
                        size: buffer.size,
                    });
                }
                self.groups.insert(key, self.recording.bind_groups.len());
                self.recording.bind_groups.push(BindGroup {
                    label: desc.label.unwrap_or_default(),
                    entries,
                    at,
                });
            }
            Action::Submit(submit, commands) => {
                for command in commands {
                    self.command(command, submit, &at)?;
                }
                self.recording.timeline.push(Event::Submit { submit });
            }
            Action::Unsupported(call) => self.recording.unsupported.push(Unsupported { call, at }),
            Action::Other => {}
        }
        Ok(())
    }

    fn command(&mut self, command: Command, submit: u32, at: &str) -> Result<(), RecordError> {
        match command {
            Command::RunComputePass(run) => {
                let pass = run.pass.or(run.base).ok_or_else(|| {
                    malformed(format!("{at}: a compute pass without its commands"))
                })?;
                let mut used = 0usize;
                let mut pipeline = None;
                let mut groups: BTreeMap<u32, GroupAt> = BTreeMap::new();
                for c in pass.commands {
                    match c {
                        ComputeCommand::SetPipeline(p) => {
                            pipeline = self.pipelines.get(&p).copied();
                        }
                        ComputeCommand::SetBindGroup(set) => {
                            let n = set.num_dynamic_offsets;
                            let these = used
                                .checked_add(n)
                                .and_then(|end| pass.dynamic_offsets.get(used..end))
                                .unwrap_or_default()
                                .to_vec();
                            used = used.saturating_add(n);
                            match set.bind_group.and_then(|g| self.groups.get(&g).copied()) {
                                Some(g) => {
                                    groups.insert(
                                        set.index,
                                        GroupAt {
                                            index: set.index,
                                            group: Some(g),
                                            offsets: these,
                                        },
                                    );
                                }
                                None => {
                                    groups.remove(&set.index);
                                }
                            }
                        }
                        ComputeCommand::Dispatch(counts) => {
                            self.recording.timeline.push(Event::Dispatch {
                                pipeline,
                                groups: groups.values().cloned().collect(),
                                counts: Some(counts),
                                indirect: None,
                                at: at.to_string(),
                                submit,
                            });
                        }
                        ComputeCommand::DispatchIndirect(indirect) => {
                            // The trace does not hold the counts the GPU read: refused later.
                            self.recording.timeline.push(Event::Dispatch {
                                pipeline,
                                groups: groups.values().cloned().collect(),
                                counts: None,
                                indirect: Some(Indirect {
                                    buffer: self.buffers.get(&indirect.buffer).copied(),
                                    offset: indirect.offset,
                                }),
                                at: at.to_string(),
                                submit,
                            });
                        }
                        ComputeCommand::Other => {}
                    }
                }
            }
            Command::CopyBufferToBuffer(copy) => {
                let src = self.buffer(Some(copy.src), at)?;
                let dst = self.buffer(Some(copy.dst), at)?;
                if self.recording.buffers[dst].usage & MAP_READ != 0 {
                    self.copied_into.push(dst);
                }
                self.recording.timeline.push(Event::Copy {
                    src,
                    src_offset: copy.src_offset,
                    dst,
                    dst_offset: copy.dst_offset,
                    size: copy.size,
                    at: at.to_string(),
                });
            }
            Command::ClearBuffer(clear) => {
                let buffer = self.buffer(Some(clear.dst), at)?;
                self.recording.timeline.push(Event::Clear {
                    buffer,
                    offset: clear.offset,
                    size: clear.size,
                    at: at.to_string(),
                });
            }
            Command::Unsupported(call) => self.recording.unsupported.push(Unsupported {
                call,
                at: at.to_string(),
            }),
            Command::Other => {}
        }
        Ok(())
    }

    fn buffer(&self, key: Option<PointerId>, at: &str) -> Result<usize, RecordError> {
        key.and_then(|k| self.buffers.get(&k).copied())
            .ok_or_else(|| malformed(format!("{at}: a buffer the trace did not create")))
    }

    /// The bytes of a `Data` value, at most `limit` (`holds` says what bounds it): a regular
    /// file beside trace.ron, read within the bound, or inline.
    fn data(&self, data: Data, limit: u64, holds: &str, at: &str) -> Result<Vec<u8>, RecordError> {
        let bytes = match data {
            Data::File(name) => {
                if name.is_empty() || name.contains('/') || name.contains("..") {
                    return Err(malformed(format!(
                        "{at}: data file `{}` outside the trace",
                        name.escape_debug()
                    )));
                }
                let path = self.dir.join(&name);
                return wgstress_model::read::bytes(&path, limit, holds)
                    .map_err(|e| malformed(format!("{at}: {e}")));
            }
            Data::String(_, text) => text.into_bytes(),
            Data::Binary(_, bytes) => bytes,
        };
        if bytes.len() as u64 > limit {
            return Err(malformed(format!(
                "{at}: {} bytes of data, more than {holds} ({limit} bytes)",
                bytes.len()
            )));
        }
        Ok(bytes)
    }
}
