//! The nofence variant's source: the buggy variant with its fence sites removed, so that
//! `wgstress fences` must find the fences itself rather than read them off `if FENCES` blocks.
//!
//! The rule, over the source text (comments excepted):
//! - `if FENCES { storageBarrier(); }` is deleted, with its line where it fills the line;
//! - `if FENCES { storageBarrier(); } else { workgroupBarrier(); }` becomes
//!   `workgroupBarrier();`, the branch the buggy variant (FENCES = false) takes;
//! - any other `if FENCES` is an error: the rule would not keep the buggy variant's behaviour.
//!
//! What is removed leaves its line breaks behind (empty lines), so every other line keeps its
//! number and the locations wgstress reports point into the file the app names.
//!
//! The `override FENCES` declaration stays, unused, so the pipeline constant still names it.

use std::fmt;

/// An `if FENCES` the rule does not cover, at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unrecognized {
    pub(crate) line: usize,
}

impl fmt::Display for Unrecognized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: `if FENCES` guards something other than `{{ storageBarrier(); }}` \
             (optionally `else {{ workgroupBarrier(); }}`)",
            self.line
        )
    }
}

impl std::error::Error for Unrecognized {}

const GUARD: &str = "if FENCES";
const FENCED: [&str; 6] = ["{", "storageBarrier", "(", ")", ";", "}"];
const OTHERWISE: [&str; 7] = ["else", "{", "workgroupBarrier", "(", ")", ";", "}"];

/// `source` with every FENCES guard reduced as the module documentation says.
pub(crate) fn strip_fences(source: &str) -> Result<String, Unrecognized> {
    let mut out = String::with_capacity(source.len());
    let mut rest = 0;
    while let Some(start) = next_guard(source, rest) {
        let line = source[..start].matches('\n').count() + 1;
        let after_fenced =
            tokens(source, start + GUARD.len(), &FENCED).ok_or(Unrecognized { line })?;
        match tokens(source, after_fenced, &OTHERWISE) {
            Some(end) => {
                out.push_str(&source[rest..start]);
                out.push_str("workgroupBarrier();");
                out.push_str(&line_breaks(&source[start..end]));
                rest = end;
            }
            None if tokens(source, after_fenced, &["else"]).is_some() => {
                return Err(Unrecognized { line });
            }
            None => {
                let (from, to) = whole_lines(source, start, after_fenced);
                out.push_str(&source[rest..from]);
                out.push_str(&line_breaks(&source[from..to]));
                rest = to;
            }
        }
    }
    out.push_str(&source[rest..]);
    Ok(out)
}

/// The byte offset of the next `if FENCES` at or after `from` outside a line comment.
fn next_guard(source: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = source[at..].find(GUARD) {
        let start = at + found;
        let end = start + GUARD.len();
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let in_comment = source[line_start..start].contains("//");
        let whole_word = !source[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            && !source[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if whole_word && !in_comment {
            return Some(start);
        }
        at = end;
    }
    None
}

/// Where `expected` ends, read from `at` with whitespace between the tokens; `None` if the
/// text differs.
fn tokens(source: &str, mut at: usize, expected: &[&str]) -> Option<usize> {
    for token in expected {
        at += source[at..].len() - source[at..].trim_start().len();
        if !source[at..].starts_with(token) {
            return None;
        }
        at += token.len();
    }
    Some(at)
}

/// As many line breaks as `removed` held.
fn line_breaks(removed: &str) -> String {
    "\n".repeat(removed.matches('\n').count())
}

/// `start..end` widened to its whole lines (with the newline) when only whitespace shares
/// them, so deleting a guard leaves no indentation behind.
fn whole_lines(source: &str, start: usize, end: usize) -> (usize, usize) {
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    let before_blank = source[line_start..start].trim().is_empty();
    let after_blank = source[end..line_end].trim().is_empty();
    if before_blank && after_blank {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_storage_barrier_is_deleted_with_its_lines() {
        let source =
            "fn f() {\n    a();\n    if FENCES {\n        storageBarrier();\n    }\n    b();\n}\n";
        assert_eq!(
            strip_fences(source).unwrap(),
            "fn f() {\n    a();\n\n\n\n    b();\n}\n"
        );
    }

    #[test]
    fn the_else_branch_is_kept() {
        let source = "fn fence() {\n    if FENCES {\n        storageBarrier();\n    } else {\n        workgroupBarrier();\n    }\n}\n";
        assert_eq!(
            strip_fences(source).unwrap(),
            "fn fence() {\n    workgroupBarrier();\n\n\n\n\n}\n"
        );
    }

    #[test]
    fn a_guard_sharing_its_line_is_cut_out_alone() {
        let source = "a(); if FENCES { storageBarrier(); } b();";
        assert_eq!(strip_fences(source).unwrap(), "a();  b();");
    }

    #[test]
    fn comments_and_longer_names_are_left_alone() {
        let source = "// if FENCES { storageBarrier(); }\nif FENCES_X { storageBarrier(); }\n";
        assert_eq!(strip_fences(source).unwrap(), source);
    }

    #[test]
    fn any_other_else_is_refused() {
        let source = "if FENCES { storageBarrier(); } else { f(); }";
        assert_eq!(strip_fences(source), Err(Unrecognized { line: 1 }));
    }

    #[test]
    fn any_other_guard_is_refused_with_its_line() {
        let source = "fn f() {\n    if FENCES {\n        workgroupBarrier();\n    }\n}\n";
        assert_eq!(strip_fences(source), Err(Unrecognized { line: 2 }));
    }
}
