//! Whether each stream is coloured. `--color` decides, and where it says `auto`, anstream's
//! reading of the environment does: NO_COLOR turns colour off, CLICOLOR_FORCE on, CLICOLOR=0
//! off, else a terminal (not TERM=dumb) gets it. Each stream decides once, at its first use,
//! so that a command's output is coloured throughout or not at all.

use anstream::{AutoStream, ColorChoice};
use std::sync::OnceLock;

/// `--color WHEN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    /// On a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces it)
    Auto,
    /// Always, to a pipe or a file too
    Always,
    /// Never
    Never,
}

/// The option every command takes.
#[derive(clap::Args)]
pub struct ColourOption {
    /// When to colour the output: passes green, failures red
    #[arg(long = "color", value_enum, value_name = "WHEN", default_value_t = When::Auto, global = true)]
    pub when: When,
}

impl ColourOption {
    /// Makes `--color` every stream's choice; before anything is written.
    pub fn apply(&self) {
        let choice = match self.when {
            When::Auto => return,
            When::Always => ColorChoice::Always,
            When::Never => ColorChoice::Never,
        };
        choice.write_global();
    }
}

/// Whether what goes to stdout is coloured.
pub fn stdout() -> ColorChoice {
    static CHOICE: OnceLock<ColorChoice> = OnceLock::new();
    *CHOICE.get_or_init(|| AutoStream::choice(&std::io::stdout()))
}

/// Whether what goes to stderr (notes, the progress bar) is coloured.
pub fn stderr() -> bool {
    static CHOICE: OnceLock<ColorChoice> = OnceLock::new();
    *CHOICE.get_or_init(|| AutoStream::choice(&std::io::stderr())) != ColorChoice::Never
}
