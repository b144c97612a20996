//! A shader as a fence search edited it: the module parsed once, its fix placed
//! (`placement::SiteTable::edited`), with the text its spans point into. The search builds
//! these without a device; the runtime instruments them (`instrument_edited`) instead of
//! parsing text.

/// A stressed dispatch's shader with a fix placed: the stressed dispatches of `path` and
/// `entry` instrument `module`, whose spans point into `source`, instead of parsing text.
#[derive(Clone)]
pub struct EditedShader {
    pub path: String,
    pub entry: Option<String>,
    pub source: String,
    pub module: naga::Module,
}
