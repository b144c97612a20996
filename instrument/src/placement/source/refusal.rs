//! Why a fix has no source edit, and where in the user's source.

use crate::error::ShaderLocation;
use crate::wgsl::locate::Locator;

/// Why a fix has no source edit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Why {
    #[error("the barrier falls between two accesses of one statement")]
    InsideStatement,
    #[error("naga's IR puts the barrier where the text has no statement boundary")]
    Unplaced,
    #[error(
        "the barrier falls inside a loop's header (a `for` or `while` condition, a `for` update)"
    )]
    ForHeader,
    #[error("the site needs a split of an `if` with an `else` branch")]
    SplitChain,
    #[error("splitting the branch moves `{name}` before the `if`, where that name is in use")]
    NameTaken { name: String },
    #[error("splitting the branch moves `{name}` before the `if`, and its type has no WGSL spelling here")]
    NoType { name: String },
    #[error("the site is in `{function}`, whose pointer parameter reading the shader specialises away (a copy per memory its callers pass): the text has one function for all copies")]
    Specialized { function: String },
    #[error("make-atomic: {what}")]
    MakeAtomic { what: String },
    #[error("two edits overlap")]
    Overlap,
    #[error("the patched source does not validate in naga: {message}")]
    Invalid { message: String },
    #[error("the patched source is not the fix the search verified: {what}")]
    Mismatch { what: String },
}

/// A fix the text cannot express: why, and where in the user's source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{why}", at.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
pub struct Unexpressible {
    pub at: Option<ShaderLocation>,
    pub why: Why,
}

/// A refusal at a byte offset of the source, before it is given a location.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    offset: Option<usize>,
    why: Why,
}

impl Refusal {
    pub(crate) fn at(offset: usize, why: Why) -> Refusal {
        Refusal {
            offset: Some(offset),
            why,
        }
    }

    pub(crate) fn nowhere(why: Why) -> Refusal {
        Refusal { offset: None, why }
    }

    pub(super) fn located(self, locator: &Locator) -> Unexpressible {
        let at = self
            .offset
            .map(|o| locator.at(naga::Span::new(o as u32, o as u32 + 1)));
        Unexpressible { at, why: self.why }
    }
}
