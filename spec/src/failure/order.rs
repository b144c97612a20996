//! Neighbours out of order: what a `sorted` check reports.

use super::mismatch::FIRST_FEW;
use crate::init::ElementType;

/// The pairs of neighbours out of order as `ty`: how many of how many, and the first few.
#[derive(Clone, Debug, PartialEq)]
pub struct OutOfOrder {
    pub out: usize,
    pub pairs: usize,
    /// The first `FIRST_FEW` pairs, each as (binding index, word) of its two elements.
    pub first: Vec<[(usize, u32); 2]>,
    pub ty: ElementType,
}

impl OutOfOrder {
    /// The neighbours of `got` out of order as `ty`, if any; element k of `got` is element
    /// `index(k)` of the binding.
    pub fn find(got: &[u32], ty: ElementType, index: &dyn Fn(usize) -> usize) -> Option<Self> {
        let out: Vec<usize> = (1..got.len())
            .filter(|&i| !ty.in_order(got[i - 1], got[i]))
            .collect();
        if out.is_empty() {
            return None;
        }
        let first = out
            .iter()
            .take(FIRST_FEW)
            .map(|&i| [(index(i - 1), got[i - 1]), (index(i), got[i])])
            .collect();
        Some(OutOfOrder {
            out: out.len(),
            pairs: got.len().saturating_sub(1),
            first,
            ty,
        })
    }
}

impl std::fmt::Display for OutOfOrder {
    /// "2 of 255 pairs out of order: [4] = 9 > [5] = 5, ..."
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |(i, w): (usize, u32)| format!("[{i}] = {}", self.ty.show(w));
        let listed: Vec<String> = self
            .first
            .iter()
            .map(|&[before, after]| format!("{} > {}", show(before), show(after)))
            .collect();
        let more = if self.out > self.first.len() {
            ", ..."
        } else {
            ""
        };
        write!(
            f,
            "{} of {} out of order: {}{more}",
            self.out,
            wgstress_model::plural::count(self.pairs, "pair", "pairs"),
            listed.join(", ")
        )
    }
}
