//! Candidate fence sites: where a `storageBarrier()` could go in the application, so a
//! search can learn which fences it needs.
//!
//! A site is a point of the application's entry point, or of a function it calls, where the
//! barrier is valid WGSL for Tint as well as naga and orders storage accesses (place.rs has
//! the rule): control flow there is uniform as WGSL's uniformity analysis defines it
//! (uniformity/: read-only storage and uniform buffers are uniform, locals are followed
//! store by store, a function's barrier is checked against every call of it), and storage
//! the dispatch writes (memory.rs) is accessed on both sides. Points with nothing between
//! them that touches storage are one site. tests/sites_tint.rs checks with Tint that every
//! point where Tint accepts a barrier is served by a site, in the bundled applications and
//! in generated shaders, and that Tint accepts a barrier at every site.
//!
//! A non-uniform branch with an empty other side is split around the sites between its
//! accesses (split.rs). module.rs places a module's sites, all.rs writes the shader with a
//! barrier at every site, patch.rs the one with barriers at a chosen set.
//!
//! The folder was `fences/`, a name the workspace also gives the fence search (the
//! wgstress-fences crate, and its GPU lab in runtime/src/fences) and the CLI's command and
//! report (src/fences). What this one computes is the placement those rely on, where a
//! barrier may go and what the shader looks like with it there, hence `placement`.

mod access;
mod all;
mod analysis;
mod module;
mod nonuniform;
mod patch;
mod place;
pub(crate) mod returns;
mod roles;
mod site;
mod source;
mod split;
mod table;
mod uniformity;

pub use all::{fences, Fences};
pub use analysis::Analysis;
pub use nonuniform::{non_uniform_barriers, FlowTurn, NonUniformBarrier, NonUniformFlow};
pub use patch::FencedShader;
pub use roles::{Acquire, Added, MissingPartner, Portable, Release, Role, SiteRole, SourceAccess};
pub use site::{FenceSite, InLoop, IrPoint, Side};
pub use source::{AtomicEdit, SourceAnchor, SourcePatch, SplitAnchor, Unexpressible, Why};
pub use table::{analyse, fenced_at, fenced_at_atomic, ParsedShader, SiteTable};
