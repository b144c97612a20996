//! A headless Chromium driven over the DevTools protocol: the command that starts it with
//! WebGPU on (SwiftShader where the machine has no GPU Chromium can use), the address it
//! listens on once started, and one page session over a WebSocket: commands and their
//! answers, expressions evaluated in the page, clicks, and the page's console lines and
//! uncaught exceptions as events. Whoever starts the process owns it (its process group, its
//! end); this crate prints nothing.

#![deny(unreachable_pub)]

mod console;
mod devtools;
mod error;
mod socket;
mod start;

pub use devtools::{DevTools, PageEvent};
pub use error::ChromiumError;
pub use start::{command, devtools_address, executable, kill_group};
