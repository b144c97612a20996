//! Where a raw run hangs: the user's shaders as given have no watchdog, so a batch that never
//! finishes says nothing of where it waits. One run of the instrumented application without
//! stress or shuffling, whose scheduler finds the wait that saw no progress, names the loop.

use crate::session::SessionPlan;
use std::sync::mpsc;
use std::time::Duration;
use wgstress_model::reporter::Silent;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::run::stop::Stop;
use wgstress_runtime::gpu::engine::{Engine, Mode};
use wgstress_runtime::run::runner::{self, Budget, RunConfig};

/// What the instrumented run says of the hang.
enum Located {
    /// The wait it stalled at.
    At(String),
    /// It ran to its end without stalling.
    Passed,
    /// It could not be run (the device refused it, or the GPU is still busy with the hung
    /// batch past `deadline`).
    Unknown(String),
}

/// The wait an instrumented run of `session`'s application stalls at, when it does. The run
/// gets its own device, and `deadline` to finish: the hung batch may still hold the GPU, and
/// a run queued behind it would never end.
fn locate(session: &SessionPlan, deadline: Duration) -> Located {
    let mut instrumented = session.engine_config();
    instrumented.mode = Mode::Instrumented;
    let app = session.app.clone();
    let config = RunConfig {
        settings: session.stress.unstressed(),
        budget: Budget {
            runs: Some(1),
            time: None,
            failures: Some(1),
        },
        master_seed: session.master_seed,
        replay: None,
        adaptive: false,
        calibration: None,
        stop: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    };
    let (send, receive) = mpsc::channel();
    // Detached: past the deadline the command ends without it (through `_exit`).
    std::thread::spawn(move || {
        let located = match Engine::new(app, &instrumented) {
            Err(e) => Located::Unknown(e.to_string()),
            Ok(mut engine) => match runner::run(&mut engine, &config, &mut Silent) {
                Err(e) => Located::Unknown(e.to_string()),
                Ok(summary) => match summary.stats.first_failure {
                    Some(f) if matches!(f.outcome, RunOutcome::Hang | RunOutcome::Watchdog) => {
                        Located::At(f.detail)
                    }
                    _ => Located::Passed,
                },
            },
        };
        let _ = send.send(located);
    });
    receive.recv_timeout(deadline).unwrap_or_else(|_| {
        Located::Unknown(format!(
            "it did not finish within {deadline:?}, the GPU still busy with the hung batch"
        ))
    })
}

/// `stopped` with where the instrumented application waits, for a raw session that hung.
pub fn explain(stopped: Option<Stop>, session: &SessionPlan, hung: bool) -> Option<Stop> {
    match stopped {
        Some(Stop::Aborted(why)) if hung => {
            let deadline = session
                .engine_config()
                .timeout
                .initial()
                .max(Duration::from_secs(5));
            let located = match locate(session, deadline) {
                Located::At(at) => format!("instrumented without stress, {at}"),
                Located::Passed => "instrumented without stress, it did not stall: the hang is the driver's or needs more than one run".to_string(),
                Located::Unknown(why) => format!("the wait could not be located: {why}"),
            };
            Some(Stop::Aborted(format!("{why}; {located}")))
        }
        other => other,
    }
}
