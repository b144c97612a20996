//! The declarations a split of a branch carries across its boundary: those before it that a
//! statement after it uses. The anchor of a split site names them (locate.rs), and the split
//! moves them before the `if` (split.rs).

use crate::wgsl::outline::{mentions, Block, Decl, StmtKind};

/// The declarations among `inner`'s statements up to `before` whose names a statement from
/// `after` on uses.
pub(crate) fn crossing(source: &str, inner: &Block, before: usize, after: usize) -> Vec<String> {
    crossing_decls(source, inner, before, after)
        .into_iter()
        .map(|(_, d)| d.name.clone())
        .collect()
}

pub(crate) fn crossing_decls<'b>(
    source: &str,
    inner: &'b Block,
    before: usize,
    after: usize,
) -> Vec<(usize, &'b Decl)> {
    let later = &inner.statements[after..];
    inner.statements[..=before]
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.kind {
            StmtKind::Decl(d) => Some((i, d)),
            _ => None,
        })
        .filter(|(_, d)| {
            later
                .iter()
                .any(|s| mentions(&source[s.range.clone()], &d.name))
        })
        .collect()
}
