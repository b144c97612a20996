//! What can go wrong in a campaign or a merge: bad input (a plan, a baseline, a shard
//! argument) with its place, and files that cannot be read or written.

use std::path::{Path, PathBuf};

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A plan or baseline file's error at `file:line:column`.
    #[error("{at}: {message}")]
    At { at: Location, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Bad input that has no place in a file (a shard argument, an environment variable).
    #[error("{0}")]
    Input(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// An error at byte `offset` of `text`, the contents of `file`.
    pub fn at(file: &Path, text: &str, offset: usize, message: impl Into<String>) -> Error {
        Error::At {
            at: Location::of(file, text, offset),
            message: message.into(),
        }
    }

    /// A TOML syntax or shape error, at the place the parser gives.
    pub fn toml(file: &Path, text: &str, error: &toml::de::Error) -> Error {
        let offset = error.span().map_or(0, |s| s.start);
        Error::at(file, text, offset, error.message().trim_end().to_string())
    }
}

/// A place in a file, shown as `file:line:column` (both from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Location {
    pub fn of(file: &Path, text: &str, offset: usize) -> Location {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        Location {
            file: file.to_path_buf(),
            line,
            column: before[start..].chars().count() + 1,
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
        let at = Location::of(Path::new("p.toml"), text, text.find('x').unwrap());
        assert_eq!(at.to_string(), "p.toml:2:6");
        assert_eq!(Location::of(Path::new("p"), text, 0).to_string(), "p:1:1");
    }
}
