//! The model's one error: a file that could not be read or written, or that a bounded read
//! refused. Every message is complete in itself (a caller prints it as it is); the io error
//! underneath stays reachable as its source.

use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file refused before it was read (a directory, a device, one past its bound).
    #[error("{0}")]
    Input(String),
}

pub(crate) type Result<T> = std::result::Result<T, FileError>;

impl FileError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        FileError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
