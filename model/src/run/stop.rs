//! Why runs ended before their budget was spent.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why runs (a session, a trial, a search) ended early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The user pressed Ctrl-C: the results cover the runs that finished.
    Interrupted,
    /// An error ended them (a hang, a lost device, a log that could no longer be written):
    /// what it said.
    Aborted(String),
}

impl Stop {
    /// How runs ended: the error that ended them, else an interruption if the stop flag is up.
    pub fn of(error: Option<String>, stop: &AtomicBool) -> Option<Stop> {
        match error {
            Some(message) => Some(Stop::Aborted(message)),
            None if stop.load(Ordering::SeqCst) => Some(Stop::Interrupted),
            None => None,
        }
    }

    pub fn is_abort(&self) -> bool {
        matches!(self, Stop::Aborted(_))
    }
}

/// `Option<Stop>` as the logs and the JSON output show it: `"interrupted": bool` and
/// `"aborted": message or null` (use with `#[serde(flatten, serialize_with = ...)]`).
pub(crate) fn fields<S: Serializer>(stop: &Option<Stop>, serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(2))?;
    map.serialize_entry("interrupted", &(*stop == Some(Stop::Interrupted)))?;
    let aborted = match stop {
        Some(Stop::Aborted(why)) => Some(why.as_str()),
        _ => None,
    };
    map.serialize_entry("aborted", &aborted)?;
    map.end()
}

/// `Option<Stop>` read back from what `fields` wrote (use with `#[serde(flatten,
/// deserialize_with = ...)]`); both fields are required, so a log without them is refused.
pub(crate) fn from_fields<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Stop>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Fields {
        interrupted: bool,
        #[serde(deserialize_with = "Option::deserialize")]
        aborted: Option<String>,
    }
    let fields = Fields::deserialize(deserializer)?;
    Ok(match (fields.aborted, fields.interrupted) {
        (Some(why), _) => Some(Stop::Aborted(why)),
        (None, true) => Some(Stop::Interrupted),
        (None, false) => None,
    })
}

/// `Option<Stop>` where only an abort is shown (`"aborted"`): an interruption is said
/// elsewhere.
pub(crate) fn aborted<S: Serializer>(
    stop: &Option<Stop>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    let aborted = match stop {
        Some(Stop::Aborted(why)) => Some(why.as_str()),
        _ => None,
    };
    map.serialize_entry("aborted", &aborted)?;
    map.end()
}

/// `Option<Stop>` read back from what `aborted` wrote: an abort or nothing.
pub(crate) fn from_aborted<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Stop>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Fields {
        #[serde(deserialize_with = "Option::deserialize")]
        aborted: Option<String>,
    }
    Ok(Fields::deserialize(deserializer)?
        .aborted
        .map(Stop::Aborted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Shown {
        runs: u64,
        #[serde(flatten, serialize_with = "fields")]
        stop: Option<Stop>,
    }

    #[test]
    fn a_stop_shows_as_the_interrupted_and_aborted_fields() {
        let show = |stop| serde_json::to_value(Shown { runs: 3, stop }).unwrap();
        let none = show(None);
        assert_eq!(none["interrupted"], false);
        assert!(none["aborted"].is_null());
        assert_eq!(none["runs"], 3);
        assert_eq!(show(Some(Stop::Interrupted))["interrupted"], true);
        let hang = show(Some(Stop::Aborted("hang".into())));
        assert_eq!(
            (hang["interrupted"].clone(), hang["aborted"].clone()),
            (false.into(), "hang".into())
        );
    }

    #[test]
    fn an_error_outranks_the_stop_flag() {
        let up = AtomicBool::new(true);
        assert_eq!(
            Stop::of(Some("lost".into()), &up),
            Some(Stop::Aborted("lost".into()))
        );
        assert_eq!(Stop::of(None, &up), Some(Stop::Interrupted));
        assert_eq!(Stop::of(None, &AtomicBool::new(false)), None);
    }
}
