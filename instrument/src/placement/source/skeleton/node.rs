//! A statement of the skeleton, as printer.rs writes it and mod.rs compares it.

/// A statement of the skeleton.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Line(String),
    If(String, Vec<Node>, Vec<Node>),
    Nested(String, Vec<Vec<Node>>),
}
