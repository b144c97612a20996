//! A bound on how deeply a shader nests, checked on its text before naga sees it. naga's
//! parser and validator, wgpu's backends and wgstress's own passes recurse once per level of
//! the module they build: an else-if chain is an `if` nested in the last one's `else`, and
//! `a + a + ... + a` a left-deep tree of binary operations. A shader that nests past the
//! bound is refused at the place it crosses it; one within it fits the stack `main` gives the
//! work (src/main.rs), whatever else the shader holds.

use crate::error::{InstrumentError, Result};
use crate::wgsl::lines::LineIndex;

/// The deepest nesting a shader may have: brackets, else-if arms and operators within one
/// expression, counted as `depth` does. Hand-written shaders stay below a hundred; this
/// leaves generated ones room, costs at most about 32 MiB of stack in a debug build (about
/// 32 KiB a level, the else-if chain's cost), and keeps the passes whose time grows with the
/// square of the depth within seconds (a debug build instruments 1,000 arms in 6 s, 2,000 in 23).
pub const MAX_NESTING: usize = 1024;

/// The deepest brackets (`(`, `[`, `{`) may nest, within `MAX_NESTING`. naga's WGSL parser
/// recurses once for each nested expression and statement, and gives up at 200 levels with
/// an error that names neither place nor reason; each bracket nests one of them, and the
/// statement and expression around the outermost take a level or two: this keeps clear of
/// its bound, so that a shader is refused here, at its place, instead.
pub const MAX_BRACKETS: usize = 190;

/// Which bound a shader crossed.
#[derive(Debug, PartialEq)]
enum Bound {
    Nesting,
    Brackets,
}

/// One bracket's worth of the text, and what nests within it before it closes.
#[derive(Default)]
struct Frame {
    /// Operators since the last boundary (`,`, `;`, a brace): each nests its operand a level.
    operators: usize,
    /// `else if` arms of the chain under way here: each nests the next `if` a level.
    arms: usize,
    /// The last token was the `}` of a block opened here: the next decides whether an
    /// else-if chain goes on.
    after_block: bool,
}

/// Refuses `source` when it nests past `MAX_NESTING`, at `path`:line:column of the token that
/// crosses the bound.
pub fn check(source: &str, path: &str) -> Result<()> {
    match deepest(source, MAX_NESTING) {
        None => Ok(()),
        Some((offset, bound)) => {
            let (line, column) =
                LineIndex::new(source).position(naga::Span::new(offset as u32, offset as u32));
            let message = match bound {
                Bound::Nesting => format!(
                    "the shader nests more than {MAX_NESTING} levels deep here (brackets, \
                     else-if arms and operators of one expression, each a level of the module \
                     naga builds): split the expression or the chain"
                ),
                Bound::Brackets => format!(
                    "brackets nest more than {MAX_BRACKETS} deep here (naga's WGSL parser \
                     refuses past 200 levels of nested expressions and statements): name a \
                     part with `let`, or call a function"
                ),
            };
            // Built here rather than by shader.rs, which calls this: no cycle between them.
            Err(InstrumentError::Shader {
                summary: format!("{path}:{line}:{column}: {message}"),
                line: Some(line),
                column: Some(column),
            })
        }
    }
}

/// The byte offset of the first token at which `source` nests deeper than `limit`, or its
/// brackets deeper than `MAX_BRACKETS`, if any, and which it crossed.
fn deepest(source: &str, limit: usize) -> Option<(usize, Bound)> {
    let bytes = source.as_bytes();
    let mut stack = vec![Frame::default()];
    let mut i = 0;
    // The word before this token, to see `else if`.
    let mut after_else = false;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if bytes[i..].starts_with(b"//") {
            i = memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            continue;
        }
        if bytes[i..].starts_with(b"/*") {
            i = block_comment_end(bytes, i);
            continue;
        }
        let top = stack
            .last_mut()
            .expect("the outermost frame is never closed");
        let block_closed = std::mem::take(&mut top.after_block);
        if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            // A word or a number (with its `.` and exponent sign: `1.5e-3`).
            let number = c.is_ascii_digit();
            while i < bytes.len() {
                let d = bytes[i];
                let part = d.is_ascii_alphanumeric()
                    || d == b'_'
                    || d >= 0x80
                    || (number && (d == b'.' || ((d == b'-' || d == b'+') && exponent(bytes, i))));
                if !part {
                    break;
                }
                i += 1;
            }
            let word = &bytes[start..i];
            if block_closed && word != b"else" {
                top.arms = 0;
            }
            if word == b"if" && after_else {
                top.arms += 1;
            }
            after_else = word == b"else";
        } else {
            after_else = false;
            if block_closed {
                top.arms = 0;
            }
            i += 1;
            match c {
                b'(' | b'[' | b'{' => {
                    if c == b'{' {
                        top.operators = 0;
                    }
                    stack.push(Frame::default());
                    if stack.len() - 1 > MAX_BRACKETS {
                        return Some((start, Bound::Brackets));
                    }
                }
                b')' | b']' | b'}' => {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                    if c == b'}' {
                        let top = stack.last_mut().expect("kept");
                        top.operators = 0;
                        top.after_block = true;
                    }
                }
                b',' | b';' => {
                    top.operators = 0;
                    if c == b';' {
                        top.arms = 0;
                    }
                }
                b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'!' | b'~' | b'<'
                | b'>' | b'=' | b'.' => top.operators += 1,
                _ => {}
            }
        }
        if depth(&stack) > limit {
            return Some((start, Bound::Nesting));
        }
    }
    None
}

/// How deep the module nests at this point of the text: each open bracket, each else-if arm
/// and each operator of the expressions under way.
fn depth(stack: &[Frame]) -> usize {
    stack
        .iter()
        .map(|f| 1 + f.operators + f.arms)
        .sum::<usize>()
        - 1
}

/// Whether the `-` or `+` at `i` is a number's exponent sign (`1e-3`), not an operator.
fn exponent(bytes: &[u8], i: usize) -> bool {
    i > 0 && matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P')
}

fn memchr(byte: u8, bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == byte)
}

/// The offset just past the block comment opening at `i` (WGSL's nest).
fn block_comment_end(bytes: &[u8], mut i: usize) -> usize {
    let mut open = 0usize;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"/*") {
            open += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"*/") {
            open -= 1;
            i += 2;
            if open == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(arms: usize) -> String {
        let mut s = String::from("fn f(x: u32) -> u32 {\n  if x == 0u { return 0u; }");
        for i in 1..arms {
            s.push_str(&format!(" else if x == {i}u {{ return {i}u; }}"));
        }
        s.push_str("\n  return 1u;\n}\n");
        s
    }

    fn sum(terms: usize) -> String {
        format!(
            "fn f(x: u32) -> u32 {{\n  return {};\n}}\n",
            vec!["x"; terms].join(" + ")
        )
    }

    #[test]
    fn an_else_if_chain_nests_an_arm_a_level() {
        assert_eq!(deepest(&chain(100), 150), None);
        let text = chain(200);
        let (at, _) = deepest(&text, 150).expect("200 arms nest past 150");
        let arms = text[..at].matches("else if").count();
        assert!((140..=150).contains(&arms), "crossed after {arms} arms");
    }

    #[test]
    fn separate_ifs_do_not_add_up() {
        let mut s = String::from("fn f(x: u32) {\n");
        for i in 0..500 {
            s.push_str(&format!("  if x == {i}u {{ }} else if x == 1u {{ }}\n"));
        }
        s.push_str("}\n");
        assert_eq!(deepest(&s, 10), None);
    }

    #[test]
    fn an_expression_nests_an_operator_a_level_and_arguments_do_not_add_up() {
        assert_eq!(deepest(&sum(100), 150), None);
        assert!(deepest(&sum(200), 150).is_some());
        let args = vec!["x + 1u"; 500].join(", ");
        assert_eq!(deepest(&format!("fn f() {{ g({args}); }}"), 10), None);
    }

    #[test]
    fn brackets_nest_and_comments_and_numbers_do_not() {
        let parens = format!("{}x{}", "(".repeat(60), ")".repeat(60));
        assert!(deepest(&parens, 50).is_some());
        assert_eq!(deepest(&parens, 70), None);
        let commented = format!(
            "// {}\n/* {} /* */ */ let x = 1.5e-3;",
            "(".repeat(99),
            "-".repeat(99)
        );
        assert_eq!(deepest(&commented, 5), None);
    }

    #[test]
    fn brackets_past_what_naga_parses_are_refused_at_their_place() {
        let parens = |n: usize| {
            format!(
                "fn f(x: u32) -> u32 {{\n  return {}x{};\n}}\n",
                "(".repeat(n),
                ")".repeat(n)
            )
        };
        // Within the bound, naga parses it; past it, it is refused before naga sees it.
        let fits = parens(MAX_BRACKETS - 1);
        assert_eq!(deepest(&fits, MAX_NESTING), None);
        naga::front::wgsl::parse_str(&fits).expect("naga parses what the bound lets through");
        let error = check(&parens(198), "deep.wgsl").unwrap_err().to_string();
        assert!(error.starts_with("deep.wgsl:2:"), "{error}");
        assert!(
            error.contains("brackets nest more than 190 deep"),
            "{error}"
        );
    }

    #[test]
    fn the_error_names_the_place() {
        let error = check(&sum(MAX_NESTING + 10), "deep.wgsl")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("deep.wgsl:2:"), "{error}");
        assert!(error.contains("more than 1024 levels"), "{error}");
    }
}
