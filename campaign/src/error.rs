//! What can go wrong in a campaign or a merge: bad input (a plan, a baseline, a shard
//! argument) with its place, and files that cannot be read or written.

use std::path::{Path, PathBuf};
use wgstress_model::location::Location;

pub(crate) type Result<T> = std::result::Result<T, CampaignError>;

#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
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

impl CampaignError {
    /// A file refused or failed by the model's bounded reads (`wgstress_model::read`): its
    /// message already names the file.
    pub(crate) fn read(error: wgstress_model::FileError) -> CampaignError {
        match error {
            wgstress_model::FileError::Io { path, source } => CampaignError::Io {
                path: path.into(),
                source,
            },
            wgstress_model::FileError::Input(message) => CampaignError::Input(message),
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> CampaignError {
        CampaignError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// An error at byte `offset` of `text`, the contents of `file`.
    pub(crate) fn at(
        file: &Path,
        text: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> CampaignError {
        CampaignError::At {
            at: Location::of(file, text, offset),
            message: message.into(),
        }
    }

    /// A TOML syntax or shape error, at the place the parser gives.
    pub(crate) fn toml(file: &Path, text: &str, error: &toml::de::Error) -> CampaignError {
        let offset = error.span().map_or(0, |s| s.start);
        CampaignError::at(file, text, offset, error.message().trim_end().to_string())
    }
}
