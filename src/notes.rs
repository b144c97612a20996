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
    /// A note; control characters in it (from a name or file the user gave) are escaped.
    pub fn note(&self, text: &str) {
        if self.on {
            eprintln!("wgstress: {}", wgstress_model::escape::lines(text));
        }
    }

    /// A caveat about the user's input that does not stop the command.
    pub fn warn(&self, text: &str) {
        if self.on {
            eprintln!("wgstress: warning: {}", wgstress_model::escape::lines(text));
        }
    }

    /// Warns of each barrier in `source` (read from `path`) that browsers will reject, as
    /// Tint refuses a barrier in non-uniform control flow and naga accepts it. A shader that
    /// does not parse gets no warning: its error is the command's.
    pub fn barrier_warnings(&self, source: &str, path: &str) {
        // Quiet: no warning to print, so no analysis to run.
        if !self.on {
            return;
        }
        let found = wgstress_instrument::placement::non_uniform_barriers(source, path);
        for barrier in found.into_iter().flatten() {
            self.warn(&barrier.to_string());
        }
    }

    /// `barrier_warnings` for every shader file of `app`, each once.
    pub fn app_warnings(&self, app: &wgstress_runtime::app::spec::App) {
        let mut files: Vec<(&str, &str)> = vec![(&app.shader_path, &app.source)];
        let own = app.pipeline.iter().filter_map(|d| d.shader.as_ref());
        files.extend(
            own.chain(&app.postcondition_shader)
                .map(|f| (&*f.path, &*f.source)),
        );
        let mut seen: Vec<&str> = Vec::new();
        for (path, source) in files {
            if !seen.contains(&path) {
                seen.push(path);
                self.barrier_warnings(source, path);
            }
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
