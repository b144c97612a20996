//! A WebGPU program's compute work, as the recorder (tools/record) saw it run, turned into a
//! wgstress spec that replays it at wgstress's own speed: the buffers a dispatch binds as
//! bindings, what the program wrote first as their initial contents, every dispatch in order
//! with its binding map, and what it read back after the last one as checks. The crate reads
//! and writes data only; `wgstress record` runs the program and writes the files.

#![deny(unreachable_pub)]

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

/// Base64 as the recorder writes bytes (JavaScript's `Buffer.toString('base64')` and
/// `btoa`: the standard alphabet, padded); `None` where `text` is not that.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// `bytes` in base64 as the recorder writes them.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests;
