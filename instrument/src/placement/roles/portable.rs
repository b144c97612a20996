//! The portable completion of an adapter-minimal set.

use super::windows::{Sides, Window};
use super::{Added, MissingPartner, Portable, Role, Roles};
use std::collections::{BTreeMap, BTreeSet};

/// A window's place in the trace: where a barrier's choice can be forced.
pub(crate) type WindowKey = (usize, usize);

/// A site of the set whose pairs the completion has still to look at: a kept site, or an
/// acquire the completion added.
#[derive(Clone, Copy)]
enum Pending {
    Kept(u32),
    Acquire(u32),
}

impl Roles {
    /// `kept` completed: each pair a site of the set belongs to gets a barrier on its other
    /// side, where one can go.
    ///
    /// A kept site is completed on both its sides, at every instance. An acquire the
    /// completion adds is completed in turn, on its acquire side: the fix relies on that
    /// barrier as an acquire, and as one it orders every flag read before it, each of which
    /// is only half fenced without the release of the flag's writer (ls-bh's acquire in
    /// summarize, added for the children build_tree publishes, follows a cell's ready flag
    /// too, whose writer needs a release before it stores the flag). Only the acquire the
    /// site's role names is taken, its first instance's: in a later round of a loop the
    /// latest atomic read before the site is often the previous round's data (summarize's
    /// reads of a child's sums), no flag.
    ///
    /// A release the completion adds is not completed in turn: its readers are of a message
    /// this adapter needed no barrier for on either side, and their acquires would grow the
    /// set with pairs nothing in it relies on (tpo-tm's release between the queue's slot
    /// stores and its tail store, a message the lock orders already, would take an acquire
    /// between the tail's read and the slot's read, inside one statement). So the closure
    /// ends after two steps.
    pub(crate) fn portable(&self, kept: &[u32]) -> Portable {
        self.portable_with(kept, &BTreeMap::new())
    }

    /// The portable completion of `kept` in the placements it may take: first the one
    /// `portable` gives, then, for each barrier it adds where another site of the same window
    /// would serve, the completion with that window's barrier moved there (and whatever the
    /// move changes: a window the new site covers too, an acquire's own pairs), none holding
    /// another's barriers and more, those of fewer barriers first; at most `limit`. Which is
    /// cheapest is the device's to say (a barrier run every round of a loop, or once after it).
    pub(crate) fn placements(&self, kept: &[u32], limit: usize) -> Vec<Portable> {
        let first = self.portable(kept);
        // One placement asked for (a minimal fix's report): no other is worked out.
        if limit <= 1 {
            return vec![first];
        }
        let mut others: Vec<Portable> = Vec::new();
        for added in &first.added {
            for &other in &added.alternatives {
                let forced = BTreeMap::from([(added.window, other)]);
                let moved = self.portable_with(kept, &forced);
                // A placement that holds another's barriers and more costs more.
                let holds = |p: &Portable| p.sites.iter().all(|s| moved.sites.contains(s));
                if !holds(&first) && !others.iter().any(holds) {
                    others.retain(|p| !moved.sites.iter().all(|s| p.sites.contains(s)));
                    others.push(moved);
                }
            }
        }
        // Stable: among sets of one size, the order of the analysis's preference.
        others.sort_by_key(|p| p.sites.len());
        std::iter::once(first)
            .chain(others)
            .take(limit.max(1))
            .collect()
    }

    /// `portable`, with the windows of `forced` given the site it names where it is one of
    /// their candidates.
    fn portable_with(&self, kept: &[u32], forced: &BTreeMap<WindowKey, u32>) -> Portable {
        let mut set: BTreeSet<u32> = kept.iter().copied().collect();
        let mut work: Vec<Pending> = set.iter().rev().map(|&s| Pending::Kept(s)).collect();
        let (mut added, mut missing) = (Vec::new(), Vec::new());
        while let Some(pending) = work.pop() {
            for (site, side, window) in self.pairs(pending) {
                if self.covered(window, &set) {
                    continue;
                }
                let key = (window.from, window.to);
                let candidates = self.candidates(window);
                let chosen = forced
                    .get(&key)
                    .filter(|f| candidates.contains(f))
                    .or(candidates.first())
                    .copied();
                match chosen {
                    Some(other) => {
                        set.insert(other);
                        added.push(Added {
                            site: other,
                            side,
                            completes: site,
                            alternatives: candidates.into_iter().filter(|&c| c != other).collect(),
                            window: key,
                        });
                        if side == Role::Acquire {
                            work.push(Pending::Acquire(other));
                        }
                    }
                    None => {
                        // One note per place: an added acquire's pair may be a kept site's.
                        if let Some(entry) = self.missing(site, side, window) {
                            let same = |m: &MissingPartner| {
                                (m.side, &m.after, &m.before) == (side, &entry.after, &entry.before)
                            };
                            if !missing.iter().any(same) {
                                missing.push(entry);
                            }
                        }
                    }
                }
            }
        }
        let mut needed: Vec<u32> = kept.to_vec();
        needed.sort_unstable();
        needed.dedup();
        Portable {
            sites: set.into_iter().collect(),
            needed,
            added,
            missing,
        }
    }

    /// The windows of the pairs of `pending` the completion looks at, each with the site and
    /// the side a barrier there takes.
    fn pairs(&self, pending: Pending) -> Vec<(u32, Role, Window)> {
        fn windows(site: u32, side: Role, found: Option<&Sides>) -> Vec<(u32, Role, Window)> {
            let windows = found.map_or(&[][..], |(_, _, w)| w.as_slice());
            windows.iter().map(|&w| (site, side, w)).collect()
        }
        match pending {
            Pending::Kept(site) => {
                let instances = self.sides.get(site as usize).map_or(&[][..], Vec::as_slice);
                instances
                    .iter()
                    .flat_map(|(release, acquire)| {
                        let mut both = windows(site, Role::Acquire, release.as_ref());
                        both.extend(windows(site, Role::Release, acquire.as_ref()));
                        both
                    })
                    .collect()
            }
            Pending::Acquire(site) => {
                let instances = self.sides.get(site as usize).map_or(&[][..], Vec::as_slice);
                let first = instances.iter().find_map(|(_, acquire)| acquire.as_ref());
                windows(site, Role::Release, first)
            }
        }
    }

    /// The note for `site`'s pair whose `side` has no site in `window`.
    fn missing(&self, site: u32, side: Role, window: Window) -> Option<MissingPartner> {
        Some(MissingPartner {
            site,
            side,
            after: self.place(self.access_id(window.from)?),
            before: self.place(self.access_id(window.to)?),
        })
    }
}
