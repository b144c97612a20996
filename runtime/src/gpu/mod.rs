//! An application on a device: native adapters and wgpu behind the device boundary (`device`),
//! the device features its shaders need (`features`), its shaders instrumented (`program`),
//! its bindings matched against them (`interface`), buffer layouts and parameter blocks
//! (`layout`, `params`), its buffers (`buffers`), bind groups (`bind`) and what host checks
//! read back (`readback`), pipelines and batches (`session`), and the `engine` that survives
//! device loss and calibrates stress
//! (`timing`: the batches calibration times).

pub mod bind;
pub mod buffers;
pub mod checks;
pub mod decode;
pub mod device;
pub mod engine;
pub mod features;
pub mod hang_timeout;
pub mod interface;
pub mod layout;
pub mod limits;
pub mod params;
pub mod program;
pub mod readback;
pub mod session;
mod timing;
