//! The portable completion of an adapter-minimal set.

use super::{Added, Missing, Portable, Role, Roles};
use std::collections::BTreeSet;

impl Roles {
    /// `kept` completed: each pair a site of the set belongs to gets a barrier on its other
    /// side, where one can go. The sites added are not completed in turn: their other pairs
    /// are ones this adapter needed no barrier for at all.
    pub fn portable(&self, kept: &[u32]) -> Portable {
        let mut set: BTreeSet<u32> = kept.iter().copied().collect();
        let mut work: Vec<u32> = set.iter().rev().copied().collect();
        let (mut added, mut missing) = (Vec::new(), Vec::new());
        while let Some(site) = work.pop() {
            let Some(instances) = self.sides.get(site as usize) else {
                continue;
            };
            for (release, acquire) in instances {
                for (found, side) in [(release, Role::Acquire), (acquire, Role::Release)] {
                    let Some((_, _, windows)) = found else {
                        continue;
                    };
                    for &window in windows {
                        if self.covered(window, &set) {
                            continue;
                        }
                        match self.choose(window) {
                            Some(other) => {
                                set.insert(other);
                                added.push(Added {
                                    site: other,
                                    side,
                                    completes: site,
                                });
                            }
                            None => {
                                let (after, before) = (
                                    self.access_id(window.from).map(|a| self.place(a)),
                                    self.access_id(window.to).map(|a| self.place(a)),
                                );
                                if let (Some(after), Some(before)) = (after, before) {
                                    let entry = Missing {
                                        site,
                                        side,
                                        after,
                                        before,
                                    };
                                    if !missing.contains(&entry) {
                                        missing.push(entry);
                                    }
                                }
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
}
