//! Everything the CLI writes: results on stdout, notes on stderr behind one switch (--quiet).

use anyhow::{Context, Result};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether results went to stdout: an error after them then goes to stderr alone, so that
/// `--json` prints one document however the command ends.
static RESULTS: AtomicBool = AtomicBool::new(false);

/// Whether some results went to stdout.
pub fn results_written() -> bool {
    RESULTS.load(Ordering::SeqCst)
}

/// Notes on stderr ("wgstress: ..."): what runs where, measured settings, caveats.
#[derive(Clone, Copy, Debug)]
pub struct Notes {
    pub on: bool,
}

impl Notes {
    pub fn note(&self, text: &str) {
        if self.on {
            eprintln!("wgstress: {text}");
        }
    }
}

/// Writes results to stdout, with their colours where stdout takes them (crate::colour) and
/// without where not. A closed pipe (`wgstress apps | head -0`) is an error that main turns
/// into a quiet exit, not a panic.
pub fn emit(text: &str) -> Result<()> {
    RESULTS.store(true, Ordering::SeqCst);
    let mut out = anstream::AutoStream::new(std::io::stdout().lock(), crate::colour::stdout());
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the results to stdout")
}
