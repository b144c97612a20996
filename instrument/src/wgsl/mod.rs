//! WGSL source text: reading it (shader.rs parses and validates, directives.rs handles the
//! directives naga refuses or drops, nesting.rs bounds its depth before naga recurses),
//! placing things in it (lines.rs, locate.rs: spans to `file:line:column`), outlining its
//! statements for edits made on the user's own text (outline/), and writing modules back as
//! WGSL (render.rs, with spell.rs for the types WGSL cannot name).

pub(crate) mod directives;
pub(crate) mod lines;
pub(crate) mod locate;
pub(crate) mod memory_bound;
pub(crate) mod nesting;
pub(crate) mod outline;
pub(crate) mod render;
pub(crate) mod shader;
pub(crate) mod spell;
