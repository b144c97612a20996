//! What is wrong with a spec, one line each: a file that cannot be read, TOML that does not
//! parse or does not fit the spec's shape, or a spec that says something wrong, each at its
//! file:line:column.

use std::path::Path;
use thiserror::Error;
use wgstress_model::location::Location;

#[derive(Debug, Error)]
pub enum SpecError {
    /// A file the spec is or names that could not be read, or was refused.
    #[error(transparent)]
    File(#[from] wgstress_model::FileError),
    /// TOML that does not parse or does not fit the spec's shape.
    #[error("{at}: {message}")]
    Toml {
        at: Location,
        message: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A spec that parses but says something wrong, and where.
    #[error("{at}: {message}")]
    Spec { at: Location, message: String },
    /// Contents that do not fit their binding, found where no file position is known (an
    /// application written in Rust).
    #[error("{0}")]
    Input(String),
}

pub(crate) type Result<T> = std::result::Result<T, SpecError>;

impl SpecError {
    /// A TOML error in `text`, read from `path`, at the place it points at (the file's
    /// start when it points nowhere).
    pub fn toml(path: &Path, text: &str, source: toml::de::Error) -> Self {
        let offset = source.span().map_or(0, |span| span.start);
        SpecError::Toml {
            at: Location::of(path, text, offset),
            message: source.message().trim().replace('\n', " "),
            source: Box::new(source),
        }
    }
}
