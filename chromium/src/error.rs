//! What can go wrong with Chromium: it is not there, it does not start or listen, DevTools
//! closes, fails a command or does not answer, or the page throws.

use std::process::ExitStatus;

#[derive(Debug, thiserror::Error)]
pub enum ChromiumError {
    #[error("no Chromium found (chromium, chromium-browser or google-chrome on PATH): --browser needs one (Debian: apt-get install chromium)")]
    NotFound,
    #[error("Chromium ended ({0}) before it listened for DevTools")]
    Ended(ExitStatus),
    #[error("Chromium did not listen for DevTools within {seconds} s")]
    NotListening { seconds: u64 },
    #[error("{address}: {reason}")]
    Connect { address: String, reason: String },
    /// The page could not load `url`, for `reason` (the browser's words).
    #[error("{url}: {reason}")]
    NotLoaded { url: String, reason: String },
    #[error("Chromium closed DevTools during {0}")]
    Closed(String),
    #[error("DevTools did not answer {method} within {seconds} s")]
    NoAnswer { method: String, seconds: u64 },
    #[error("DevTools {method}: {message}")]
    Failed { method: String, message: String },
    #[error("DevTools gave no {0}")]
    Missing(&'static str),
    /// An exception the page threw while an expression was evaluated: its first line.
    #[error("{0}")]
    Thrown(String),
    #[error("no element of the page matches {0}")]
    NoElement(String),
    #[error("DevTools: {0}")]
    Socket(String),
    #[error("DevTools sent what is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

pub(crate) type Result<T> = std::result::Result<T, ChromiumError>;
