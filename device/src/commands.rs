//! What crosses the device boundary: the descriptions of buffers, layouts, pipelines and bind
//! groups a device makes, the ids it answers with, and a batch (writes, then commands, then
//! read-backs) it runs as one submission. All of it is plain data that serializes, so that a
//! device in another process (a browser page) runs exactly what wgpu runs here.

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);
    };
}

id!(
    /// A buffer the device made.
    BufferId
);
id!(
    /// A pipeline layout (with its bind group layouts) the device made.
    LayoutId
);
id!(
    /// A compute pipeline the device made.
    PipelineId
);
id!(
    /// A bind group the device made, for one group of one layout.
    BindGroupId
);

/// Something a device holds until it is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "kebab-case")]
pub enum Resource {
    Buffer(BufferId),
    Layout(LayoutId),
    Pipeline(PipelineId),
    BindGroup(BindGroupId),
}

/// How a buffer is used, as WebGPU's `GPUBufferUsage` bits (which wgpu's `BufferUsages`
/// shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Usage(pub u32);

impl Usage {
    pub const MAP_READ: Usage = Usage(0x0001);
    pub const COPY_SRC: Usage = Usage(0x0004);
    pub const COPY_DST: Usage = Usage(0x0008);
    pub const UNIFORM: Usage = Usage(0x0040);
    pub const STORAGE: Usage = Usage(0x0080);

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Usage) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Usage {
    type Output = Usage;
    fn bitor(self, other: Usage) -> Usage {
        Usage(self.0 | other.0)
    }
}

/// A buffer to make: `size` bytes (a multiple of four), holding `contents` (padded with
/// zeros) where given, else zeros.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BufferDesc {
    pub label: String,
    pub size: u64,
    pub usage: Usage,
}

/// How a binding of a bind group layout is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingType {
    Uniform,
    Storage { read_only: bool },
}

/// One binding of a bind group layout, seen by compute shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutEntry {
    pub binding: u32,
    pub ty: BindingType,
    /// Bound at an offset given when the group is set (`PassOp::BindGroup`).
    pub dynamic: bool,
}

/// A pipeline layout: the entries of each bind group, from group 0 (an empty list for a
/// group nothing binds).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LayoutDesc {
    pub groups: Vec<Vec<LayoutEntry>>,
}

/// A compute pipeline: `entry` of the WGSL `wgsl`, with values for its overrides. `label`
/// says which shader it is in errors (as given, or instrumented).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PipelineDesc {
    pub label: String,
    pub layout: LayoutId,
    pub wgsl: String,
    pub entry: String,
    pub constants: Vec<(String, f64)>,
}

/// One buffer range bound in a bind group; `size: None` binds to the buffer's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupEntry {
    pub binding: u32,
    pub buffer: BufferId,
    pub offset: u64,
    pub size: Option<u64>,
}

/// A bind group of `layout`'s group `group`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BindGroupDesc {
    pub layout: LayoutId,
    pub group: u32,
    pub entries: Vec<GroupEntry>,
}

/// Bytes written into a buffer before a batch's commands run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Write {
    pub buffer: BufferId,
    pub offset: u64,
    #[serde(with = "base64_bytes")]
    pub bytes: Vec<u8>,
}

/// A command of a batch, in the order it runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Step {
    /// Zeros the whole buffer.
    Clear { buffer: BufferId },
    Copy {
        from: BufferId,
        from_offset: u64,
        to: BufferId,
        to_offset: u64,
        size: u64,
    },
    /// A compute pass.
    Pass { steps: Vec<PassOp> },
}

/// A step of a compute pass.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum PassOp {
    Pipeline {
        pipeline: PipelineId,
    },
    BindGroup {
        index: u32,
        group: BindGroupId,
        offsets: Vec<u32>,
    },
    Dispatch {
        workgroups: [u32; 3],
    },
}

/// The first `bytes` of a buffer (made with `Usage::MAP_READ`), read back after the commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    pub buffer: BufferId,
    pub bytes: u64,
}

/// One submission: the writes, then the commands, then the reads, whose words come back in
/// their order.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Submission {
    pub writes: Vec<Write>,
    pub commands: Vec<Step>,
    pub reads: Vec<Read>,
}

/// Bytes as base64 text in JSON, as a browser's `atob` reads them.
mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_serializes_as_the_page_reads_it() {
        let batch = Submission {
            writes: vec![Write {
                buffer: BufferId(1),
                offset: 4,
                bytes: vec![1, 2, 3, 4],
            }],
            commands: vec![
                Step::Clear {
                    buffer: BufferId(2),
                },
                Step::Pass {
                    steps: vec![
                        PassOp::Pipeline {
                            pipeline: PipelineId(3),
                        },
                        PassOp::Dispatch {
                            workgroups: [2, 1, 1],
                        },
                    ],
                },
            ],
            reads: vec![Read {
                buffer: BufferId(2),
                bytes: 8,
            }],
        };
        let json = serde_json::to_value(&batch).unwrap();
        assert_eq!(json["writes"][0]["bytes"], "AQIDBA==");
        assert_eq!(json["commands"][0]["op"], "clear");
        assert_eq!(json["commands"][1]["steps"][1]["workgroups"][0], 2);
        let back: Submission = serde_json::from_value(json).unwrap();
        assert_eq!(back.writes[0].bytes, vec![1, 2, 3, 4]);
    }

    #[test]
    fn usages_are_webgpu_bits() {
        let u = Usage::STORAGE | Usage::COPY_DST;
        assert_eq!(u.0, 0x88);
        assert!(u.contains(Usage::COPY_DST));
        assert!(!u.contains(Usage::MAP_READ));
    }
}
