//! One storage access of the source, as the pairing sees it.

use crate::error::ShaderLocation;
use naga::{Expression, GlobalVariable, Handle, Literal, Module, Span};

/// How an access touches its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum AccessKind {
    Read,
    Write,
    /// A read-modify-write other than a compare-exchange (`atomicAdd`, `atomicExchange`, ...).
    Update,
    /// `atomicCompareExchangeWeak`: reads, and writes when it succeeds.
    Compare,
}

/// One storage access of the source (a load, a store, an atomic operation).
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub kind: AccessKind,
    /// On an `atomic<...>` location.
    pub atomic: bool,
    pub global: Handle<GlobalVariable>,
    /// The access path's steps, each index as far as it is known before the shader runs.
    pub path: Vec<Index>,
    /// The place as written (`flags[part]`), or the variable's name.
    pub text: String,
    pub at: ShaderLocation,
    pub function: String,
    /// The local variables (as `Event::Set` numbers them) its index reads.
    pub depends: Vec<u32>,
    /// Its index reads memory or a call's or atomic's result: it may name another place
    /// each time.
    pub volatile: bool,
}

impl Access {
    pub(crate) fn reads(&self) -> bool {
        self.kind != AccessKind::Write
    }

    pub(crate) fn writes(&self) -> bool {
        self.kind != AccessKind::Read
    }

    /// Whether the two may touch one location: one variable, and no step whose indices
    /// differ for certain (two constants, or two residues, as `cells[c * 4u]` and
    /// `cells[c * 4u + 1u]`).
    pub(crate) fn may_alias(&self, other: &Access) -> bool {
        self.global == other.global
            && self
                .path
                .iter()
                .zip(&other.path)
                .all(|(a, b)| a.may_equal(*b))
    }

    /// Whether the two name the same place the same way (`flags[q]` and `flags[q]`), as far
    /// as the text says; `Trace::same_place` also asks whether the index changed between.
    pub(crate) fn same_text(&self, other: &Access) -> bool {
        self.global == other.global && self.text == other.text && !self.volatile
    }
}

/// What tells an access from the others of its function.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AccessKey {
    /// A load, by its expression.
    Expression(u32),
    /// A store or an atomic operation, by its statement's span (start and end).
    Statement(u32, u32),
}

impl AccessKey {
    pub(crate) fn statement(span: Span) -> AccessKey {
        let r = span.to_range().unwrap_or(0..0);
        AccessKey::Statement(r.start as u32, r.end as u32)
    }
}

/// What is known of an index before the shader runs.
///
/// A record of several words in one array (ls-bh's four words per cell: its mass, the cell's
/// ready flag, then its weighted coordinates) is indexed `base * 4u + k`: the flag and the
/// data are told apart by the index's residue modulo the record's size. Only a power of two
/// is taken for a modulus: u32 arithmetic wraps modulo 2^32, which such a modulus divides, so
/// the residue holds whatever the run-time part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Index {
    Constant(u32),
    /// `modulus * x + residue` for some `x`: `modulus` a power of two above 1, `residue`
    /// below it.
    Residue {
        modulus: u32,
        residue: u32,
    },
    Unknown,
}

impl Index {
    fn residue(modulus: u32, value: u32) -> Index {
        Index::Residue {
            modulus,
            residue: value % modulus,
        }
    }

    /// The index as a residue modulo `modulus` (a power of two), if it has one.
    fn modulo(self, modulus: u32) -> Option<u32> {
        match self {
            Index::Constant(v) => Some(v % modulus),
            Index::Residue {
                modulus: m,
                residue,
            } if m >= modulus => Some(residue % modulus),
            _ => None,
        }
    }

    /// Whether the two may be one value.
    pub(crate) fn may_equal(self, other: Index) -> bool {
        match (self, other) {
            (Index::Constant(a), Index::Constant(b)) => a == b,
            (Index::Residue { modulus, .. }, o) | (o, Index::Residue { modulus, .. }) => {
                let common = match o {
                    Index::Residue { modulus: m, .. } => m.min(modulus),
                    _ => modulus,
                };
                match (self.modulo(common), other.modulo(common)) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
            }
            _ => true,
        }
    }

    /// The sum of two indices (a difference when `negate`, of `other` from `self`).
    fn add(self, other: Index, negate: bool) -> Index {
        let flip = |v: u32| if negate { v.wrapping_neg() } else { v };
        if let (Index::Constant(a), Index::Constant(b)) = (self, other) {
            return Index::Constant(a.wrapping_add(flip(b)));
        }
        let modulus = |i: Index| match i {
            Index::Residue { modulus, .. } => modulus,
            _ => u32::MAX,
        };
        let common = modulus(self).min(modulus(other));
        match (self.modulo(common), other.modulo(common)) {
            (Some(a), Some(b)) if common != u32::MAX => {
                Index::residue(common, a.wrapping_add(flip(b)))
            }
            _ => Index::Unknown,
        }
    }

    /// The product of two indices: a multiple of a power-of-two constant has residue 0.
    fn multiply(self, other: Index) -> Index {
        match (self, other) {
            (Index::Constant(a), Index::Constant(b)) => Index::Constant(a.wrapping_mul(b)),
            (Index::Constant(k), _) | (_, Index::Constant(k)) if k > 1 && k.is_power_of_two() => {
                Index::residue(k, 0)
            }
            _ => Index::Unknown,
        }
    }
}

/// What is known of index `index` before the shader runs (see `Index`).
pub(crate) fn index(
    module: &Module,
    expressions: &naga::Arena<Expression>,
    index_expression: Handle<Expression>,
) -> Index {
    use naga::BinaryOperator as B;
    if let Some(v) = constant(module, expressions, index_expression) {
        return Index::Constant(v);
    }
    let of = |h| index(module, expressions, h);
    match expressions[index_expression] {
        Expression::Binary { op, left, right } => match op {
            B::Add => of(left).add(of(right), false),
            B::Subtract => of(left).add(of(right), true),
            B::Multiply => of(left).multiply(of(right)),
            B::ShiftLeft => match of(right) {
                Index::Constant(n) if (1..32).contains(&n) => {
                    of(left).multiply(Index::Constant(1 << n))
                }
                _ => Index::Unknown,
            },
            _ => Index::Unknown,
        },
        _ => Index::Unknown,
    }
}

/// An index known before the shader runs.
pub(crate) fn constant(
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
