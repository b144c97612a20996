//! How long a batch may run before it counts as hung.

use std::time::Duration;

/// The hang timeout before anything is timed, unless a command says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Without a timeout of the user's, a batch is a hang once it runs this many times as long as
/// calibration expects a stressed run of the application to take: pacing sizes batches to
/// about a quarter second, so only an application whose single runs take seconds grows it.
const SLACK: f64 = 4.0;

/// The longest a grown timeout gets: a kernel that slow is better run with `--timeout`.
const GROWN_AT_MOST: Duration = Duration::from_secs(3600);

/// How long a batch may run before it is a hang.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HangTimeout {
    /// The user's (`--timeout`), or a command's own: fixed, however slow the runs are.
    Given(Duration),
    /// `DEFAULT_TIMEOUT` until calibration has timed the application, then four times its
    /// stressed run where that is longer: an application whose runs take seconds each on a
    /// slow device (a 2^24-word scan on llvmpipe) is slow, not hung.
    Default,
}

impl HangTimeout {
    /// The timeout before calibration.
    pub fn initial(self) -> Duration {
        match self {
            HangTimeout::Given(timeout) => timeout,
            HangTimeout::Default => DEFAULT_TIMEOUT,
        }
    }

    /// The timeout once calibration expects a stressed run to take `run`.
    pub fn calibrated(self, run: Duration) -> Duration {
        match self {
            HangTimeout::Given(timeout) => timeout,
            HangTimeout::Default => run.mul_f64(SLACK).clamp(DEFAULT_TIMEOUT, GROWN_AT_MOST),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_timeout_never_grows() {
        let given = HangTimeout::Given(Duration::from_secs(3));
        assert_eq!(given.initial(), Duration::from_secs(3));
        assert_eq!(
            given.calibrated(Duration::from_secs(12)),
            Duration::from_secs(3)
        );
    }

    #[test]
    fn the_default_grows_only_for_runs_of_seconds() {
        let default = HangTimeout::Default;
        assert_eq!(default.initial(), DEFAULT_TIMEOUT);
        assert_eq!(
            default.calibrated(Duration::from_millis(5)),
            DEFAULT_TIMEOUT
        );
        assert_eq!(
            default.calibrated(Duration::from_secs(12)),
            Duration::from_secs(48)
        );
        assert_eq!(
            default.calibrated(Duration::from_secs(100_000)),
            GROWN_AT_MOST
        );
    }
}
