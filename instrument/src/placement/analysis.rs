//! Everything a fix needs that the shader's text and the chosen sites decide, without a GPU:
//! the candidate sites (numbered as `fences` numbers them), where each site's barrier goes in
//! the user's text, each site's role as a release or an acquire and its counterparts, the
//! portable completion of an adapter-minimal set, and the fix as an edit of the user's file.
//!
//! ```
//! use wgstress_instrument::placement::analyse;
//! let source = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
//! @group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
//! @compute @workgroup_size(64)
//! fn main(@builtin(local_invocation_index) lid: u32) {
//!     data[lid] = lid; // the message
//!     atomicStore(&flag, 1u);
//! }
//! ";
//! let analysis = analyse(source, &Default::default(), &[]).unwrap();
//! let patch = analysis.source_patch(&[1]).unwrap();
//! assert!(patch.text.contains("    data[lid] = lid; // the message\n    storageBarrier();\n"));
//! assert_eq!(patch.changed_lines(), 1);
//! ```

use super::patch::Marked;
use super::roles::{Portable, Roles, SiteRole};
use super::source::{self, AtomicEdit, SourceAnchor, SourcePatch, Unexpressible};
use super::FenceSite;
use crate::atomic::AtomicError;
use crate::error::{InstrumentError, Result};
use crate::validate;

/// The sites of a shader (with a variable made atomic, if one is), and what a fix there
/// means in the user's text.
pub struct Analysis {
    /// Every candidate site, numbered as `fences`, `fenced_at` and the fence mask number them.
    pub sites: Vec<FenceSite>,
    /// Where each site's barrier goes in the text, or why the text cannot take it there.
    pub anchors: Vec<std::result::Result<SourceAnchor, Unexpressible>>,
    /// Each site's role as a release or an acquire, and its counterparts.
    pub roles: Vec<SiteRole>,
    pairing: Roles,
    marked: Marked,
    source: String,
    file: String,
    atomic: Vec<String>,
}

impl Analysis {
    /// The analysis of a placed module (`marked`, parsed from `source` in `file`).
    pub(crate) fn of(
        marked: Marked,
        source: &str,
        file: &str,
        atomic: &[String],
    ) -> std::result::Result<Analysis, AtomicError> {
        crate::work::analysed();
        let anchors = source::anchors(&marked, source, file);
        // The marked module itself does not validate (its marker comes after its callers);
        // the module with a barrier at every site has the same functions and expressions.
        let all: Vec<u32> = (0..marked.sites.len() as u32).collect();
        let info = validate(&marked.resolved(&all)?)
            .map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
        let expressible = anchors.iter().map(|a| a.is_ok()).collect();
        let pairing = Roles::new(&marked.module, &info, &marked, source, file, expressible);
        Ok(Analysis {
            sites: marked.sites.clone(),
            anchors,
            roles: pairing.sites.clone(),
            pairing,
            marked,
            source: source.to_string(),
            file: file.to_string(),
            atomic: atomic.to_vec(),
        })
    }
}

impl Analysis {
    /// The fix with a barrier at each of `chosen` (and the variable made atomic, if the
    /// analysis has one) as an edit of the user's file, checked against the IR-level fix;
    /// or why the text cannot express it.
    pub fn source_patch(&self, chosen: &[u32]) -> std::result::Result<SourcePatch, Unexpressible> {
        source::patch(&self.marked, &self.source, &self.file, &self.atomic, chosen)
    }

    /// The text the analysis was made from: `--fix` compares the file with it before it
    /// writes the patch over it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// With variables made atomic: each edit of their declarations and accesses in the text
    /// (what the source patch makes of them), in source order; none without one.
    pub fn atomic_edits(&self) -> std::result::Result<Vec<AtomicEdit>, Unexpressible> {
        source::atomic_edits(&self.marked, &self.source, &self.file, &self.atomic)
    }

    /// Why a barrier at `site` is there, in words for a report: what it publishes and
    /// through which flag, or which read it guards after which flag read, each at
    /// file:line:column; `None` for a site that orders no pair the analysis can see.
    pub fn reason(&self, site: u32) -> Option<String> {
        let role = self.roles.get(site as usize)?;
        let parts: Vec<String> = [
            role.release.as_ref().map(ToString::to_string),
            role.acquire.as_ref().map(ToString::to_string),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// `kept` (the adapter-minimal set a search kept) completed into the portable set: every
    /// pair of release and acquire it touches gets a barrier on both sides where WGSL allows
    /// one, and says where it does not.
    pub fn portable(&self, kept: &[u32]) -> Portable {
        self.pairing.portable(kept)
    }

    /// The portable completion of `kept` in each placement it may take (at most `limit`):
    /// `portable(kept)` first, then each with one added barrier moved to another site of its
    /// window (`Added::alternatives`), for the search to time and keep the cheapest.
    pub fn placements(&self, kept: &[u32], limit: usize) -> Vec<Portable> {
        self.pairing.placements(kept, limit)
    }

    /// The same fix as naga's rendering of the whole module: what `fenced_at_atomic` gives,
    /// and the fallback where the text cannot express the fix.
    pub fn ir_patch(&self, chosen: &[u32]) -> Result<String> {
        self.marked.rendered(chosen, &self.source)
    }
}
