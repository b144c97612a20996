//! The application's shaders as the search sees them, without a device. A *part* is a
//! stressed dispatch's shader file and entry point (a single kernel has one); each part has its
//! candidate sites, numbered one after the other over the parts, so one search covers every
//! part of a pipeline. From a fix: the application with it placed by the instrumenter, what it
//! means in each part's text (`analyse`), and the variables make-atomic may rewrite.

use super::lab::FixSet;
use super::shrink::callees_first;
use crate::app::spec::{App, ShaderFile};
use crate::error::Result;
use wgstress_instrument::atomic::candidates_wgsl;
use wgstress_instrument::placement::{analyse, fenced_at_atomic, Analysis, FenceSite, InLoop};
use wgstress_instrument::ShaderLocation;

/// A stressed dispatch's shader file and entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub path: String,
    pub source: String,
    pub entry: Option<String>,
    /// The postcondition entry point in this file, which is not the application's.
    pub postcondition: Option<String>,
}

/// The application the search patches, and its parts.
#[derive(Clone)]
pub struct AppSource {
    pub app: App,
    pub parts: Vec<Part>,
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
    pub parts: Vec<wgstress_instrument::placement::FencedShader>,
}

impl PlacedFix {
    /// Storage accesses in loops where no site can go, with their files.
    pub(crate) fn in_loops(&self, shader: &AppSource) -> Vec<(String, InLoop)> {
        let mut found = Vec::new();
        for (p, patched) in self.parts.iter().enumerate() {
            let path = &shader.parts[p].path;
            found.extend(patched.in_loops.iter().map(|l| (path.clone(), l.clone())));
        }
        found
    }

    /// Where read-modify-writes became one atomic operation.
    pub(crate) fn fused(&self) -> Vec<ShaderLocation> {
        self.parts.iter().flat_map(|p| p.fused.clone()).collect()
    }

    /// The sites in the order ddmin should prefer them: within each part, callees first.
    pub(crate) fn order(&self) -> Vec<usize> {
        let mut order = Vec::new();
        let mut offset = 0;
        for part in &self.parts {
            order.extend(callees_first(&part.sites).into_iter().map(|s| s + offset));
            offset += part.sites.len();
        }
        order
    }

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
    /// The parts of `app`: each stressed dispatch's file and entry point, once.
    pub fn new(app: App) -> AppSource {
        let mut parts: Vec<Part> = Vec::new();
        for dispatch in app.dispatches().iter().filter(|d| d.stress) {
            let (path, source) = app.shader_of(dispatch);
            let part = Part {
                path: path.to_string(),
                source: source.to_string(),
                entry: dispatch.entry.clone(),
                postcondition: (path == app.shader_path)
                    .then(|| app.postcondition.clone())
                    .flatten(),
            };
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        AppSource { app, parts }
    }

    /// Whether the application is a pipeline of dispatches (its fix may change several files).
    pub(crate) fn is_pipeline(&self) -> bool {
        !self.app.pipeline.is_empty()
    }

    fn options(part: &Part) -> wgstress_instrument::InstrumentOptions {
        wgstress_instrument::InstrumentOptions {
            entry: part.entry.clone(),
            postcondition: part.postcondition.clone(),
            file_name: Some(part.path.clone()),
            ..Default::default()
        }
    }

    /// Part `p` with the sites `chosen` (numbered within it) fenced, on `atomic` made atomic
    /// where the part has it as a candidate.
    fn patch_part(
        &self,
        p: usize,
        atomic: &[String],
        chosen: &[u32],
    ) -> Result<wgstress_instrument::placement::FencedShader> {
        let part = &self.parts[p];
        let atomic = self.own(p, atomic);
        Ok(fenced_at_atomic(
            &part.source,
            &AppSource::options(part),
            &atomic,
            chosen,
        )?)
    }

    /// Those of `atomic` that part `p` has as candidates: a variable is made atomic in every
    /// part that has it.
    fn own(&self, p: usize, atomic: &[String]) -> Vec<String> {
        let candidates = self.part_candidates(p).unwrap_or_default();
        atomic
            .iter()
            .filter(|name| candidates.contains(name))
            .cloned()
            .collect()
    }

    /// The parts with `fix` placed: each part gets the fix's sites that fall in it.
    pub fn patch(&self, fix: &FixSet) -> Result<PlacedFix> {
        let atomic = &fix.atomic;
        let mut sites = Vec::new();
        let mut parts = Vec::new();
        for p in 0..self.parts.len() {
            // The part's sites, to know which of the fix's global numbers are its own.
            let count = match self.parts.len() {
                1 => usize::MAX,
                _ => self.patch_part(p, atomic, &[])?.sites.len(),
            };
            let offset = sites.len();
            let chosen: Vec<u32> = fix
                .sites
                .iter()
                .filter(|&&s| s >= offset && s - offset < count)
                .map(|&s| (s - offset) as u32)
                .collect();
            let patched = self.patch_part(p, atomic, &chosen)?;
            sites.extend(patched.sites.iter().map(|s| PartSite {
                part: p,
                site: s.clone(),
            }));
            parts.push(patched);
        }
        Ok(PlacedFix { sites, parts })
    }

    /// The application with `fix` placed, for an engine.
    pub(crate) fn app_with(&self, fix: &FixSet) -> Result<App> {
        let patched = self.patch(fix)?;
        let texts: Vec<(usize, String, Option<String>)> = patched
            .parts
            .into_iter()
            .enumerate()
            .map(|(p, part)| (p, part.wgsl, part.postcondition))
            .collect();
        Ok(self.with_parts(&texts))
    }

    /// The application with each part `p` of `texts` running that text (its postcondition
    /// named anew where the text no longer carries the source's directive).
    pub(crate) fn with_parts(&self, texts: &[(usize, String, Option<String>)]) -> App {
        let mut app = self.app.clone();
        if !self.is_pipeline() {
            if let Some((_, text, postcondition)) = texts.first() {
                app.source = text.clone();
                app.postcondition = postcondition.clone().or(app.postcondition);
            }
            return app;
        }
        for dispatch in app.pipeline.iter_mut().filter(|d| d.stress) {
            let (path, source) = self.app.shader_of(dispatch);
            let part = Part {
                path: path.to_string(),
                source: source.to_string(),
                entry: dispatch.entry.clone(),
                postcondition: (path == self.app.shader_path)
                    .then(|| self.app.postcondition.clone())
                    .flatten(),
            };
            let p = self.parts.iter().position(|q| *q == part);
            if let Some((_, text, _)) = texts.iter().find(|(q, _, _)| Some(*q) == p) {
                dispatch.shader = Some(ShaderFile {
                    path: part.path,
                    source: text.clone(),
                });
            }
        }
        app
    }

    /// What a fix means in each part's text: its sites (with the variables `atomic` made
    /// atomic first where the part has them), their roles and counterparts, and source
    /// patches.
    pub(crate) fn analyse(&self, atomic: &[String]) -> Result<Vec<Analysis>> {
        (0..self.parts.len())
            .map(|p| {
                let part = &self.parts[p];
                let atomic = self.own(p, atomic);
                Ok(analyse(&part.source, &AppSource::options(part), &atomic)?)
            })
            .collect()
    }

    fn part_candidates(&self, p: usize) -> Result<Vec<String>> {
        let part = &self.parts[p];
        let found = candidates_wgsl(&part.source, &part.path)?;
        Ok(found.into_iter().map(|c| c.name).collect())
    }

    /// The variables make-atomic may rewrite, in declaration order, over the parts (the
    /// plain read_write storage integers, and arrays and structs of them, that an entry point
    /// accesses). A variable is made atomic in every part that has it.
    pub(crate) fn atomic_candidates(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        for p in 0..self.parts.len() {
            for name in self.part_candidates(p)? {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        Ok(names)
    }
}
