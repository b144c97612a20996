//! Where a barrier serves a release or an acquire: the flag and data around a site, and the
//! windows of the trace on the other side of its pairs.

use super::trace::{Access, AccessKind, Event};
use super::Roles;
use std::collections::BTreeSet;

/// A window of the trace where one barrier serves: strictly between two events.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Window {
    pub from: usize,
    pub to: usize,
    /// The access whose function a site is preferred in (the flag's).
    pub prefer: usize,
}

/// At a site: the flag access's position, the data accesses' positions, and the windows on
/// the other side.
pub(super) type Sides = (usize, Vec<usize>, Vec<Window>);

/// The windows of at most this many instances of one flag access (a flag read in nested
/// loops appears in the trace once per unrolled round).
const FLAG_INSTANCES: usize = 2;

impl Roles {
    /// Whether event `i` and site position `p` can both happen in one run.
    pub(super) fn together(&self, i: usize, p: usize) -> bool {
        !self.trace.exclusive(i, p)
    }

    /// At site position `p`: the flag write after it, the data writes before it (last first),
    /// and the reading side's windows. Data are plain loads and stores (atomic or not): a
    /// read-modify-write or a compare-exchange is the use of a counter or a lock.
    pub(super) fn release_at(&self, p: usize) -> Option<Sides> {
        let flag = (p + 1..self.trace.events.len()).find(|&i| {
            self.together(i, p) && self.access(i).is_some_and(|a| a.atomic && a.writes())
        })?;
        let flag_access = self.access(flag)?;
        let data: Vec<usize> = (0..p)
            .rev()
            .filter(|&i| {
                self.together(i, p)
                    && self.access(i).is_some_and(|a| {
                        a.kind == AccessKind::Write && !self.trace.same_place(i, flag)
                    })
            })
            .collect();
        let windows = self.reading_windows(flag_access, &data);
        (!data.is_empty() && !windows.is_empty()).then_some((flag, data, windows))
    }

    /// At site position `p`: the flag read before it, the data reads after it (first first),
    /// and the writing side's windows.
    pub(super) fn acquire_at(&self, p: usize) -> Option<Sides> {
        let flag = (0..p).rev().find(|&i| {
            self.together(i, p) && self.access(i).is_some_and(|a| a.atomic && a.reads())
        })?;
        let flag_access = self.access(flag)?;
        let data: Vec<usize> = (p + 1..self.trace.events.len())
            .filter(|&i| {
                self.together(i, p)
                    && self.access(i).is_some_and(|a| {
                        a.kind == AccessKind::Read && !self.trace.same_place(flag, i)
                    })
            })
            .collect();
        let windows = self.writing_windows(flag_access, &data);
        (!data.is_empty() && !windows.is_empty()).then_some((flag, data, windows))
    }

    /// Each atomic read of `flag`'s location, to the first read after it of what `data`
    /// (positions of writes) wrote.
    pub(super) fn reading_windows(&self, flag: &Access, data: &[usize]) -> Vec<Window> {
        let data = self.distinct(data);
        let events = self.trace.events.len();
        let mut seen = std::collections::HashMap::new();
        (0..events)
            .filter(|&i| {
                self.access(i)
                    .is_some_and(|a| a.atomic && a.reads() && a.may_alias(flag))
                    && self.first_instances(&mut seen, i)
            })
            .filter_map(|i| {
                let to = (i + 1..events).find(|&j| {
                    self.together(j, i)
                        && !self.trace.same_place(i, j)
                        && self.access(j).is_some_and(|b| {
                            b.kind == AccessKind::Read && data.iter().any(|d| d.may_alias(b))
                        })
                })?;
                Some(Window {
                    from: i,
                    to,
                    prefer: self.access_id(i)?,
                })
            })
            .collect()
    }

    /// Each store or read-modify-write of `flag`'s location, from the last write before it
    /// of what `data` (positions of reads) reads.
    pub(super) fn writing_windows(&self, flag: &Access, data: &[usize]) -> Vec<Window> {
        let data = self.distinct(data);
        let mut seen = std::collections::HashMap::new();
        (0..self.trace.events.len())
            .filter(|&i| {
                self.access(i).is_some_and(|a| {
                    a.atomic
                        && matches!(a.kind, AccessKind::Write | AccessKind::Update)
                        && a.may_alias(flag)
                }) && self.first_instances(&mut seen, i)
            })
            .filter_map(|i| {
                let from = (0..i).rev().find(|&k| {
                    self.together(k, i)
                        && !self.trace.same_place(k, i)
                        && self.access(k).is_some_and(|b| {
                            b.kind == AccessKind::Write && data.iter().any(|d| d.may_alias(b))
                        })
                })?;
                Some(Window {
                    from,
                    to: i,
                    prefer: self.access_id(i)?,
                })
            })
            .collect()
    }

    /// The accesses at `positions`, each once.
    fn distinct(&self, positions: &[usize]) -> Vec<&Access> {
        let mut ids: Vec<usize> = positions
            .iter()
            .filter_map(|&p| self.access_id(p))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(|id| &self.trace.accesses[id]).collect()
    }

    /// Whether the access at `position` is among the first instances of its access.
    fn first_instances(
        &self,
        seen: &mut std::collections::HashMap<usize, usize>,
        position: usize,
    ) -> bool {
        let Some(id) = self.access_id(position) else {
            return false;
        };
        let count = seen.entry(id).or_insert(0);
        *count += 1;
        *count <= FLAG_INSTANCES
    }

    /// The positions strictly inside `window` on a run through both its ends.
    pub(super) fn inside(&self, window: Window) -> impl DoubleEndedIterator<Item = usize> + '_ {
        (window.from + 1..window.to)
            .filter(move |&i| self.together(i, window.from) && self.together(i, window.to))
    }

    /// The sites that can serve `window`, best first: those the text can take, then those in
    /// the flag's function, the latest first among equals. The first is the one the
    /// completion puts there; the rest, those the text can take, are its alternatives.
    pub(super) fn candidates(&self, window: Window) -> Vec<u32> {
        let function = &self.trace.accesses[window.prefer].function;
        let mut sites: Vec<u32> = Vec::new();
        for i in self.inside(window).rev() {
            if let Event::Site(id) = self.trace.events[i] {
                if !sites.contains(&id) {
                    sites.push(id);
                }
            }
        }
        let score = |id: &u32| {
            let i = *id as usize;
            (
                self.expressible.get(i).copied().unwrap_or(false),
                self.functions.get(i) == Some(function),
            )
        };
        // Stable: the latest first among sites of one score.
        sites.sort_by_key(|id| std::cmp::Reverse(score(id)));
        let mut sites = sites.into_iter();
        let first = sites.next();
        first
            .into_iter()
            .chain(sites.filter(|&id| score(&id).0))
            .collect()
    }

    /// The site to put in `window`: the first of its candidates.
    pub(super) fn choose(&self, window: Window) -> Option<u32> {
        self.candidates(window).first().copied()
    }

    /// Whether a barrier of the source, or a site of `set`, lies inside `window`.
    pub(super) fn covered(&self, window: Window, set: &BTreeSet<u32>) -> bool {
        self.inside(window).any(|i| match self.trace.events[i] {
            Event::Barrier => true,
            Event::Site(id) => set.contains(&id),
            Event::Access(_) | Event::Set(_) => false,
        })
    }
}
