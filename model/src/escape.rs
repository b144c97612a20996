//! Text from the user's files shown on a terminal: control characters written as escapes, so
//! that a name cannot clear the screen, move the cursor or begin a forged line.

/// `text` with every control character (newline and tab included) written as Rust writes it
/// in a string literal (`\n`, `\u{1b}`); other characters as they are.
pub fn controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_debug().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// `controls` for a message of several lines: the line breaks kept, every other control
/// character escaped.
pub fn lines(text: &str) -> String {
    text.split('\n')
        .map(controls)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_others_kept() {
        assert_eq!(controls("counter"), "counter");
        assert_eq!(controls("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(
            controls("x\nwgstress: error: forged"),
            "x\\nwgstress: error: forged"
        );
        assert_eq!(controls("ümlaut\t"), "ümlaut\\t");
        assert_eq!(lines("one\u{7}\ntwo"), "one\\u{7}\ntwo");
    }
}
