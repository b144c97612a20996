//! A WebGPU program's compute work, as the recorder (tools/record) saw it run, turned into a
//! wgstress spec that replays it at wgstress's own speed: the buffers a dispatch binds as
//! bindings, what the program wrote first as their initial contents, every dispatch in order
//! with its binding map, and what it read back after the last one as checks. The crate reads
//! and writes data only; `wgstress record` runs the program and writes the files.

#![deny(unreachable_pub)]

mod base64_data;
mod convert;
mod differences;
mod error;
mod fit;
mod recording;
mod render;
mod spec;
mod stream;
mod trace;

pub use convert::convert;
pub use differences::{compare, same_path, Difference};
pub use error::RecordError;
pub use recording::Recording;
pub use render::{render, Origin, SpecFile};
pub use spec::{
    RecordedBinding, RecordedCheck, RecordedDispatch, RecordedKind, RecordedShader, RecordedSpec,
};
pub use stream::read_recording;
pub use trace::{read_trace, TRACE_FORMATS};

pub use base64_data::decode_base64;

#[cfg(test)]
mod tests;
