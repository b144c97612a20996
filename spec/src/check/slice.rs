//! Which elements of a binding a check reads: all of them, the first `count`, a strided run
//! (`start`, `count`, `stride`), or the last one.

/// The elements `start`, `start + stride`, ... (`count` of them) of a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub start: u32,
    pub count: u32,
    pub stride: u32,
    /// Whether the slice is every element of the binding (reports then name no range).
    pub whole: bool,
}

/// How a check says what it reads, as written in the spec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub start: Option<u32>,
    pub count: Option<u32>,
    pub stride: Option<u32>,
    pub last: bool,
}

impl Selection {
    /// The slice of a binding of `words` words, or what is wrong with the selection.
    /// `first` is how many elements a check reads when the selection names no count (all
    /// that follow `start`, for most kinds).
    pub fn slice(&self, words: u32, first: Option<u32>) -> Result<Slice, String> {
        if words == 0 {
            return Err("the binding has no elements to check".into());
        }
        if self.last {
            if self.start.is_some() || self.count.is_some() || self.stride.is_some() {
                return Err(
                    "`last` checks one element: give no `start`, `count` or `stride`".into(),
                );
            }
            return Ok(Slice {
                start: words - 1,
                count: 1,
                stride: 1,
                whole: words == 1,
            });
        }
        let start = self.start.unwrap_or(0);
        let stride = self.stride.unwrap_or(1);
        if stride == 0 {
            return Err("`stride` must be at least 1".into());
        }
        if start >= words {
            return Err(format!(
                "`start` = {start} is past the binding's last element ({})",
                words - 1
            ));
        }
        let fit = (words - start).div_ceil(stride);
        let count = match self.count.or(first) {
            Some(0) => return Err("`count` must be at least 1".into()),
            Some(n) if self.count.is_some() && n > fit => {
                return Err(format!(
                    "{n} elements from {start} every {stride} pass the binding's {words} words (at most {fit})"
                ))
            }
            Some(n) => n.min(fit),
            None => fit,
        };
        Ok(Slice {
            start,
            count,
            stride,
            whole: start == 0 && stride == 1 && count == words,
        })
    }
}

impl Slice {
    /// The binding index of the slice's element `k`.
    pub fn index(&self, k: usize) -> usize {
        self.start as usize + k * self.stride as usize
    }

    /// The binding index one past the slice's last element.
    pub fn end(&self) -> usize {
        self.index(self.count as usize - 1) + 1
    }

    /// The slice's elements of `words` (those `words` has).
    pub fn take(&self, words: &[u32]) -> Vec<u32> {
        (0..self.count as usize)
            .map(|k| self.index(k))
            .take_while(|i| *i < words.len())
            .map(|i| words[i])
            .collect()
    }

    /// " [4..=60 step 4]", " [7]"; nothing for the whole binding.
    pub fn describe(&self) -> String {
        if self.whole {
            return String::new();
        }
        let last = self.end() - 1;
        match (self.count, self.stride) {
            (1, _) => format!(" [{last}]"),
            (_, 1) => format!(" [{}..={last}]", self.start),
            (_, stride) => format!(" [{}..={last} step {stride}]", self.start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(start: Option<u32>, count: Option<u32>, stride: Option<u32>) -> Selection {
        Selection {
            start,
            count,
            stride,
            last: false,
        }
    }

    #[test]
    fn slices_name_their_elements() {
        let all = Selection::default().slice(8, None).unwrap();
        assert!(all.whole);
        assert_eq!(all.take(&[0, 1, 2, 3, 4, 5, 6, 7]).len(), 8);
        let strided = select(Some(1), None, Some(3)).slice(8, None).unwrap();
        assert_eq!(strided.take(&[0, 1, 2, 3, 4, 5, 6, 7]), [1, 4, 7]);
        assert_eq!(strided.describe(), " [1..=7 step 3]");
        let last = Selection {
            last: true,
            ..Selection::default()
        };
        let last = last.slice(8, None).unwrap();
        assert_eq!(last.take(&[0, 1, 2, 3, 4, 5, 6, 9]), [9]);
        assert_eq!(last.describe(), " [7]");
        let first = select(None, None, None).slice(8, Some(1)).unwrap();
        assert_eq!(first.describe(), " [0]");
    }

    #[test]
    fn slices_past_the_binding_are_refused() {
        assert!(select(Some(8), None, None).slice(8, None).is_err());
        assert!(select(Some(2), Some(4), Some(2)).slice(8, None).is_err());
        assert!(select(Some(1), Some(4), Some(2)).slice(8, None).is_ok());
        assert!(select(None, Some(0), None).slice(8, None).is_err());
        assert!(select(None, None, Some(0)).slice(8, None).is_err());
        let last_and_start = Selection {
            last: true,
            start: Some(1),
            ..Selection::default()
        };
        assert!(last_and_start.slice(8, None).is_err());
    }
}
