//! Release and acquire: what each site's barrier orders, and the sites on the other side of
//! the same flag, lock or counter.
//!
//! Message passing between workgroups needs a barrier on each side: the writer's between
//! its data writes and its store (or read-modify-write) of the flag (a *release*), the
//! reader's between its read of the flag and its data reads (an *acquire*). Over the trace
//! of the entry point (trace.rs), a site is
//! - a release when it follows storage writes and its next atomic write (the flag) is read
//!   somewhere in the shader, by an atomic read that some read of the data it follows
//!   comes after: the reading side of the pair;
//! - an acquire when it follows an atomic read (the flag) and precedes storage reads, and
//!   the flag is written somewhere (a store or read-modify-write, a compare-exchange being
//!   the taking of a lock rather than a publication) after a write of that data: the
//!   writing side;
//! - both, or none.
//!
//! The other side of a pair is a window of the trace, from the flag's read to the first
//! data read after it (or from the last data write to the flag's write); any site inside it
//! serves, and the one chosen is the latest (nearest the data read, or the flag's write),
//! preferring sites the text can take and sites in the function that reads or writes the
//! flag (a barrier in a lock's function serves every call of it). A window with a barrier in
//! it already (the source's own, or a site of the set) needs none; one with no site at all
//! is a pair whose other side has no legal place for a barrier.

mod access;
mod portable;
mod trace;
mod windows;

use crate::error::ShaderLocation;
use std::collections::BTreeSet;
use trace::{Access, Event, Trace};

/// The instances of one site the pairing looks at (a site in nested loops or in a function
/// called from several places appears once per unrolled round and call).
const SITE_INSTANCES: usize = 4;

/// What a site's barrier orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    None,
    Release,
    Acquire,
    Both,
}

/// An access as the user wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceAccess {
    /// The place accessed, as written (`flags[part]`).
    pub text: String,
    pub at: ShaderLocation,
}

/// A release: the write it publishes, and the flag write it publishes it through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub publishes: SourceAccess,
    pub flag: SourceAccess,
}

/// An acquire: the flag read it follows, and the read it guards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acquire {
    pub flag: SourceAccess,
    pub guards: SourceAccess,
}

impl std::fmt::Display for SourceAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` at {}", self.text, self.at)
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "release: publishes the write of {} through {}",
            self.publishes, self.flag
        )
    }
}

impl std::fmt::Display for Acquire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "acquire: after the read of {}, guards the read of {}",
            self.flag, self.guards
        )
    }
}

/// A site's role, what it orders, and the sites on the other side of its pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteRole {
    pub role: Role,
    pub release: Option<Release>,
    pub acquire: Option<Acquire>,
    /// For a release, the acquire sites of its pairs; for an acquire, the release sites.
    pub counterparts: Vec<u32>,
}

/// A site the portable set adds: the other side of a pair of `completes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Added {
    pub site: u32,
    /// `Acquire` or `Release`: the side it takes.
    pub side: Role,
    pub completes: u32,
    /// Other sites of the same window that the text can take, which would serve as well:
    /// a barrier can be moved there, at another cost.
    pub alternatives: Vec<u32>,
    /// The window in the trace (first and last event, exclusive).
    pub(crate) window: portable::WindowKey,
}

/// A pair whose other side has no site: `site`'s partner would go between `after` and
/// `before`, where WGSL allows no barrier (a non-uniform loop or branch, a callee called in
/// non-uniform control flow).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingPartner {
    pub site: u32,
    /// The side that has no site: `Acquire` or `Release`.
    pub side: Role,
    pub after: SourceAccess,
    pub before: SourceAccess,
}

/// The adapter-minimal set completed: every pair with a barrier on each side where one can go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Portable {
    /// The portable set, in site order.
    pub sites: Vec<u32>,
    /// The adapter-minimal set it started from: what this adapter needed.
    pub needed: Vec<u32>,
    pub added: Vec<Added>,
    pub missing: Vec<MissingPartner>,
}

/// The roles of an entry point's sites.
pub(crate) struct Roles {
    trace: Trace,
    /// Each site's positions in the trace.
    instances: Vec<Vec<usize>>,
    /// Each site's function, and whether the text can take it.
    functions: Vec<String>,
    expressible: Vec<bool>,
    /// For each site, each instance's release and acquire sides, if it has them.
    sides: Vec<Vec<(Option<windows::Sides>, Option<windows::Sides>)>>,
    pub sites: Vec<SiteRole>,
}

impl Roles {
    pub(crate) fn new(
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        marked: &super::patch::Marked,
        source: &str,
        file: &str,
        expressible: Vec<bool>,
    ) -> Roles {
        let trace = trace::trace(module, info, marked.entry, marked.marker, source, file);
        let count = marked.sites.len();
        let mut instances = vec![Vec::new(); count];
        for (position, event) in trace.events.iter().enumerate() {
            if let Event::Site(id) = event {
                if let Some(list) = instances.get_mut(*id as usize) {
                    if list.len() < SITE_INSTANCES {
                        list.push(position);
                    }
                }
            }
        }
        let functions = marked.sites.iter().map(|s| s.function.clone()).collect();
        let mut roles = Roles {
            trace,
            instances,
            functions,
            expressible,
            sides: Vec::new(),
            sites: Vec::new(),
        };
        roles.sides = roles
            .instances
            .iter()
            .map(|positions| {
                let sides = positions
                    .iter()
                    .map(|&p| (roles.release_at(p), roles.acquire_at(p)));
                sides.collect()
            })
            .collect();
        roles.sites = (0..count as u32).map(|id| roles.role_of(id)).collect();
        roles.other_sides();
        roles
    }

    /// Gives each site chosen for the other side of a pair that side's role, and makes
    /// counterparts mutual: a site a release's pair needs is an acquire for that pair even
    /// where its own accesses say otherwise (steal's barrier after reading the top of a
    /// deque that only compare-exchanges write).
    fn other_sides(&mut self) {
        let mut found = Vec::new();
        for (id, role) in self.sites.iter().enumerate() {
            for &p in &self.instances[id] {
                let sides = [
                    (
                        self.release_at(p).filter(|_| role.release.is_some()),
                        Role::Acquire,
                    ),
                    (
                        self.acquire_at(p).filter(|_| role.acquire.is_some()),
                        Role::Release,
                    ),
                ];
                for (windows, side) in sides {
                    for window in windows.map_or(Vec::new(), |(_, _, w)| w) {
                        if let Some(other) = self.choose(window).filter(|o| *o as usize != id) {
                            found.push((id as u32, other, side, window));
                        }
                    }
                }
            }
        }
        for (id, other, side, window) in found {
            let (from, to) = (self.access_id(window.from), self.access_id(window.to));
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            let (from, to) = (self.place(from), self.place(to));
            let entry = &mut self.sites[other as usize];
            match side {
                Role::Acquire if entry.acquire.is_none() => {
                    entry.acquire = Some(Acquire {
                        flag: from,
                        guards: to,
                    })
                }
                Role::Release if entry.release.is_none() => {
                    entry.release = Some(Release {
                        publishes: from,
                        flag: to,
                    })
                }
                _ => {}
            }
            entry.role = role_of(entry.release.is_some(), entry.acquire.is_some());
            if !entry.counterparts.contains(&id) {
                entry.counterparts.push(id);
                entry.counterparts.sort_unstable();
            }
        }
    }

    fn place(&self, access: usize) -> SourceAccess {
        let a = &self.trace.accesses[access];
        SourceAccess {
            text: a.text.clone(),
            at: a.at.clone(),
        }
    }

    fn access(&self, position: usize) -> Option<&Access> {
        match self.trace.events[position] {
            Event::Access(a) => Some(&self.trace.accesses[a]),
            _ => None,
        }
    }

    fn access_id(&self, position: usize) -> Option<usize> {
        match self.trace.events[position] {
            Event::Access(a) => Some(a),
            _ => None,
        }
    }

    fn role_of(&self, id: u32) -> SiteRole {
        let sides = &self.sides[id as usize];
        let release = sides.iter().find_map(|(r, _)| r.clone());
        let acquire = sides.iter().find_map(|(_, a)| a.clone());
        let mut counterparts = BTreeSet::new();
        for (_, _, windows) in release.iter().chain(acquire.iter()) {
            counterparts.extend(windows.iter().filter_map(|w| self.choose(*w)));
        }
        counterparts.remove(&id);
        let role = role_of(release.is_some(), acquire.is_some());
        let access = |p: usize| self.access_id(p).map(|a| self.place(a));
        SiteRole {
            role,
            release: release.and_then(|(flag, data, _)| {
                Some(Release {
                    publishes: access(*data.first()?)?,
                    flag: access(flag)?,
                })
            }),
            acquire: acquire.and_then(|(flag, data, _)| {
                Some(Acquire {
                    flag: access(flag)?,
                    guards: access(*data.first()?)?,
                })
            }),
            counterparts: counterparts.into_iter().collect(),
        }
    }
}

fn role_of(release: bool, acquire: bool) -> Role {
    match (release, acquire) {
        (true, true) => Role::Both,
        (true, false) => Role::Release,
        (false, true) => Role::Acquire,
        (false, false) => Role::None,
    }
}
