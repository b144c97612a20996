//! Errors the runtime reports to the user: one line each, saying what to do where possible.
//! Every message is complete in itself (a caller prints it as it is); the io, TOML and JSON
//! errors underneath stay reachable as sources.

use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
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
    /// The driver ended an application loop before the loop did: llvmpipe ends an
    /// invocation's loops once they ran 65,535 iterations in all. The runs' results are then
    /// not the application's, so none of them count.
    #[error("the driver ended the loop at {at} before it finished, in {runs} run(s) of a batch (llvmpipe, Mesa's CPU driver, ends an invocation's loops after 65,535 iterations in all): the application's results after it are the driver's doing, so no run of the batch counts; give a smaller size or run on a GPU")]
    DriverCut { at: String, runs: usize },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A TOML error in `text`, read from `path`, at the place it points at (the file's
    /// start when it points nowhere).
    pub fn toml(path: &Path, text: &str, source: toml::de::Error) -> Self {
        let offset = source.span().map_or(0, |span| span.start);
        Error::Toml {
            at: Location::of(path, text, offset),
            message: source.message().trim().replace('\n', " "),
            source: Box::new(source),
        }
    }

    /// A JSON error in the file at `path`.
    pub fn json(path: &Path, source: serde_json::Error) -> Self {
        Error::Json {
            path: path.display().to_string(),
            line: source.line(),
            column: source.column(),
            source,
        }
    }
}

/// A place in a file, shown as `file:line:column`: lines from 1, columns in characters
/// from 1. Every error that points into a spec, a plan or a baseline is built with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Location {
    /// The place of byte `offset` of `text`, the contents of `file`.
    pub fn of(file: &Path, text: &str, offset: usize) -> Location {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Location {
            file: file.to_path_buf(),
            line,
            column,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::Location;
    use std::path::Path;

    #[test]
    fn locations_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = x\n";
        let at = |offset| Location::of(Path::new("p.toml"), text, offset).to_string();
        assert_eq!(at(0), "p.toml:1:1");
        assert_eq!(at(6), "p.toml:2:1");
        assert_eq!(at(11), "p.toml:2:5");
        assert_eq!(at(text.find('x').unwrap()), "p.toml:2:6");
        assert_eq!(at(1000), "p.toml:3:1", "past the end: the end");
    }
}
