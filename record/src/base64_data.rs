//! The bytes a recording carries, as base64 text, through the `base64` crate.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

/// Base64 as the recorder writes bytes (JavaScript's `Buffer.toString('base64')` and `btoa`:
/// the standard alphabet, padded); `None` where `text` is not that.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// `bytes` in base64 as the recorder writes them.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}
