//! A wgpu API trace (a Rust program's `Trace::Directory`: trace.ron and the data files beside
//! it) read as a recording. A trace holds what the program asked of wgpu, not what it read
//! back: each buffer it could map for reading that a copy filled is given a read at the end,
//! whose words `wgstress import` takes from an unstressed replay.

use crate::error::RecordError;
use crate::recording::{
    BindEntry, BindGroup, Buffer, Event, GroupAt, Indirect, Pipeline, Recording, ShaderModule,
    Unsupported,
};
use crate::ron::{parse, Ron};
use std::collections::BTreeMap;
use std::path::Path;

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
    let text = std::fs::read_to_string(&path)
        .map_err(|e| malformed(format!("{}: {e}", path.display())))?;
    // A program that ended without closing its trace leaves the list open.
    let closed = if text.trim_end().ends_with(']') {
        text
    } else {
        format!("{text}\n]")
    };
    let actions = parse(&closed).map_err(|e| {
        let line = closed[..e.at.min(closed.len())].lines().count().max(1);
        malformed(format!("{}:{line}: {}", path.display(), e.what))
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
    };
    for (index, action) in actions.items().iter().enumerate() {
        t.action(index, action)?;
    }
    // What the program could read back: each buffer it could map for reading that a copy
    // filled, read whole once everything ran.
    let mut read: Vec<usize> = t.copied_into.clone();
    read.sort_unstable();
    read.dedup();
    for buffer in read {
        let size = t.recording.buffers[buffer].size as usize;
        t.recording.timeline.push(Event::Read {
            buffer,
            offset: 0,
            data: crate::base64::encode(&vec![0; size]),
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
    buffers: BTreeMap<u64, usize>,
    shaders: BTreeMap<u64, usize>,
    pipelines: BTreeMap<u64, usize>,
    /// Bind group layout -> (pipeline, group index) it came from.
    layouts: BTreeMap<u64, (usize, u32)>,
    groups: BTreeMap<u64, usize>,
    copied_into: Vec<usize>,
}

fn id(value: Option<&Ron>) -> Option<u64> {
    value?.some()?.u64()
}

impl Reader<'_> {
    fn at(index: usize) -> String {
        format!("trace.ron action {index}")
    }

    fn action(&mut self, index: usize, action: &Ron) -> Result<(), RecordError> {
        let at = Self::at(index);
        let bad = |what: &str| malformed(format!("{at}: {what}"));
        match action.name().unwrap_or_default() {
            "CreateBuffer" => {
                let key = id(action.item(0)).ok_or_else(|| bad("a buffer without its id"))?;
                let desc = action
                    .item(1)
                    .ok_or_else(|| bad("a buffer without its descriptor"))?;
                let label = desc
                    .field("label")
                    .and_then(Ron::some)
                    .and_then(Ron::str)
                    .unwrap_or_default()
                    .to_string();
                let size = desc
                    .field("size")
                    .and_then(Ron::u64)
                    .ok_or_else(|| bad("a buffer without its size"))?;
                let usage = desc.field("usage").and_then(Ron::str).map_or(0, usage);
                self.buffers.insert(key, self.recording.buffers.len());
                self.recording.buffers.push(Buffer {
                    label,
                    size,
                    usage,
                    at: at.clone(),
                });
            }
            "WriteBuffer" => {
                let buffer = self.buffer(id(action.field("id")), &at)?;
                let offset = action.field("offset").and_then(Ron::u64).unwrap_or(0);
                let bytes = self.data(action.field("data"), &at)?;
                self.recording.timeline.push(Event::Write {
                    buffer,
                    offset,
                    data: crate::base64::encode(&bytes),
                    at,
                });
            }
            "CreateShaderModule" => {
                let key = id(action.field("id")).ok_or_else(|| bad("a shader without its id"))?;
                let bytes = self.data(action.field("data"), &at)?;
                let label = action
                    .field("desc")
                    .and_then(|d| d.field("label"))
                    .and_then(Ron::some)
                    .and_then(Ron::str)
                    .unwrap_or_default()
                    .to_string();
                self.shaders.insert(key, self.recording.shaders.len());
                self.recording.shaders.push(ShaderModule {
                    file: None,
                    label,
                    code: String::from_utf8_lossy(&bytes).into_owned(),
                    at,
                });
            }
            "CreateComputePipeline" => {
                let key = id(action.field("id")).ok_or_else(|| bad("a pipeline without its id"))?;
                let desc = action
                    .field("desc")
                    .ok_or_else(|| bad("a pipeline without its descriptor"))?;
                let stage = desc
                    .field("stage")
                    .ok_or_else(|| bad("a pipeline without its stage"))?;
                let shader = id(stage.field("module")).and_then(|m| self.shaders.get(&m).copied());
                let mut constants = BTreeMap::new();
                if let Some(Ron::Map(entries)) = stage.field("constants") {
                    for (k, v) in entries {
                        if let (Some(k), Some(v)) = (k.str(), v.f64()) {
                            constants.insert(k.to_string(), v);
                        }
                    }
                }
                self.pipelines.insert(key, self.recording.pipelines.len());
                self.recording.pipelines.push(Pipeline {
                    label: desc
                        .field("label")
                        .and_then(Ron::some)
                        .and_then(Ron::str)
                        .unwrap_or_default()
                        .to_string(),
                    shader,
                    entry_point: stage
                        .field("entry_point")
                        .and_then(Ron::some)
                        .and_then(Ron::str)
                        .map(str::to_string),
                    constants,
                    at,
                });
            }
            "GetComputePipelineBindGroupLayout" => {
                let key = id(action.field("id")).ok_or_else(|| bad("a layout without its id"))?;
                let pipeline = id(action.field("pipeline"))
                    .and_then(|p| self.pipelines.get(&p).copied())
                    .ok_or_else(|| bad("a layout of a pipeline the trace did not create"))?;
                let group = action.field("index").and_then(Ron::u64).unwrap_or(0) as u32;
                self.layouts.insert(key, (pipeline, group));
            }
            "CreateBindGroup" => {
                let key = id(action.item(0)).ok_or_else(|| bad("a bind group without its id"))?;
                let desc = action
                    .item(1)
                    .ok_or_else(|| bad("a bind group without its descriptor"))?;
                let mut entries = Vec::new();
                for entry in desc.field("entries").map(Ron::items).unwrap_or_default() {
                    let binding = entry.field("binding").and_then(Ron::u64).unwrap_or(0) as u32;
                    let resource = entry.field("resource");
                    let Some(buffer) = resource
                        .filter(|r| r.name() == Some("Buffer"))
                        .and_then(|r| r.item(0))
                    else {
                        self.recording.unsupported.push(Unsupported {
                            call: format!(
                                "a bind group whose binding {binding} is a {}",
                                resource.and_then(Ron::name).unwrap_or("resource")
                            ),
                            at: at.clone(),
                        });
                        continue;
                    };
                    entries.push(BindEntry {
                        binding,
                        buffer: self.buffer(id(buffer.field("buffer")), &at)?,
                        offset: buffer.field("offset").and_then(Ron::u64).unwrap_or(0),
                        size: buffer.field("size").and_then(Ron::some).and_then(Ron::u64),
                    });
                }
                self.groups.insert(key, self.recording.bind_groups.len());
                self.recording.bind_groups.push(BindGroup {
                    label: desc
                        .field("label")
                        .and_then(Ron::some)
                        .and_then(Ron::str)
                        .unwrap_or_default()
                        .to_string(),
                    entries,
                    at,
                });
            }
            "Submit" => {
                let submit = action.item(0).and_then(Ron::u64).unwrap_or(0) as u32;
                let commands = action.item(1).map(Ron::items).unwrap_or_default();
                for command in commands {
                    self.command(command, submit, &at)?;
                }
                self.recording.timeline.push(Event::Submit { submit });
            }
            name @ ("CreateTexture"
            | "CreateSampler"
            | "CreateGeneralRenderPipeline"
            | "CreateRenderBundle"
            | "WriteTexture"
            | "ConfigureSurface"
            | "CreateBlas"
            | "CreateTlas") => self.recording.unsupported.push(Unsupported {
                call: name.to_string(),
                at,
            }),
            _ => {}
        }
        Ok(())
    }

    fn command(&mut self, command: &Ron, submit: u32, at: &str) -> Result<(), RecordError> {
        match command.name().unwrap_or_default() {
            "RunComputePass" => {
                let pass = command
                    .field("pass")
                    .or_else(|| command.field("base"))
                    .ok_or_else(|| {
                        malformed(format!("{at}: a compute pass without its commands"))
                    })?;
                let offsets: Vec<u32> = pass
                    .field("dynamic_offsets")
                    .map(Ron::items)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|o| o.u64().map(|o| o as u32))
                    .collect();
                let mut used = 0;
                let mut pipeline = None;
                let mut groups: BTreeMap<u32, GroupAt> = BTreeMap::new();
                for c in pass.field("commands").map(Ron::items).unwrap_or_default() {
                    match c.name().unwrap_or_default() {
                        "SetPipeline" => {
                            pipeline = id(c.item(0)).and_then(|p| self.pipelines.get(&p).copied())
                        }
                        "SetBindGroup" => {
                            let index = c.field("index").and_then(Ron::u64).unwrap_or(0) as u32;
                            let n = c
                                .field("num_dynamic_offsets")
                                .and_then(Ron::u64)
                                .unwrap_or(0) as usize;
                            let group = id(c.field("bind_group"))
                                .and_then(|g| self.groups.get(&g).copied());
                            let these = offsets.get(used..used + n).unwrap_or_default().to_vec();
                            used += n;
                            match group {
                                Some(g) => {
                                    groups.insert(
                                        index,
                                        GroupAt {
                                            index,
                                            group: Some(g),
                                            offsets: these,
                                        },
                                    );
                                }
                                None => {
                                    groups.remove(&index);
                                }
                            }
                        }
                        "DispatchWorkgroups" | "Dispatch" => {
                            let xyz = c.item(0).map(Ron::items).unwrap_or_default();
                            let n = |i: usize| xyz.get(i).and_then(Ron::u64).unwrap_or(1) as u32;
                            self.recording.timeline.push(Event::Dispatch {
                                pipeline,
                                groups: groups.values().cloned().collect(),
                                counts: Some([n(0), n(1), n(2)]),
                                indirect: None,
                                at: at.to_string(),
                                submit,
                            });
                        }
                        "DispatchWorkgroupsIndirect" | "DispatchIndirect" => {
                            // The trace does not hold the counts the GPU read: refused below.
                            self.recording.timeline.push(Event::Dispatch {
                                pipeline,
                                groups: groups.values().cloned().collect(),
                                counts: None,
                                indirect: Some(Indirect {
                                    buffer: id(c.field("buffer"))
                                        .and_then(|b| self.buffers.get(&b).copied()),
                                    offset: c.field("offset").and_then(Ron::u64).unwrap_or(0),
                                }),
                                at: at.to_string(),
                                submit,
                            });
                        }
                        _ => {}
                    }
                }
            }
            "CopyBufferToBuffer" => {
                let src = self.buffer(id(command.field("src")), at)?;
                let dst = self.buffer(id(command.field("dst")), at)?;
                if self.recording.buffers[dst].usage & MAP_READ != 0 {
                    self.copied_into.push(dst);
                }
                self.recording.timeline.push(Event::Copy {
                    src,
                    src_offset: command.field("src_offset").and_then(Ron::u64).unwrap_or(0),
                    dst,
                    dst_offset: command.field("dst_offset").and_then(Ron::u64).unwrap_or(0),
                    size: command.field("size").and_then(Ron::some).and_then(Ron::u64),
                    at: at.to_string(),
                });
            }
            "ClearBuffer" => {
                let buffer = self.buffer(id(command.field("dst")), at)?;
                self.recording.timeline.push(Event::Clear {
                    buffer,
                    offset: command.field("offset").and_then(Ron::u64).unwrap_or(0),
                    size: command.field("size").and_then(Ron::some).and_then(Ron::u64),
                    at: at.to_string(),
                });
            }
            name @ ("RunRenderPass"
            | "CopyBufferToTexture"
            | "CopyTextureToBuffer"
            | "CopyTextureToTexture"
            | "ClearTexture"
            | "WriteTimestamp"
            | "ResolveQuerySet") => self.recording.unsupported.push(Unsupported {
                call: name.to_string(),
                at: at.to_string(),
            }),
            _ => {}
        }
        Ok(())
    }

    fn buffer(&self, key: Option<u64>, at: &str) -> Result<usize, RecordError> {
        key.and_then(|k| self.buffers.get(&k).copied())
            .ok_or_else(|| malformed(format!("{at}: a buffer the trace did not create")))
    }

    /// The bytes of a `Data` value: a file beside trace.ron, or inline.
    fn data(&self, data: Option<&Ron>, at: &str) -> Result<Vec<u8>, RecordError> {
        let data = data.ok_or_else(|| malformed(format!("{at}: no data")))?;
        match data.name() {
            Some("File") => {
                let name = data.item(0).and_then(Ron::str).unwrap_or_default();
                if name.contains('/') || name.contains("..") {
                    return Err(malformed(format!(
                        "{at}: data file `{name}` outside the trace"
                    )));
                }
                std::fs::read(self.dir.join(name))
                    .map_err(|e| malformed(format!("{at}: {}: {e}", self.dir.join(name).display())))
            }
            Some("String") => Ok(data
                .item(1)
                .and_then(Ron::str)
                .unwrap_or_default()
                .as_bytes()
                .to_vec()),
            Some("Binary") => Ok(data
                .item(1)
                .map(Ron::items)
                .unwrap_or_default()
                .iter()
                .filter_map(|b| b.u64().map(|b| b as u8))
                .collect()),
            _ => Err(malformed(format!("{at}: data of an unknown kind"))),
        }
    }
}
