//! What a session and a comparison report: the data the run loop, `compare` and the log
//! share, apart from the code that produces it (so the log's lines can name them without an
//! import cycle).

use crate::run::calibration::Calibration;
use crate::run::stop::Stop;
use crate::run::tally::Stats;
use crate::stress::shape_summary::ShapeRecord;
use crate::stress::strategy::Strategy;
use serde::{Deserialize, Serialize};

/// What a session ran: the instrumented application under a stress strategy, or the user's
/// shaders as given. Shown as the strategy's name, or `raw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ran {
    Stressed(Strategy),
    Raw,
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ran::Stressed(strategy) => write!(f, "{strategy}"),
            Ran::Raw => f.write_str("raw"),
        }
    }
}

impl<'de> Deserialize<'de> for Ran {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Ran, D::Error> {
        let name = String::deserialize(deserializer)?;
        match name.as_str() {
            "raw" => Ok(Ran::Raw),
            _ => Strategy::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&name))
                .map(Ran::Stressed),
        }
    }
}

impl Serialize for Ran {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSummary {
    pub app: String,
    pub adapter: String,
    pub strategy: Ran,
    pub shuffle: bool,
    pub buffer_shuffle: bool,
    /// Calibrated (or given) stress iterations; adaptive arms run multiples of it.
    pub iterations: u32,
    pub calibration: Option<Calibration>,
    /// Runs and failures per stress shape (systematic stress).
    pub shapes: Vec<ShapeRecord>,
    /// The watchdog's loop limit at the end; whether passing runs taught it (else it is the
    /// ceiling, or the limit the user gave), and the longest loop they ran.
    pub loop_limit: u32,
    pub loop_limit_learned: bool,
    pub longest_passing_loop: Option<u32>,
    /// Set when passing runs came within 2x of a limit that cannot follow them: legitimate
    /// waits may be counted as watchdog failures.
    pub loop_limit_warning: Option<String>,
    /// The largest batch the session's buffers hold.
    pub batch: usize,
    pub master_seed: String,
    pub replay: Option<String>,
    /// Why the session ended early, if it did (Ctrl-C, a hang).
    #[serde(
        flatten,
        serialize_with = "crate::run::stop::fields",
        deserialize_with = "crate::run::stop::from_fields"
    )]
    pub stopped: Option<Stop>,
    /// Wall-clock seconds of the runs (calibration's are in `calibration`).
    pub wall_seconds: f64,
    #[serde(flatten)]
    pub stats: Stats,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    pub app: String,
    pub adapter: String,
    pub rounds: u32,
    pub master_seed: String,
    pub rows: Vec<RunSummary>,
    /// Why the comparison ended early, if it did.
    #[serde(
        flatten,
        serialize_with = "crate::run::stop::fields",
        deserialize_with = "crate::run::stop::from_fields"
    )]
    pub stopped: Option<Stop>,
}

impl Comparison {
    /// Whether some run of some configuration failed.
    pub fn failed(&self) -> bool {
        self.rows.iter().any(|r| r.stats.failures > 0)
    }
}
