//! What the recorder (tools/record/recorder.mjs) writes: the program's buffers, shaders,
//! pipelines and bind groups, and the queue's timeline of what it did with them.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recording {
    pub version: u32,
    #[serde(default)]
    pub adapter: Option<Adapter>,
    pub buffers: Vec<Buffer>,
    pub shaders: Vec<ShaderModule>,
    pub pipelines: Vec<Pipeline>,
    pub bind_groups: Vec<BindGroup>,
    pub timeline: Vec<Event>,
    /// Calls the recorder saw and a spec cannot hold (textures, render passes...).
    #[serde(default)]
    pub unsupported: Vec<Unsupported>,
    /// Indirect dispatches whose counts were still being read back when the program ended.
    #[serde(default)]
    pub unresolved: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Adapter {
    #[serde(default)]
    pub vendor: Option<String>,
    #[serde(default)]
    pub architecture: Option<String>,
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

impl Adapter {
    /// What `GPUAdapterInfo` said, its non-empty fields in its order (vendor, architecture,
    /// device, description); `None` when it said nothing (Chromium may leave them blank).
    pub fn describe(&self) -> Option<String> {
        let mut parts: Vec<&str> = Vec::new();
        for part in [
            &self.vendor,
            &self.architecture,
            &self.device,
            &self.description,
        ]
        .into_iter()
        .flatten()
        {
            let part = part.trim();
            if !part.is_empty() && !parts.contains(&part) {
                parts.push(part);
            }
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Buffer {
    #[serde(default)]
    pub label: String,
    pub size: u64,
    pub usage: u32,
    #[serde(default)]
    pub at: String,
}

impl Buffer {
    pub const UNIFORM: u32 = 0x0040;
    pub const STORAGE: u32 = 0x0080;
}

#[derive(Clone, Debug, Deserialize)]
pub struct ShaderModule {
    #[serde(default)]
    pub label: String,
    pub code: String,
    /// The file the program read this text from, where the recorder saw it read.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub at: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pipeline {
    #[serde(default)]
    pub label: String,
    /// The shader module, by its place in `shaders`; `None`: one the recorder did not see.
    pub shader: Option<usize>,
    pub entry_point: Option<String>,
    #[serde(default)]
    pub constants: BTreeMap<String, f64>,
    #[serde(default)]
    pub at: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct BindGroup {
    #[serde(default)]
    pub label: String,
    pub entries: Vec<BindEntry>,
    #[serde(default)]
    pub at: String,
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub struct BindEntry {
    pub binding: u32,
    pub buffer: usize,
    pub offset: u64,
    /// `None`: to the buffer's end.
    pub size: Option<u64>,
}

/// One entry of the queue's timeline, in the order the GPU saw them.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Event {
    /// `writeBuffer`, or what the program put in a buffer mapped for writing (`mapped`).
    Write {
        buffer: usize,
        offset: u64,
        /// Base64.
        data: String,
        #[serde(default)]
        at: String,
    },
    Dispatch {
        pipeline: Option<usize>,
        groups: Vec<GroupAt>,
        /// The workgroup counts; for an indirect dispatch, those its buffer held.
        counts: Option<[u32; 3]>,
        indirect: Option<Indirect>,
        #[serde(default)]
        at: String,
        submit: u32,
    },
    #[serde(rename_all = "camelCase")]
    Copy {
        src: usize,
        src_offset: u64,
        dst: usize,
        dst_offset: u64,
        /// `None`: to the source's end.
        size: Option<u64>,
        #[serde(default)]
        at: String,
    },
    Clear {
        buffer: usize,
        offset: u64,
        size: Option<u64>,
        #[serde(default)]
        at: String,
    },
    Submit {
        submit: u32,
    },
    /// What the program read from a buffer mapped for reading, after `after` submits.
    Read {
        buffer: usize,
        offset: u64,
        /// Base64.
        data: String,
        after: u32,
        #[serde(default)]
        at: String,
    },
}

#[derive(Clone, Debug, Deserialize)]
pub struct GroupAt {
    pub index: u32,
    pub group: Option<usize>,
    #[serde(default)]
    pub offsets: Vec<u32>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Indirect {
    pub buffer: Option<usize>,
    pub offset: u64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Unsupported {
    pub call: String,
    #[serde(default)]
    pub at: String,
}
