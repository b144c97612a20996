//! What a failed check reports: how many elements are wrong, and the first few of them.

use crate::init::ElementType;

/// Wrong elements a report lists before it stops.
pub const FIRST_FEW: usize = 4;

/// The wrong elements of a checked binding: their count, and the first `FIRST_FEW` with
/// what was read and what was expected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mismatches {
    pub wrong: usize,
    pub of: usize,
    /// (index, got, expected), words.
    pub first: Vec<(usize, u32, u32)>,
}

impl Mismatches {
    /// Compares `got` with `expected` element by element (the shorter length) with `equal`.
    pub fn find(got: &[u32], expected: &[u32], equal: impl Fn(u32, u32) -> bool) -> Mismatches {
        let mut m = Mismatches {
            of: got.len().min(expected.len()),
            ..Mismatches::default()
        };
        for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
            if !equal(g, e) {
                m.wrong += 1;
                if m.first.len() < FIRST_FEW {
                    m.first.push((i, g, e));
                }
            }
        }
        m
    }

    /// The same, the listed elements named `[index(k)]`: their place in the binding where
    /// a check reads a slice of it.
    pub fn at(mut self, index: impl Fn(usize) -> usize) -> Mismatches {
        for (k, _, _) in &mut self.first {
            *k = index(*k);
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.wrong == 0
    }

    /// "3 of 256 elements wrong: [4] = 9 (expected 5), [7] = 1 (expected 2), ..."
    pub fn describe(&self, ty: ElementType) -> String {
        let listed: Vec<String> = self
            .first
            .iter()
            .map(|&(i, g, e)| format!("[{i}] = {} (expected {})", ty.show(g), ty.show(e)))
            .collect();
        let more = if self.wrong > self.first.len() {
            ", ..."
        } else {
            ""
        };
        format!(
            "{} of {} wrong: {}{more}",
            self.wrong,
            wgstress_model::plural::count(self.of, "element", "elements"),
            listed.join(", ")
        )
    }
}
