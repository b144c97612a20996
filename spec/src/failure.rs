//! What a failed host check reports: which check, on which binding and elements, and what it
//! found there (the first wrong elements, neighbours out of order, values missing), or what
//! a Rust application's own check said. Its `Display` is the one line the user reads.

mod mismatch;
mod multiset;
mod order;

pub use mismatch::{Mismatches, FIRST_FEW};
pub use multiset::NotPermutation;
pub use order::OutOfOrder;

use crate::check::Slice;
use crate::init::ElementType;

/// Why a run's host checks failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckFailure {
    /// A check the spec declares found the elements it reads wrong.
    #[error("{0}")]
    Check(Box<Wrong>),
    /// A binding a check reads did not come back from the device; `buffer` is the field a
    /// Rust application names it by.
    #[error("{}", not_read_back(*binding, buffer.as_deref()))]
    NotReadBack {
        binding: (u32, u32),
        buffer: Option<String>,
    },
    /// A `#[postcondition]` method of a Rust application failed, saying `message`.
    #[error("{name}: {message}")]
    Postcondition { name: String, message: String },
    /// An application's own host check (a closure) said this.
    #[error("{0}")]
    Message(String),
}

fn not_read_back((group, binding): (u32, u32), buffer: Option<&str>) -> String {
    match buffer {
        Some(name) => format!("buffer `{name}` was not read back"),
        None => format!("binding {group}:{binding} was not read back"),
    }
}

/// What a declared check found wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Wrong {
    /// How reports name the check (`Check::label`).
    pub check: String,
    /// The binding checked, as (group, binding).
    pub binding: (u32, u32),
    /// The elements of it the check reads.
    pub slice: Slice,
    pub found: Found,
}

/// What is wrong with the elements a check reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    /// Elements other than those expected, compared as `ty`.
    Elements {
        mismatches: Mismatches,
        ty: ElementType,
    },
    /// `sorted`: neighbours out of order.
    OutOfOrder(OutOfOrder),
    /// `permutation`: not the values of the binding compared with.
    NotPermutation(NotPermutation),
    /// `sorted-permutation`: elements other than the sorted values of the binding compared
    /// with, and why where it can tell (out of order, other values).
    NotSortedPermutation {
        order: Option<OutOfOrder>,
        values: Option<NotPermutation>,
        mismatches: Mismatches,
        ty: ElementType,
    },
}

impl std::fmt::Display for Wrong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (group, binding) = self.binding;
        write!(
            f,
            "{}: binding {group}:{binding}{}: {}",
            self.check,
            self.slice.describe(),
            self.found
        )
    }
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Found::Elements { mismatches, ty } => write!(f, "{}", mismatches.describe(*ty)),
            Found::OutOfOrder(order) => write!(f, "{order}"),
            Found::NotPermutation(values) => write!(f, "{values}"),
            Found::NotSortedPermutation {
                order,
                values,
                mismatches,
                ty,
            } => {
                let mut why = Vec::new();
                why.extend(order.iter().map(|o| format!("not sorted ({o})")));
                why.extend(values.iter().map(ToString::to_string));
                why.push(mismatches.describe(*ty));
                write!(f, "{}", why.join("; "))
            }
        }
    }
}
