//! A user's shader parsed once, and its candidate sites placed once for each set of variables
//! made atomic: what a fence search's trials edit, and the one-shot forms of the same
//! (`fenced_at`, `fenced_at_atomic`, `analyse`) for a single fix.

use super::analysis::Analysis;
use super::module::place;
use super::patch::{add_marker, FencedShader, Marked};
use super::site::{FenceSite, InLoop};
use crate::atomic::{make_atomic_rmw_spans, AtomicError};
use crate::error::ShaderLocation;
use crate::error::{InstrumentError, Result};
use crate::options::InstrumentOptions;
use crate::passes::names;
use crate::wgsl::render::render;
use crate::wgsl::shader::validate;
use naga::valid::ModuleInfo;
use naga::Module;

/// `source` with a `storageBarrier()` at each of `chosen` (site ids; ids past the last site
/// are an input error).
pub fn fenced_at(
    source: &str,
    options: &InstrumentOptions,
    chosen: &[u32],
) -> Result<FencedShader> {
    fenced_at_atomic(source, options, &[], chosen).map_err(|e| match e {
        AtomicError::Shader(e) => e,
        other => InstrumentError::Internal(other.to_string()),
    })
}

/// `fenced_at` with the variable `atomic` first made atomic (`make_atomic_rmw`), its
/// read-modify-writes fused: the sites are those of the rewritten module (a fused
/// read-modify-write is one access), at the user's source locations. The diff's original
/// is the module before the rewrite.
pub fn fenced_at_atomic(
    source: &str,
    options: &InstrumentOptions,
    atomic: &[String],
    chosen: &[u32],
) -> std::result::Result<FencedShader, AtomicError> {
    Ok(ParsedShader::new(source, options)?
        .sites(atomic)?
        .fenced(chosen)?)
}

pub(crate) fn marked(
    source: &str,
    options: &InstrumentOptions,
    atomic: &[String],
) -> std::result::Result<Marked, AtomicError> {
    ParsedShader::new(source, options)?.mark(atomic)
}

/// The analysis of `source`'s application entry point, with `atomic` (if given) made atomic
/// first, its read-modify-writes fused, as `fenced_at_atomic` does.
pub fn analyse(
    source: &str,
    options: &InstrumentOptions,
    atomic: &[String],
) -> std::result::Result<Analysis, AtomicError> {
    let file = options.file_name.as_deref().unwrap_or("shader.wgsl");
    Analysis::of(marked(source, options, atomic)?, source, file, atomic)
}

/// A user's shader parsed and validated once: what every fix a fence search tries starts
/// from. Each set of variables made atomic places its sites once (`sites`); each trial is
/// then an edit of that module, with no text parsed or written (`SiteTable::edited`).
#[derive(Clone)]
pub struct ParsedShader {
    original: Module,
    info: ModuleInfo,
    original_wgsl: String,
    source: String,
    path: String,
    /// The options, with the postcondition the source's directive names when none is given.
    options: InstrumentOptions,
}

impl ParsedShader {
    /// Parses and validates `source`; errors carry the file (`options.file_name`), line and
    /// column.
    pub fn new(
        source: &str,
        options: &InstrumentOptions,
    ) -> std::result::Result<ParsedShader, AtomicError> {
        let path = options
            .file_name
            .clone()
            .unwrap_or_else(|| "shader.wgsl".into());
        let original = crate::wgsl::shader::parse(source, &path)?;
        let info = crate::wgsl::shader::validate_user(&original, Some(source), &path)?;
        let original_wgsl = render(&original, &info, Some(source))?;
        let mut options = options.clone();
        if options.postcondition.is_none() {
            options.postcondition = crate::wgsl::shader::postcondition_directive(source);
        }
        Ok(ParsedShader {
            original,
            info,
            original_wgsl,
            source: source.to_string(),
            path,
            options,
        })
    }

    /// The variables make-atomic may be asked to rewrite, in declaration order.
    pub fn candidates(&self) -> Vec<crate::atomic::AtomicCandidate> {
        crate::atomic::candidates(&self.original, &self.info, &self.path, Some(&self.source))
    }

    /// The candidate sites with `atomic` made atomic first (none: the module as is), placed
    /// once for every trial of that set.
    pub fn sites(&self, atomic: &[String]) -> std::result::Result<SiteTable, AtomicError> {
        Ok(SiteTable {
            marked: self.mark(atomic)?,
            source: self.source.clone(),
            path: self.path.clone(),
            atomic: atomic.to_vec(),
        })
    }

    fn mark(&self, atomic: &[String]) -> std::result::Result<Marked, AtomicError> {
        let source = self.source.as_str();
        let path = self.path.as_str();
        let (mut module, info, fused_spans) = if atomic.is_empty() {
            (self.original.clone(), self.info.clone(), Vec::new())
        } else {
            let (module, fused) =
                make_atomic_rmw_spans(self.original.clone(), atomic, path, Some(source))?;
            let info =
                validate(&module).map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
            (module, info, fused)
        };
        let locator = crate::wgsl::locate::Locator::new(path, Some(source));
        let fused = fused_spans.iter().map(|s| locator.at(*s)).collect();
        let entry = names::application_entry(&module, &self.options)?;
        let marker = add_marker(&mut module);
        let (sites, in_loops) = place(&mut module, &info, entry, source, Some(marker));
        crate::work::placed();
        Ok(Marked {
            module,
            marker,
            entry,
            sites,
            in_loops,
            fused,
            fused_spans,
            original: self.original.clone(),
            original_wgsl: self.original_wgsl.clone(),
            postcondition: self.options.postcondition.clone(),
        })
    }
}

/// A shader's candidate sites, placed once (with a set of variables made atomic, if any):
/// each trial of a set of sites is an edit of its module.
#[derive(Clone)]
pub struct SiteTable {
    marked: Marked,
    source: String,
    path: String,
    /// The variables made atomic before the sites were placed.
    atomic: Vec<String>,
}

impl SiteTable {
    /// Every candidate site, numbered as `fences` numbers them.
    pub fn sites(&self) -> &[FenceSite] {
        &self.marked.sites
    }

    /// Storage accesses in loops where no site can go.
    pub fn in_loops(&self) -> &[InLoop] {
        &self.marked.in_loops
    }

    /// Where read-modify-writes became one atomic operation.
    pub fn fused(&self) -> &[ShaderLocation] {
        &self.marked.fused
    }

    /// The module with a `storageBarrier()` at each of `chosen`, as an edit of the placed
    /// module: its spans still point into the source it was parsed from
    /// (`crate::instrument_edited` instruments it).
    pub fn edited(&self, chosen: &[u32]) -> Result<Module> {
        self.marked.resolved(chosen)
    }

    /// `edited`, rendered by naga: the fix as a whole module's text.
    pub fn fenced(&self, chosen: &[u32]) -> Result<FencedShader> {
        Ok(FencedShader {
            wgsl: self.marked.rendered(chosen, &self.source)?,
            sites: self.marked.sites.clone(),
            original_wgsl: self.marked.original_wgsl.clone(),
            postcondition: self.marked.postcondition.clone(),
            in_loops: self.marked.in_loops.clone(),
            fused: self.marked.fused.clone(),
        })
    }

    /// What a fix at these sites means in the user's text (`analyse`).
    pub fn analyse(&self) -> std::result::Result<Analysis, AtomicError> {
        Analysis::of(self.marked.clone(), &self.source, &self.path, &self.atomic)
    }
}
