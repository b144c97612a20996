//! What a device answers instead of doing what it was asked.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The device refused a step (an invalid pipeline, too little memory), with its reason on
    /// one line.
    #[error("{what}: {message}")]
    Refused { what: String, message: String },
    /// A batch did not finish within its timeout; the device may still be running it.
    #[error("the batch did not finish within {0:?}")]
    Hang(Duration),
    /// No device could be opened (no adapter, a feature it lacks, a browser that did not
    /// start), with the reason.
    #[error("{0}")]
    Open(String),
    /// The device stopped, and another can be made in its place: the driver (or the browser)
    /// reported it lost.
    #[error("{0}")]
    Lost(String),
    /// What held the device went away (the browser page closed, its browser ended), with
    /// why: no device can be made there in its place, so the session ends.
    #[error("{0}")]
    Gone(String),
}

pub type DeviceResult<T> = std::result::Result<T, DeviceError>;
