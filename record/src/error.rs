//! Why a recording cannot become a spec.

/// A recording that is not one, or a program whose work a spec cannot replay; `at` is the
/// program's own call site where the recorder knew it.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A recording or trace that is not one: what was wrong and where.
    #[error("{0}")]
    Malformed(String),
    #[error("{at}: {what}")]
    NotReplayable { at: String, what: String },
    #[error("the program did no compute dispatch the recorder saw")]
    NoDispatch,
    #[error(
        "the two recordings took different paths at timeline entry {index} ({first} against \
         {second}): the program's work depends on more than its inputs"
    )]
    Diverged {
        index: usize,
        first: String,
        second: String,
    },
}

pub(crate) fn not_replayable(at: &str, what: impl Into<String>) -> RecordError {
    RecordError::NotReplayable {
        at: if at.is_empty() {
            "the program".to_string()
        } else {
            at.to_string()
        },
        what: what.into(),
    }
}
