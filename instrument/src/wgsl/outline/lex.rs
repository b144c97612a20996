//! WGSL tokens, as far as the outline needs them: identifiers and numbers as words, and
//! punctuation, each with its byte range. Comments (`//` to the end of the line, and nested
//! `/* */`) and white space are skipped; WGSL has no string literals.

use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub range: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// An identifier, keyword or number literal.
    Word,
    Punct,
}

/// Punctuation of several characters, longest first, so that `<<=` is one token.
const LONG: [&str; 22] = [
    "<<=", ">>=", "==", "!=", "<=", ">=", "&&", "||", "->", "+=", "-=", "*=", "/=", "%=", "&=",
    "|=", "^=", "++", "--", "<<", ">>", "::",
];

/// The tokens of `source` from `start` to `end`.
pub(crate) fn tokens(source: &str, start: usize, end: usize) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
        } else if source[at..].starts_with("//") {
            at = source[at..].find('\n').map_or(end, |i| at + i);
        } else if source[at..].starts_with("/*") {
            at = block_comment_end(source, at).min(end);
        } else if is_word_byte(c) {
            let from = at;
            while at < end && is_word_byte(bytes[at]) {
                at += 1;
            }
            // A number's exponent sign or a decimal point stays in the word: `1e-3`, `1.5f`.
            out.push(Token {
                kind: TokenKind::Word,
                range: from..at,
            });
        } else if c == b'.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
            let from = at;
            at += 1;
            while at < end && is_word_byte(bytes[at]) {
                at += 1;
            }
            out.push(Token {
                kind: TokenKind::Word,
                range: from..at,
            });
        } else {
            let len = LONG
                .iter()
                .find(|p| source[at..end].starts_with(**p))
                .map_or_else(
                    || source[at..].chars().next().map_or(1, char::len_utf8),
                    |p| p.len(),
                );
            out.push(Token {
                kind: TokenKind::Punct,
                range: at..at + len,
            });
            at += len;
        }
    }
    out
}

/// Where the block comment starting at `at` ends (nested comments count).
fn block_comment_end(source: &str, at: usize) -> usize {
    let mut depth = 0;
    let mut i = at;
    while i < source.len() {
        if source[i..].starts_with("/*") {
            depth += 1;
            i += 2;
        } else if source[i..].starts_with("*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += source[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    source.len()
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str) -> Vec<&str> {
        tokens(source, 0, source.len())
            .into_iter()
            .map(|t| &source[t.range])
            .collect()
    }

    #[test]
    fn comments_are_skipped_and_operators_kept_whole() {
        assert_eq!(
            texts("a <<= b; // c { }\n/* d /* e */ } */ x++ != .5f"),
            ["a", "<<=", "b", ";", "x", "++", "!=", ".5f"]
        );
    }
}
