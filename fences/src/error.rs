//! What the search's own work (parsing the parts, placing sites, making variables atomic)
//! can fail with. A lab's errors are its own (`Lab::Error`), which takes these in.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FenceError {
    #[error(transparent)]
    Instrument(#[from] wgstress_instrument::InstrumentError),
    #[error(transparent)]
    MakeAtomic(#[from] wgstress_instrument::atomic::AtomicError),
    /// The reporter the search's events go to could not take one.
    #[error(transparent)]
    Report(#[from] wgstress_model::FileError),
}

pub(crate) type Result<T, E = FenceError> = std::result::Result<T, E>;
