//! Errors the runtime reports to the user: one line each, saying what to do where possible.

use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}: {message}")]
    Spec { path: String, message: String },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Instrument(#[from] wgstress_instrument::Error),
    #[error("no GPU adapter found: install a Vulkan driver (on a CPU-only Debian machine: apt-get install mesa-vulkan-drivers libvulkan1)")]
    NoAdapter,
    #[error("no adapter matches `{wanted}` (found: {found})")]
    AdapterNotFound { wanted: String, found: String },
    #[error("could not open the device: {0}")]
    Device(String),
    #[error("wgpu rejected the {what}: {message}")]
    Wgpu { what: String, message: String },
    #[error("the GPU did not finish a batch within {0:?}: a kernel hangs (a barrier that not every thread reaches, or a loop the watchdog cannot see)")]
    Hang(std::time::Duration),
    #[error("the device was lost: {0}")]
    DeviceLost(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: &Path, error: std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            message: error.to_string(),
        }
    }
}
