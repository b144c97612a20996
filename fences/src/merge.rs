//! Several edits of one text made into one: a file whose entry points each got their own
//! source patch (each the original with its own edits) is patched once, with all of them.
//! Edits combine where they change different lines; the same edit made twice (a barrier in a
//! function both entry points call) counts once; different edits of the same lines, or
//! different insertions at one place, do not combine.

use similar::{DiffOp, TextDiff};

/// One edit: lines `start..end` of the original replaced by `lines`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Edit {
    start: usize,
    end: usize,
    lines: Vec<String>,
}

/// The edits that turn `original` into `edited`, by line.
fn edits(original: &str, edited: &str) -> Vec<Edit> {
    let diff = TextDiff::from_lines(original, edited);
    let new: Vec<&str> = diff.new_slices().to_vec();
    diff.ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (old, new_range) = (op.old_range(), op.new_range());
            Edit {
                start: old.start,
                end: old.end,
                lines: new[new_range].iter().map(|l| l.to_string()).collect(),
            }
        })
        .collect()
}

/// `original` with the edits of every text of `edited` made in it; none when two of them
/// change the same lines, or insert at one place, differently.
pub(crate) fn merge(original: &str, edited: &[&str]) -> Option<String> {
    let mut all: Vec<Edit> = edited.iter().flat_map(|e| edits(original, e)).collect();
    all.sort_by_key(|e| (e.start, e.end));
    all.dedup();
    for pair in all.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let overlap =
            b.start < a.end || (a.start == b.start && (a.start == a.end || b.start == b.end));
        if overlap {
            return None;
        }
    }
    let lines: Vec<&str> = TextDiff::from_lines(original, original)
        .old_slices()
        .to_vec();
    let mut out = String::with_capacity(original.len());
    let mut at = 0;
    for edit in &all {
        out.extend(lines[at..edit.start].iter().copied());
        out.extend(edit.lines.iter().map(String::as_str));
        at = edit.end;
    }
    out.extend(lines[at..].iter().copied());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::merge;

    const ORIGINAL: &str =
        "fn a() {\n    x = 1;\n}\nfn b() {\n    y = 1;\n}\nfn c() {\n    z = 1;\n}\n";

    #[test]
    fn edits_of_different_lines_combine_and_the_same_edit_counts_once() {
        let a = ORIGINAL.replace("    x = 1;\n", "    x = 1;\n    storageBarrier();\n");
        let b = ORIGINAL.replace("    y = 1;\n", "    storageBarrier();\n    y = 1;\n");
        let both = merge(ORIGINAL, &[&a, &b, &a]).unwrap();
        assert_eq!(both.matches("storageBarrier();").count(), 2, "{both}");
        assert!(both.contains(
            "    x = 1;\n    storageBarrier();\n}\nfn b() {\n    storageBarrier();\n    y = 1;\n"
        ));
        assert_eq!(merge(ORIGINAL, &[&a]).unwrap(), a);
        assert_eq!(merge(ORIGINAL, &[]).unwrap(), ORIGINAL);
    }

    #[test]
    fn different_edits_of_one_place_do_not_combine() {
        let a = ORIGINAL.replace("    z = 1;\n", "    z = 2;\n");
        let b = ORIGINAL.replace("    z = 1;\n", "    z = 3;\n");
        assert_eq!(merge(ORIGINAL, &[&a, &b]), None);
        let before = ORIGINAL.replace("    z = 1;\n", "    w = 0;\n    z = 1;\n");
        let other = ORIGINAL.replace("    z = 1;\n", "    v = 0;\n    z = 1;\n");
        assert_eq!(merge(ORIGINAL, &[&before, &other]), None);
    }
}
