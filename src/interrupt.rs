//! Ctrl-C: the first stops the run loop after the batch in flight, so that the summary covers
//! what ran; the second quits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The flag the run loop watches, set by the first Ctrl-C.
pub fn stop_flag(notes: bool) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        if notes {
            eprintln!("\nwgstress: stopping after this batch (Ctrl-C again to quit now)");
        }
    });
    stop
}
