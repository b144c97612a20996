//! Errors the runtime reports to the user: one line each, saying what to do where possible.
//! Every message is complete in itself (a caller prints it as it is); the io, TOML and JSON
//! errors underneath stay reachable as sources.

use std::path::Path;
use thiserror::Error;
use wgstress_model::location::Location;

#[derive(Debug, Error)]
pub enum RuntimeError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A TOML file that does not parse or does not fit the spec's shape.
    #[error("{at}: {message}")]
    Toml {
        at: Location,
        message: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A JSON file (a device profile) that does not parse; serde_json's message ends in
    /// "at line L column C".
    #[error("{path}: {source}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        #[source]
        source: serde_json::Error,
    },
    /// A spec that parses but says something wrong, and where.
    #[error("{at}: {message}")]
    Spec { at: Location, message: String },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Instrument(#[from] wgstress_instrument::InstrumentError),
    #[error(transparent)]
    MakeAtomic(#[from] wgstress_instrument::atomic::AtomicError),
    #[error("no GPU adapter found: install a Vulkan driver (on a CPU-only Debian machine: apt-get install mesa-vulkan-drivers libvulkan1)")]
    NoAdapter,
    #[error("no adapter matches `{wanted}` (found: {found})")]
    AdapterNotFound { wanted: String, found: String },
    #[error("could not open the device: {0}")]
    Device(String),
    #[error("wgpu rejected the {what}: {message}")]
    Wgpu { what: String, message: String },
    #[error("the GPU did not finish a batch within {0:?}, the hang timeout (--timeout): a kernel hangs (a barrier that not every thread reaches, or a loop the watchdog cannot see), or its runs are that slow (then give a longer --timeout)")]
    Hang(std::time::Duration),
    #[error("the device was lost: {0}")]
    DeviceLost(String),
    /// What held the device went away (a browser page closed): the session ends there, with
    /// what it ran until then.
    #[error("{0}: the session was cut short")]
    DeviceGone(String),
    /// The driver ended an application loop before the loop did: llvmpipe ends an
    /// invocation's loops once they ran 65,535 iterations in all. The runs' results are then
    /// not the application's, so none of them count.
    #[error("the driver ended the loop at {at} before it finished, in {runs} run(s) of a batch (llvmpipe, Mesa's CPU driver, ends an invocation's loops after 65,535 iterations in all): the application's results after it are the driver's doing, so no run of the batch counts; give a smaller size or run on a GPU")]
    DriverCut { at: String, runs: usize },
}

pub type Result<T> = std::result::Result<T, RuntimeError>;

impl From<wgstress_device::DeviceError> for RuntimeError {
    fn from(e: wgstress_device::DeviceError) -> RuntimeError {
        use wgstress_device::DeviceError;
        match e {
            DeviceError::Refused { what, message } => RuntimeError::Wgpu { what, message },
            DeviceError::Hang(timeout) => RuntimeError::Hang(timeout),
            DeviceError::Lost(reason) => RuntimeError::DeviceLost(reason),
            DeviceError::Gone(reason) => RuntimeError::DeviceGone(reason),
            DeviceError::Open(reason) => RuntimeError::Device(reason),
        }
    }
}

impl RuntimeError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        RuntimeError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A JSON error in the file at `path`.
    pub fn json(path: &Path, source: serde_json::Error) -> Self {
        RuntimeError::Json {
            path: path.display().to_string(),
            line: source.line(),
            column: source.column(),
            source,
        }
    }
}

/// A file the model's reads (`wgstress_model::read`) or the log could not read or write, or
/// refused: the same message as the runtime's own errors of those kinds.
impl From<wgstress_model::FileError> for RuntimeError {
    fn from(error: wgstress_model::FileError) -> RuntimeError {
        match error {
            wgstress_model::FileError::Io { path, source } => RuntimeError::Io { path, source },
            wgstress_model::FileError::Input(message) => RuntimeError::Input(message),
        }
    }
}

/// The fence search's own errors are the instrumenter's and its reporter's, as the runtime
/// reports them.
impl From<wgstress_fences::FenceError> for RuntimeError {
    fn from(error: wgstress_fences::FenceError) -> RuntimeError {
        match error {
            wgstress_fences::FenceError::Instrument(e) => RuntimeError::Instrument(e),
            wgstress_fences::FenceError::MakeAtomic(e) => RuntimeError::MakeAtomic(e),
            wgstress_fences::FenceError::Report(e) => e.into(),
        }
    }
}

/// A spec's errors are the runtime's of the same kinds, with the same messages.
impl From<wgstress_spec::SpecError> for RuntimeError {
    fn from(error: wgstress_spec::SpecError) -> RuntimeError {
        match error {
            wgstress_spec::SpecError::File(e) => e.into(),
            wgstress_spec::SpecError::Toml {
                at,
                message,
                source,
            } => RuntimeError::Toml {
                at,
                message,
                source,
            },
            wgstress_spec::SpecError::Spec { at, message } => RuntimeError::Spec { at, message },
            wgstress_spec::SpecError::Input(message) => RuntimeError::Input(message),
        }
    }
}
