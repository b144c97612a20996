//! What calibrating stress on a device measured (`wgstress_runtime::gpu::engine` measures it).

/// What calibration measured, and how long it took.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    /// Stress iterations per thread.
    pub iterations: u32,
    /// Seconds per passing run of the application alone, if any ran in time.
    pub app_seconds: Option<f64>,
    pub seconds: f64,
    /// The hang timeout in seconds, when calibration grew it past the default for runs it
    /// timed at seconds each (no `--timeout` given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    /// Why calibration ended early, if an error (a hang, a lost device) ended it: the runs
    /// it was for do not start, and their summary says why.
    pub aborted: Option<String>,
}
