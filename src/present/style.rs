//! What the colours of the output mean: a pass green, a failure red, a doubt (an inconclusive
//! verdict, a run cut short) yellow. The text carries the styles; the stream it goes to strips
//! them where colour is off (crate::colour). Pad a cell before styling it: the styles' bytes
//! would count in its width.

use anstyle::{AnsiColor, Style};
use std::fmt::Display;

const PASS: Style = AnsiColor::Green.on_default();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const DOUBT: Style = AnsiColor::Yellow.on_default();

/// `text` as a pass.
pub fn pass(text: impl Display) -> String {
    format!("{PASS}{text}{PASS:#}")
}

/// `text` as a failure.
pub fn fail(text: impl Display) -> String {
    format!("{FAIL}{text}{FAIL:#}")
}

/// `text` as a doubt: neither a pass nor a failure.
pub fn doubt(text: impl Display) -> String {
    format!("{DOUBT}{text}{DOUBT:#}")
}

/// `text` as a failure when `failed`, else as a pass.
pub fn verdict(failed: bool, text: impl Display) -> String {
    if failed {
        fail(text)
    } else {
        pass(text)
    }
}
