//! The actions of a wgpu trace (trace.ron) that a spec can hold, as serde types the `ron`
//! crate reads into: the shapes wgpu 30 writes (`Action<PointerReferences>`, object ids
//! written `PointerId(N)`), each field that may be missing or changed defaulted. An action or
//! command of another kind is skipped whole, whatever it holds, and kept by name where the
//! spec must say it was left out.

use serde::de::{EnumAccess, IgnoredAny, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;

/// An object's id: its address in the traced program, reused after a drop. Written
/// `PointerId(N)`; read whatever wraps it (`Some(PointerId(N))` reads as a newtype).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PointerId(pub(crate) u64);

impl<'de> Deserialize<'de> for PointerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PointerId, D::Error> {
        struct Id;
        impl<'de> Visitor<'de> for Id {
            type Value = PointerId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object id, `PointerId(N)`")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<PointerId, E> {
                Ok(PointerId(v))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<PointerId, D::Error> {
                u64::deserialize(d).map(PointerId)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<PointerId, S::Error> {
                let id = seq
                    .next_element::<u64>()?
                    .ok_or_else(|| serde::de::Error::invalid_length(0, &self))?;
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return Err(serde::de::Error::invalid_length(2, &self));
                }
                Ok(PointerId(id))
            }
        }
        d.deserialize_any(Id)
    }
}

/// A resource's label, `None` or `Some("...")`.
pub(crate) type Label = Option<String>;

#[derive(Debug, Deserialize)]
pub(crate) struct BufferDesc {
    #[serde(default)]
    pub(crate) label: Label,
    pub(crate) size: u64,
    /// wgpu's buffer usage flags by name ("COPY_SRC | STORAGE").
    #[serde(default)]
    pub(crate) usage: String,
}

/// Bytes the trace holds: a file beside trace.ron, or inline.
#[derive(Debug, Deserialize)]
pub(crate) enum Data {
    File(String),
    String(IgnoredAny, String),
    Binary(IgnoredAny, Vec<u8>),
}

#[derive(Debug, Deserialize)]
pub(crate) struct WriteBuffer {
    pub(crate) id: PointerId,
    pub(crate) data: Data,
    #[serde(default)]
    pub(crate) offset: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Labelled {
    pub(crate) label: Label,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateShaderModule {
    pub(crate) id: PointerId,
    #[serde(default)]
    pub(crate) desc: Labelled,
    pub(crate) data: Data,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Stage {
    /// The default, 0, is no module the trace made.
    pub(crate) module: PointerId,
    pub(crate) entry_point: Option<String>,
    pub(crate) constants: BTreeMap<String, f64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PipelineDesc {
    #[serde(default)]
    pub(crate) label: Label,
    pub(crate) stage: Stage,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateComputePipeline {
    pub(crate) id: PointerId,
    pub(crate) desc: PipelineDesc,
}

#[derive(Debug, Deserialize)]
pub(crate) struct GetLayout {
    pub(crate) id: PointerId,
    pub(crate) pipeline: PointerId,
    #[serde(default)]
    pub(crate) index: u32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct BindGroupDesc {
    pub(crate) label: Label,
    pub(crate) entries: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Entry {
    #[serde(default)]
    pub(crate) binding: u32,
    pub(crate) resource: Resource,
}

/// A bind group entry's resource: a buffer, or another kind by name.
#[derive(Debug)]
pub(crate) enum Resource {
    Buffer(BufferBinding),
    Other(String),
}

#[derive(Debug, Deserialize)]
pub(crate) struct BufferBinding {
    pub(crate) buffer: PointerId,
    #[serde(default)]
    pub(crate) offset: u64,
    #[serde(default)]
    pub(crate) size: Option<u64>,
}

/// One action of the trace.
#[derive(Debug)]
pub(crate) enum Action {
    CreateBuffer(PointerId, BufferDesc),
    WriteBuffer(WriteBuffer),
    CreateShaderModule(CreateShaderModule),
    CreateComputePipeline(CreateComputePipeline),
    GetComputePipelineBindGroupLayout(GetLayout),
    CreateBindGroup(PointerId, BindGroupDesc),
    Submit(u32, Vec<Command>),
    /// An action a spec cannot hold (textures, render pipelines...), by name.
    Unsupported(String),
    /// One that changes nothing a spec holds (a drop, a layout).
    Other,
}

/// Actions that make what a compute spec cannot hold.
const UNSUPPORTED_ACTIONS: &[&str] = &[
    "CreateTexture",
    "CreateSampler",
    "CreateGeneralRenderPipeline",
    "CreateRenderBundle",
    "WriteTexture",
    "ConfigureSurface",
    "CreateBlas",
    "CreateTlas",
];

#[derive(Debug, Deserialize)]
pub(crate) struct Pass {
    #[serde(default)]
    pub(crate) commands: Vec<ComputeCommand>,
    #[serde(default)]
    pub(crate) dynamic_offsets: Vec<u32>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RunComputePass {
    #[serde(default)]
    pub(crate) pass: Option<Pass>,
    #[serde(default)]
    pub(crate) base: Option<Pass>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CopyBufferToBuffer {
    pub(crate) src: PointerId,
    #[serde(default)]
    pub(crate) src_offset: u64,
    pub(crate) dst: PointerId,
    #[serde(default)]
    pub(crate) dst_offset: u64,
    #[serde(default)]
    pub(crate) size: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ClearBuffer {
    pub(crate) dst: PointerId,
    #[serde(default)]
    pub(crate) offset: u64,
    #[serde(default)]
    pub(crate) size: Option<u64>,
}

/// One command of a submission.
#[derive(Debug)]
pub(crate) enum Command {
    RunComputePass(RunComputePass),
    CopyBufferToBuffer(CopyBufferToBuffer),
    ClearBuffer(ClearBuffer),
    Unsupported(String),
    Other,
}

const UNSUPPORTED_COMMANDS: &[&str] = &[
    "RunRenderPass",
    "CopyBufferToTexture",
    "CopyTextureToBuffer",
    "CopyTextureToTexture",
    "ClearTexture",
    "WriteTimestamp",
    "ResolveQuerySet",
];

#[derive(Debug, Deserialize)]
pub(crate) struct SetBindGroup {
    #[serde(default)]
    pub(crate) index: u32,
    #[serde(default)]
    pub(crate) num_dynamic_offsets: usize,
    #[serde(default)]
    pub(crate) bind_group: Option<PointerId>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct DispatchIndirect {
    pub(crate) buffer: PointerId,
    #[serde(default)]
    pub(crate) offset: u64,
}

/// One command of a compute pass.
#[derive(Debug)]
pub(crate) enum ComputeCommand {
    SetPipeline(PointerId),
    SetBindGroup(SetBindGroup),
    Dispatch([u32; 3]),
    DispatchIndirect(DispatchIndirect),
    Other,
}

/// Variants written without parentheses (`PopDebugGroup`): skipped as units.
const UNIT_VARIANTS: &[&str] = &["PopDebugGroup"];

/// Skips a variant's contents, whatever their shape. The trace is read with
/// `unwrap_variant_newtypes`, so that any variant's fields or items read as one newtype.
fn skip<'de, V: VariantAccess<'de>>(name: &str, variant: V) -> Result<(), V::Error> {
    if UNIT_VARIANTS.contains(&name) {
        variant.unit_variant()
    } else {
        variant.newtype_variant::<IgnoredAny>().map(drop)
    }
}

/// A variant's contents read as `T` whatever shape they are written in: a struct variant's
/// fields, a tuple variant's items, or a newtype variant's one value (`Buffer((buffer: ...))`,
/// `SetPipeline(PointerId(1))`). The trace is read with `unwrap_variant_newtypes`, under which
/// ron gives every variant's contents as one value of the shape it finds.
struct Shaped<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Shaped<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shaped<T>, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        use serde::de::IntoDeserializer;
        struct Any<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Any<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a variant's contents")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(self, seq: S) -> Result<T, S::Error> {
                T::deserialize(SeqAccessDeserializer::new(seq))
            }
            fn visit_newtype_struct<E: Deserializer<'de>>(self, d: E) -> Result<T, E::Error> {
                T::deserialize(d)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
            fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
            fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<T, E> {
                T::deserialize(v.into_deserializer())
            }
        }
        d.deserialize_any(Any(std::marker::PhantomData)).map(Shaped)
    }
}

/// `T` read from a variant's contents, whatever their shape.
fn contents<'de, T: Deserialize<'de>, V: VariantAccess<'de>>(v: V) -> Result<T, V::Error> {
    v.newtype_variant::<Shaped<T>>().map(|s| s.0)
}

/// A variant's name, read as the identifier it is written as.
struct Name(String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct Ident;
        impl Visitor<'_> for Ident {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(Name(v.to_string()))
            }
        }
        d.deserialize_identifier(Ident)
    }
}

/// A visitor of an externally tagged enum, by the variant's name.
macro_rules! by_name {
    ($visitor:ident, $ty:ty, $expecting:literal, |$name:ident, $variant:ident| $body:expr) => {
        struct $visitor;

        impl<'de> Visitor<'de> for $visitor {
            type Value = $ty;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str($expecting)
            }

            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<$ty, A::Error> {
                let (Name($name), $variant): (Name, A::Variant) = data.variant()?;
                $body
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                d.deserialize_enum(stringify!($ty), &[], $visitor)
            }
        }
    };
}

by_name!(ActionVisitor, Action, "a trace action", |name, v| {
    Ok(match name.as_str() {
        "CreateBuffer" => {
            let (id, desc) = contents(v)?;
            Action::CreateBuffer(id, desc)
        }
        "WriteBuffer" => Action::WriteBuffer(contents(v)?),
        "CreateShaderModule" => Action::CreateShaderModule(contents(v)?),
        "CreateComputePipeline" => Action::CreateComputePipeline(contents(v)?),
        "GetComputePipelineBindGroupLayout" => {
            Action::GetComputePipelineBindGroupLayout(contents(v)?)
        }
        "CreateBindGroup" => {
            let (id, desc) = contents(v)?;
            Action::CreateBindGroup(id, desc)
        }
        "Submit" => {
            let (index, commands) = contents(v)?;
            Action::Submit(index, commands)
        }
        other => {
            skip(other, v)?;
            match UNSUPPORTED_ACTIONS.contains(&other) {
                true => Action::Unsupported(other.to_string()),
                false => Action::Other,
            }
        }
    })
});

by_name!(CommandVisitor, Command, "a command", |name, v| {
    Ok(match name.as_str() {
        "RunComputePass" => Command::RunComputePass(contents(v)?),
        "CopyBufferToBuffer" => Command::CopyBufferToBuffer(contents(v)?),
        "ClearBuffer" => Command::ClearBuffer(contents(v)?),
        other => {
            skip(other, v)?;
            match UNSUPPORTED_COMMANDS.contains(&other) {
                true => Command::Unsupported(other.to_string()),
                false => Command::Other,
            }
        }
    })
});

by_name!(
    ComputeVisitor,
    ComputeCommand,
    "a compute pass command",
    |name, v| {
        Ok(match name.as_str() {
            "SetPipeline" => ComputeCommand::SetPipeline(contents(v)?),
            "SetBindGroup" => ComputeCommand::SetBindGroup(contents(v)?),
            "DispatchWorkgroups" | "Dispatch" => {
                let (x, y, z): (u32, u32, u32) = contents(v)?;
                ComputeCommand::Dispatch([x, y, z])
            }
            "DispatchWorkgroupsIndirect" | "DispatchIndirect" => {
                ComputeCommand::DispatchIndirect(contents(v)?)
            }
            other => {
                skip(other, v)?;
                ComputeCommand::Other
            }
        })
    }
);

by_name!(
    ResourceVisitor,
    Resource,
    "a binding resource",
    |name, v| {
        Ok(match name.as_str() {
            "Buffer" => Resource::Buffer(contents(v)?),
            other => {
                skip(other, v)?;
                Resource::Other(other.to_string())
            }
        })
    }
);
