//! Errors the runtime reports to the user: one line each, saying what to do where possible.
//! Every message is complete in itself (a caller prints it as it is); the io, TOML and JSON
//! errors underneath stay reachable as sources.

use std::path::Path;
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
    #[error("{path}:{line}:{column}: {message}")]
    Toml {
        path: String,
        line: usize,
        column: usize,
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
    /// A spec that parses but says something wrong; `at` is `path:line:column` where known.
    #[error("{at}: {message}")]
    Spec { at: String, message: String },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Instrument(#[from] wgstress_instrument::Error),
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
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A TOML error in `text`, read from `path`, with the line and column it points at.
    pub fn toml(path: &Path, text: &str, source: toml::de::Error) -> Self {
        let (line, column) = source
            .span()
            .map_or((1, 1), |span| line_column(text, span.start));
        Error::Toml {
            path: path.display().to_string(),
            line,
            column,
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

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_column_counts_from_one() {
        let text = "a = 1\nbé = x\n";
        assert_eq!(super::line_column(text, 0), (1, 1));
        assert_eq!(super::line_column(text, 6), (2, 1));
        assert_eq!(super::line_column(text, 11), (2, 5));
    }
}
