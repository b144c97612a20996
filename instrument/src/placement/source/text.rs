//! Lines, indentation and edits of the user's text.

use super::refusal::{Refusal, Why};
use std::ops::Range;

/// The offset where the line holding `offset` starts.
pub(crate) fn line_start(source: &str, offset: usize) -> usize {
    source[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// Whether only white space precedes `offset` on its line.
pub(crate) fn starts_line(source: &str, offset: usize) -> bool {
    source[line_start(source, offset)..offset].trim().is_empty()
}

/// The white space that starts the line holding `offset`.
pub(crate) fn indentation(source: &str, offset: usize) -> String {
    let line = &source[line_start(source, offset)..];
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// When only white space or a line comment follows `offset` on its line, where the next
/// line starts.
pub(crate) fn line_end_is_blank(source: &str, offset: usize) -> Option<usize> {
    let end = source[offset..].find('\n').map(|i| offset + i)?;
    let rest = source[offset..end].trim();
    (rest.is_empty() || rest.starts_with("//")).then_some(end + 1)
}

/// `range` widened to whole lines when nothing else shares them, or to the comment that
/// follows it on its line: what deleting a statement removes.
pub(crate) fn whole_lines(source: &str, range: Range<usize>) -> Range<usize> {
    let Some(next) = line_end_is_blank(source, range.end) else {
        return range;
    };
    let comment = source[range.end..next].find("//").map(|i| range.end + i);
    match (starts_line(source, range.start), comment) {
        (true, None) => line_start(source, range.start)..next,
        (_, Some(comment)) => range.start..comment,
        (false, None) => range,
    }
}

/// One replacement of the user's text; an insertion when `range` is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub range: Range<usize>,
    pub text: String,
    /// Among insertions at one offset, lower first: barriers go before what a split
    /// declares ahead of its `if`, as in the IR (a barrier before a statement precedes the
    /// evaluation of its operands).
    pub order: u8,
}

impl Edit {
    pub(crate) fn insert(offset: usize, text: String, order: u8) -> Edit {
        Edit {
            range: offset..offset,
            text,
            order,
        }
    }

    pub(crate) fn replace(range: Range<usize>, text: String) -> Edit {
        Edit {
            range,
            text,
            order: 0,
        }
    }
}

/// `source` with `edits` made; refused when two overlap. Identical insertions at one offset
/// count once (two sites whose barriers land on one boundary).
pub(crate) fn apply(source: &str, mut edits: Vec<Edit>) -> Result<String, Refusal> {
    edits.sort_by_key(|e| (e.range.start, e.range.end, e.order));
    edits.dedup();
    for pair in edits.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let overlap = if a.range.is_empty() {
            false
        } else {
            b.range.start < a.range.end
        };
        if overlap {
            return Err(Refusal::at(b.range.start, Why::Overlap));
        }
    }
    let mut out = String::with_capacity(source.len() + 64 * edits.len());
    let mut at = 0;
    for edit in &edits {
        out.push_str(&source[at..edit.range.start]);
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// The text of `range` with the edits that lie inside it made (each marked used).
pub(crate) fn rewrite(source: &str, range: Range<usize>, edits: &mut [(Edit, bool)]) -> String {
    let mut inner: Vec<&mut (Edit, bool)> = edits
        .iter_mut()
        .filter(|(e, used)| !used && range.start <= e.range.start && e.range.end <= range.end)
        .collect();
    inner.sort_by_key(|(e, _)| e.range.start);
    let mut out = String::new();
    let mut at = range.start;
    for entry in inner {
        if entry.0.range.start < at {
            continue;
        }
        out.push_str(&source[at..entry.0.range.start]);
        out.push_str(&entry.0.text);
        at = entry.0.range.end;
        entry.1 = true;
    }
    out.push_str(&source[at..range.end]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_and_replacements_apply_in_order() {
        let source = "a;\n  b;\nc;\n";
        let edits = vec![
            Edit::insert(3, "  x;\n".into(), 1),
            Edit::insert(3, "  y;\n".into(), 0),
            Edit::replace(whole_lines(source, 5..7), String::new()),
        ];
        assert_eq!(apply(source, edits).unwrap(), "a;\n  y;\n  x;\nc;\n");
        assert_eq!(indentation(source, 5), "  ");
        assert!(starts_line(source, 5) && !starts_line(source, 6));
        assert_eq!(line_end_is_blank("a; // c\nb", 2), Some(8));
    }

    #[test]
    fn overlapping_replacements_are_refused() {
        let edits = vec![
            Edit::replace(0..4, "x".into()),
            Edit::replace(2..6, "y".into()),
        ];
        assert!(apply("abcdefgh", edits).is_err());
    }
}
