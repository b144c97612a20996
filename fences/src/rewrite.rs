//! A patched application as the search hands it to a lab: new text for some of its parts,
//! by their index in `AppSource::parts`. Its own module, as both the lab's subjects and the
//! source's patches hold it.

/// New text for some of the parts: what a patched application runs (`Subject::Patched`),
/// each part's text in place of its file's, read like any input. The lab that holds the
/// application makes it of these.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rewrite {
    pub parts: Vec<PartText>,
}

/// A part's new text.
#[derive(Clone, Debug, PartialEq)]
pub struct PartText {
    /// The part's index in `AppSource::parts`.
    pub part: usize,
    pub text: String,
    /// The postcondition entry point, named anew where the text no longer carries the
    /// source's directive.
    pub postcondition: Option<String>,
}
