//! One storage access of the source, as the pairing sees it.

use crate::error::Location;
use naga::{Expression, GlobalVariable, Handle, Literal, Module, Span};

/// How an access touches its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Read,
    Write,
    /// A read-modify-write other than a compare-exchange (`atomicAdd`, `atomicExchange`, ...).
    Update,
    /// `atomicCompareExchangeWeak`: reads, and writes when it succeeds.
    Compare,
}

/// One storage access of the source (a load, a store, an atomic operation).
#[derive(Clone, Debug)]
pub struct Access {
    pub kind: Kind,
    /// On an `atomic<...>` location.
    pub atomic: bool,
    pub global: Handle<GlobalVariable>,
    /// The access path's steps: a constant index, or `None` for one computed at run time.
    pub path: Vec<Option<u32>>,
    /// The place as written (`flags[part]`), or the variable's name.
    pub text: String,
    pub at: Location,
    pub function: String,
    /// The local variables (as `Event::Set` numbers them) its index reads.
    pub depends: Vec<u32>,
    /// Its index reads memory or a call's or atomic's result: it may name another place
    /// each time.
    pub volatile: bool,
}

impl Access {
    pub fn reads(&self) -> bool {
        self.kind != Kind::Write
    }

    pub fn writes(&self) -> bool {
        self.kind != Kind::Read
    }

    /// Whether the two may touch one location: one variable, and no constant index that
    /// differs.
    pub fn may_alias(&self, other: &Access) -> bool {
        self.global == other.global
            && self
                .path
                .iter()
                .zip(&other.path)
                .all(|(a, b)| a.is_none() || b.is_none() || a == b)
    }

    /// Whether the two name the same place the same way (`flags[q]` and `flags[q]`), as far
    /// as the text says; `Trace::same_place` also asks whether the index changed between.
    pub fn same_text(&self, other: &Access) -> bool {
        self.global == other.global && self.text == other.text && !self.volatile
    }
}

/// What tells an access from the others of its function.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A load, by its expression.
    Expression(u32),
    /// A store or an atomic operation, by its statement's span (start and end).
    Statement(u32, u32),
}

impl Key {
    pub fn statement(span: Span) -> Key {
        let r = span.to_range().unwrap_or(0..0);
        Key::Statement(r.start as u32, r.end as u32)
    }
}

/// An index known before the shader runs.
pub fn constant(
    module: &Module,
    expressions: &naga::Arena<Expression>,
    index: Handle<Expression>,
) -> Option<u32> {
    match expressions[index] {
        Expression::Literal(Literal::U32(v)) => Some(v),
        Expression::Literal(Literal::I32(v)) => u32::try_from(v).ok(),
        Expression::Constant(c) => match module.global_expressions[module.constants[c].init] {
            Expression::Literal(Literal::U32(v)) => Some(v),
            Expression::Literal(Literal::I32(v)) => u32::try_from(v).ok(),
            _ => None,
        },
        _ => None,
    }
}
