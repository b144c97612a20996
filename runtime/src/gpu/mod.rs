//! An application on a device: adapters, error scopes, submission and read-back (`device`),
//! the device features its shaders need (`features`), its shaders instrumented (`program`),
//! its bindings matched against them (`interface`), buffer layouts and parameter blocks
//! (`layout`, `params`), pipelines, buffers and batches (`session`), and the `engine` that
//! survives device loss and calibrates stress.

pub mod device;
pub mod engine;
pub mod features;
pub mod interface;
pub mod layout;
pub mod limits;
pub mod params;
pub mod program;
pub mod session;
