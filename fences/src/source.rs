//! The application's shaders as the search sees them, without a device. A *part* is a
//! stressed dispatch's shader file and entry point (a single kernel has one); each part has its
//! candidate sites, numbered one after the other over the parts, so one search covers every
//! part of a pipeline.
//!
//! Each part is parsed once, when the search starts (`AppSource::new`), and its sites placed
//! once for each set of variables made atomic (`AppSource::tables`): a trial is an edit of
//! that module (`AppSource::edited`), instrumented as it is. Text is written only for what a
//! user sees or a raw run needs: the fix reported and its patches (`patch`,
//! `SiteTables::analyses`), and the variants the cost step times.

use crate::error::{FenceError, Result};
use crate::lab::FixSet;
use crate::rewrite::{PartText, Rewrite};
use crate::shrink::callees_first;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wgstress_instrument::atomic::AtomicError;
use wgstress_instrument::placement::{
    Analysis, FenceSite, FencedShader, InLoop, ParsedShader, Role, SiteTable,
};
use wgstress_instrument::{EditedShader, ShaderLocation};
use wgstress_model::fences::outcome::KeptRole;

/// A stressed dispatch's shader file and entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub path: String,
    pub source: String,
    pub entry: Option<String>,
    /// The postcondition entry point in this file, which is not the application's.
    pub postcondition: Option<String>,
}

/// The application the search patches, as its parts.
#[derive(Clone)]
pub struct AppSource {
    pub parts: Vec<Part>,
    /// Whether the application is a pipeline of dispatches (its fix may change several files).
    pipeline: bool,
    /// Each part as parsed, once.
    parsed: Vec<ParsedShader>,
    /// The site tables of each set of variables made atomic tried so far.
    tables: Arc<Mutex<HashMap<Vec<String>, Arc<SiteTables>>>>,
}

/// A site by its part and its number within the part. A fix numbers its sites over all the
/// parts (`FixSet::sites`); `SiteTables` is the one place that maps between the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SiteId {
    pub part: usize,
    pub local: u32,
}

/// Every part's sites with one set of variables made atomic.
pub struct SiteTables {
    /// Each part's, with those of the set it has made atomic.
    parts: Vec<SiteTable>,
    /// The global number of each part's first site.
    offsets: Vec<usize>,
    /// Every site in the order ddmin should prefer them (`SiteTables::order`).
    order: Vec<usize>,
    /// Each part's analysis, made once with the tables: the order and the fix suggested
    /// both read it.
    analyses: Vec<std::result::Result<Analysis, AtomicError>>,
}

impl SiteTables {
    /// Sites over all parts.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|t| t.sites().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The site a global number names; none past the last.
    pub fn id(&self, global: usize) -> Option<SiteId> {
        let part = self.offsets.iter().rposition(|&o| o <= global)?;
        let local = global - self.offsets[part];
        (local < self.parts[part].sites().len()).then_some(SiteId {
            part,
            local: local as u32,
        })
    }

    /// The global number of a part's site.
    pub fn global(&self, id: SiteId) -> usize {
        self.offsets[id.part] + id.local as usize
    }

    /// `sites` (global numbers) split by part, numbered within each; numbers past the last
    /// site are an error.
    pub fn by_part(&self, sites: &[usize]) -> Result<Vec<Vec<u32>>> {
        let mut parts = vec![Vec::new(); self.parts.len()];
        for &site in sites {
            let id = self.id(site).ok_or_else(|| {
                FenceError::Instrument(wgstress_instrument::InstrumentError::NoSuchFenceSite {
                    site: site as u32,
                    sites: self.len(),
                })
            })?;
            parts[id.part].push(id.local);
        }
        Ok(parts)
    }

    /// Every site of every part, in the order of their global numbers.
    pub fn sites(&self) -> Vec<PartSite> {
        self.parts
            .iter()
            .enumerate()
            .flat_map(|(part, t)| {
                t.sites().iter().map(move |site| PartSite {
                    part,
                    site: site.clone(),
                })
            })
            .collect()
    }

    /// The sites in the order ddmin should prefer them (and a first round guesses them):
    /// first those the analysis gives a role, a release or an acquire of a pair it found,
    /// then those it gives none, which order nothing it can see (asked first, such as
    /// global-barrier's occupancy discovery, they cost a first round trials before the
    /// barrier's release); within each, by part, callees first. A part whose
    /// analysis fails keeps its sites among the first. Computed once, with the tables.
    pub(crate) fn order(&self) -> &[usize] {
        &self.order
    }

    /// Each part's analysis: its sites' roles, and what a fix there means in the user's text.
    /// One that failed is made again for its error (which is not Clone), failing as it did.
    pub(crate) fn analyses(&self) -> Result<Vec<&Analysis>> {
        self.parts
            .iter()
            .zip(&self.analyses)
            .map(|(table, made)| match made {
                Ok(analysis) => Ok(analysis),
                Err(_) => Err(table.analyse().err().map_or_else(
                    || {
                        wgstress_instrument::InstrumentError::Internal(
                            "an analysis that failed passed when made again".into(),
                        )
                        .into()
                    },
                    FenceError::from,
                )),
            })
            .collect()
    }

    /// Storage accesses in loops where no site can go, with their files.
    pub(crate) fn in_loops(&self, shader: &AppSource) -> Vec<(String, InLoop)> {
        let mut found = Vec::new();
        for (p, table) in self.parts.iter().enumerate() {
            let path = &shader.parts[p].path;
            found.extend(table.in_loops().iter().map(|l| (path.clone(), l.clone())));
        }
        found
    }

    /// Where read-modify-writes became one atomic operation.
    pub(crate) fn fused(&self) -> Vec<ShaderLocation> {
        self.parts
            .iter()
            .flat_map(|t| t.fused().iter().cloned())
            .collect()
    }
}

/// A candidate site of a part.
#[derive(Clone, Debug)]
pub struct PartSite {
    pub part: usize,
    /// The site, numbered within its part.
    pub site: FenceSite,
}

/// The application's parts with a fix placed by the instrumenter.
pub struct PlacedFix {
    /// Every site of every part, in the order of their global numbers.
    pub sites: Vec<PartSite>,
    /// Each part's module with its share of the fix, as naga writes it.
    pub parts: Vec<FencedShader>,
}

impl PlacedFix {
    /// A unified diff of each part that changed, from naga's rendering of the original.
    pub(crate) fn diff(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.wgsl != p.original_wgsl)
            .map(|p| p.diff())
            .collect()
    }
}

impl AppSource {
    /// The parts of an application (each stressed dispatch's file and entry point once),
    /// parsed; `pipeline`: whether it is a pipeline of dispatches.
    pub fn new(parts: Vec<Part>, pipeline: bool) -> Result<AppSource> {
        let parsed = parts
            .iter()
            .map(|part| {
                ParsedShader::new(&part.source, &AppSource::options(part)).map_err(|e| match e {
                    AtomicError::Shader(e) => FenceError::Instrument(e),
                    other => FenceError::MakeAtomic(other),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(AppSource {
            parts,
            pipeline,
            parsed,
            tables: Arc::default(),
        })
    }

    /// Whether the application is a pipeline of dispatches (its fix may change several files).
    pub(crate) fn is_pipeline(&self) -> bool {
        self.pipeline
    }

    fn options(part: &Part) -> wgstress_instrument::InstrumentOptions {
        wgstress_instrument::InstrumentOptions {
            entry: part.entry.clone(),
            postcondition: part.postcondition.clone(),
            file_name: Some(part.path.clone()),
            ..Default::default()
        }
    }

    /// Those of `atomic` that part `p` has as candidates: a variable is made atomic in every
    /// part that has it.
    fn own(&self, p: usize, atomic: &[String]) -> Vec<String> {
        let candidates = self.parsed[p].candidates();
        atomic
            .iter()
            .filter(|name| candidates.iter().any(|c| c.name == **name))
            .cloned()
            .collect()
    }

    /// Every part's sites with `atomic` made atomic where the part has it: placed the first
    /// time a set is asked for, then kept for the search.
    pub fn tables(&self, atomic: &[String]) -> Result<Arc<SiteTables>> {
        let mut cache = self
            .tables
            .lock()
            .expect("no search panicked holding the tables");
        if let Some(tables) = cache.get(atomic) {
            return Ok(tables.clone());
        }
        let mut parts = Vec::new();
        let mut offsets = Vec::new();
        let mut offset = 0;
        for (p, parsed) in self.parsed.iter().enumerate() {
            let table = parsed.sites(&self.own(p, atomic))?;
            offsets.push(offset);
            offset += table.sites().len();
            parts.push(table);
        }
        let analyses: Vec<_> = parts.iter().map(SiteTable::analyse).collect();
        let order = preferred_order(&parts, &offsets, &analyses);
        let tables = Arc::new(SiteTables {
            parts,
            offsets,
            order,
            analyses,
        });
        cache.insert(atomic.to_vec(), tables.clone());
        Ok(tables)
    }

    /// The parts with `fix` placed, rendered by naga: each part gets the fix's sites that fall
    /// in it.
    pub fn patch(&self, fix: &FixSet) -> Result<PlacedFix> {
        let tables = self.tables(&fix.atomic)?;
        let chosen = tables.by_part(&fix.sites)?;
        let parts = tables
            .parts
            .iter()
            .zip(&chosen)
            .map(|(table, chosen)| Ok(table.fenced(chosen)?))
            .collect::<Result<Vec<FencedShader>>>()?;
        Ok(PlacedFix {
            sites: tables.sites(),
            parts,
        })
    }

    /// Each part's module with `fix` placed, as trials run it: edits of the parsed modules,
    /// with no text written.
    pub fn edited(&self, fix: &FixSet) -> Result<Vec<EditedShader>> {
        let tables = self.tables(&fix.atomic)?;
        let chosen = tables.by_part(&fix.sites)?;
        tables
            .parts
            .iter()
            .zip(&chosen)
            .zip(&self.parts)
            .map(|((table, chosen), part)| {
                Ok(EditedShader {
                    path: part.path.clone(),
                    entry: part.entry.clone(),
                    source: part.source.clone(),
                    module: table.edited(chosen)?,
                })
            })
            .collect()
    }

    /// The parts with `fix` placed, as naga writes each: for a raw run (the cost step) and
    /// the fix reported where its text cannot be a patch.
    pub(crate) fn rewrite_with(&self, fix: &FixSet) -> Result<Rewrite> {
        let patched = self.patch(fix)?;
        Ok(Rewrite {
            parts: patched
                .parts
                .into_iter()
                .enumerate()
                .map(|(part, fenced)| PartText {
                    part,
                    text: fenced.wgsl,
                    postcondition: fenced.postcondition,
                })
                .collect(),
        })
    }

    /// What each site (numbered over all parts) orders where it gets a barrier: a release, an
    /// acquire, both, or neither of the pairs the analysis found.
    pub fn roles(&self) -> Result<Vec<Option<KeptRole>>> {
        Ok(self
            .tables(&[])?
            .analyses()?
            .iter()
            .flat_map(|analysis| {
                (0..analysis.sites.len())
                    .map(|i| analysis.roles.get(i).and_then(|r| kept_role(r.role)))
            })
            .collect())
    }

    /// The variables make-atomic may rewrite, in declaration order, over the parts (the
    /// plain read_write storage integers, and arrays and structs of them, that an entry point
    /// accesses). A variable is made atomic in every part that has it.
    pub(crate) fn atomic_candidates(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for parsed in &self.parsed {
            for candidate in parsed.candidates() {
                if !names.contains(&candidate.name) {
                    names.push(candidate.name);
                }
            }
        }
        names
    }
}

/// The order of `SiteTables::order` over `parts`, whose first sites are numbered `offsets`
/// and whose `analyses` give their roles.
fn preferred_order(
    parts: &[SiteTable],
    offsets: &[usize],
    analyses: &[std::result::Result<Analysis, AtomicError>],
) -> Vec<usize> {
    let mut with_role = Vec::new();
    let mut without = Vec::new();
    for ((table, &offset), analysis) in parts.iter().zip(offsets).zip(analyses) {
        for site in callees_first(table.sites()) {
            let orders_nothing = analysis
                .as_ref()
                .is_ok_and(|a| a.roles.get(site).is_none_or(|r| r.role == Role::None));
            match orders_nothing {
                true => without.push(site + offset),
                false => with_role.push(site + offset),
            }
        }
    }
    with_role.extend(without);
    with_role
}

/// What a site with `role` orders, if anything.
pub(crate) fn kept_role(role: Role) -> Option<KeptRole> {
    match role {
        Role::Release => Some(KeptRole::Release),
        Role::Acquire => Some(KeptRole::Acquire),
        Role::Both => Some(KeptRole::Both),
        Role::None => None,
    }
}
