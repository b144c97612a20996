//! Values missing and values extra: what a `permutation` check reports.

use super::mismatch::FIRST_FEW;
use crate::check::Of;
use crate::init::ElementType;

/// How the elements read differ, as a multiset, from the values of binding `of`: how many
/// of its values are missing and how many others came instead, the first few of each.
#[derive(Clone, Debug, PartialEq)]
pub struct NotPermutation {
    pub of: Of,
    pub missing: usize,
    pub extra: usize,
    /// The smallest `FIRST_FEW` missing values, and extra ones.
    pub first_missing: Vec<u32>,
    pub first_extra: Vec<u32>,
    pub ty: ElementType,
}

impl NotPermutation {
    /// How `got` differs from the multiset `expected`, if it does.
    pub fn find(got: &[u32], expected: &[u32], of: Of, ty: ElementType) -> Option<Self> {
        let mut got = got.to_vec();
        got.sort_unstable();
        let mut sorted = expected.to_vec();
        sorted.sort_unstable();
        let (mut missing, mut extra) = (Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < got.len() || j < sorted.len() {
            match (got.get(i), sorted.get(j)) {
                (Some(g), Some(e)) if g == e => (i, j) = (i + 1, j + 1),
                (Some(g), e) if e.is_none_or(|e| g < e) => {
                    extra.push(*g);
                    i += 1;
                }
                (_, Some(e)) => {
                    missing.push(*e);
                    j += 1;
                }
                (_, None) => unreachable!("the loop runs while one is left"),
            }
        }
        if missing.is_empty() && extra.is_empty() {
            return None;
        }
        let first = |v: &[u32]| v.iter().take(FIRST_FEW).copied().collect();
        Some(NotPermutation {
            of,
            missing: missing.len(),
            extra: extra.len(),
            first_missing: first(&missing),
            first_extra: first(&extra),
            ty,
        })
    }
}

impl std::fmt::Display for NotPermutation {
    /// "not a permutation of 0:1: 2 values missing (5, 7), 2 extra (1, 1)"
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let few = |first: &[u32], count: usize| {
            let listed: Vec<String> = first.iter().map(|w| self.ty.show(*w)).collect();
            let more = if count > first.len() { ", ..." } else { "" };
            format!("{}{more}", listed.join(", "))
        };
        let (group, binding) = self.of;
        write!(
            f,
            "not a permutation of {group}:{binding}: {} missing ({}), {} extra ({})",
            wgstress_model::plural::count(self.missing, "value", "values"),
            few(&self.first_missing, self.missing),
            self.extra,
            few(&self.first_extra, self.extra)
        )
    }
}
