//! Typed values in specs: u32, i32 and f32 numbers, kept as the 32-bit words a buffer holds.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// How a spec's numbers are read, and how a binding's words are compared and shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementType {
    #[default]
    U32,
    I32,
    F32,
}

impl ElementType {
    pub fn name(self) -> &'static str {
        match self {
            ElementType::U32 => "u32",
            ElementType::I32 => "i32",
            ElementType::F32 => "f32",
        }
    }

    /// A word as the number a spec writes for it: exact for every u32, i32 and f32.
    pub fn value(self, word: u32) -> f64 {
        match self {
            ElementType::U32 => f64::from(word),
            ElementType::I32 => f64::from(word as i32),
            ElementType::F32 => f64::from(f32::from_bits(word)),
        }
    }

    /// The bits of `value` as this type. TOML numbers reach us as f64, which holds every u32
    /// and i32 exactly; `Err` says why the value is not one of this type.
    pub fn word(self, value: f64) -> Result<u32, String> {
        let integral = value.fract() == 0.0;
        match self {
            ElementType::U32 if integral && (0.0..=f64::from(u32::MAX)).contains(&value) => {
                Ok(value as u32)
            }
            ElementType::I32
                if integral && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&value) =>
            {
                Ok(value as i32 as u32)
            }
            ElementType::F32 if !value.is_finite() || value.abs() <= f64::from(f32::MAX) => {
                Ok((value as f32).to_bits())
            }
            ElementType::F32 => Err(format!("{value} is beyond the range of f32")),
            _ => Err(format!("{value} is not a {}", self.name())),
        }
    }

    /// `words`, each read as this type.
    pub fn words(self, values: &[f64]) -> Result<Vec<u32>, String> {
        values.iter().map(|&v| self.word(v)).collect()
    }

    /// A word as a user wrote it: `7`, `-1`, `0.5`.
    pub fn show(self, word: u32) -> String {
        match self {
            ElementType::U32 => word.to_string(),
            ElementType::I32 => (word as i32).to_string(),
            ElementType::F32 => format!("{:?}", f32::from_bits(word)),
        }
    }

    /// The order of two words as this type; f32 in IEEE total order (-NaN < -inf < ... < -0 <
    /// +0 < ... < NaN), so that every list has one sorted form.
    pub fn order(self, a: u32, b: u32) -> Ordering {
        match self {
            ElementType::U32 => a.cmp(&b),
            ElementType::I32 => (a as i32).cmp(&(b as i32)),
            ElementType::F32 => f32::from_bits(a).total_cmp(&f32::from_bits(b)),
        }
    }

    /// Whether `a` may precede `b` in a sorted list: for f32 by `<=`, so that -0 and +0 may
    /// come in either order, as a GPU sort comparing with `<` leaves them.
    pub fn in_order(self, a: u32, b: u32) -> bool {
        match self {
            ElementType::F32 if f32::from_bits(a) <= f32::from_bits(b) => true,
            _ => self.order(a, b) != Ordering::Greater,
        }
    }
}

/// A list of values of one type, as words. In a spec: `type = "f32"` (u32 unless given) and
/// `values = [...]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawList", into = "RawList")]
pub struct List {
    pub ty: ElementType,
    pub words: Vec<u32>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawList {
    #[serde(default, rename = "type")]
    ty: ElementType,
    values: Vec<f64>,
}

impl TryFrom<RawList> for List {
    type Error = String;

    fn try_from(raw: RawList) -> Result<List, String> {
        Ok(List {
            ty: raw.ty,
            words: raw.ty.words(&raw.values)?,
        })
    }
}

/// One value of one type, as a word: `type` and `value`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawFill", into = "RawFill")]
pub struct Fill {
    pub ty: ElementType,
    pub word: u32,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawFill {
    #[serde(default, rename = "type")]
    ty: ElementType,
    value: f64,
}

impl TryFrom<RawFill> for Fill {
    type Error = String;

    fn try_from(raw: RawFill) -> Result<Fill, String> {
        Ok(Fill {
            ty: raw.ty,
            word: raw.ty.word(raw.value)?,
        })
    }
}

/// An arithmetic sequence, start + i * step. Integers are exact (in i64, checked against the
/// type's range for the binding's length); f32 elements are computed in f64 and rounded once,
/// so that errors do not accumulate along the binding.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawRange", into = "RawRange")]
pub enum Range {
    /// u32 or i32.
    Int {
        ty: ElementType,
        start: i64,
        step: i64,
    },
    F32 {
        start: f64,
        step: f64,
    },
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawRange {
    #[serde(default, rename = "type")]
    ty: ElementType,
    #[serde(default)]
    start: f64,
    #[serde(default = "one")]
    step: f64,
}

fn one() -> f64 {
    1.0
}

impl TryFrom<RawRange> for Range {
    type Error = String;

    fn try_from(raw: RawRange) -> Result<Range, String> {
        match raw.ty {
            ElementType::F32 => {
                ElementType::F32.word(raw.start)?;
                if !raw.start.is_finite() || !raw.step.is_finite() {
                    return Err("a range's start and step must be finite".into());
                }
                Ok(Range::F32 {
                    start: raw.start,
                    step: raw.step,
                })
            }
            ty => {
                ty.word(raw.start)?;
                let limit = f64::from(u32::MAX);
                if raw.step.fract() != 0.0 || raw.step.abs() > limit {
                    return Err(format!(
                        "step {} is not a whole number within ±{limit}",
                        raw.step
                    ));
                }
                Ok(Range::Int {
                    ty,
                    start: raw.start as i64,
                    step: raw.step as i64,
                })
            }
        }
    }
}

impl Range {
    /// `Err` when the `n`-element sequence leaves its type.
    pub fn check(&self, n: u32) -> Result<(), String> {
        let last = i64::from(n.saturating_sub(1));
        match *self {
            Range::Int { ty, start, step } => {
                let end = start + step * last;
                ty.word(end as f64).map(|_| ()).map_err(|_| {
                    format!(
                        "the range reaches {end} at element {last}, beyond {}",
                        ty.name()
                    )
                })
            }
            Range::F32 { start, step } => {
                let end = start + step * last as f64;
                ElementType::F32
                    .word(end)
                    .map(|_| ())
                    .map_err(|_| format!("the range reaches {end} at element {last}, beyond f32"))
            }
        }
    }

    /// The first `n` elements, as words.
    pub fn words(&self, n: u32) -> Vec<u32> {
        match *self {
            Range::Int { start, step, .. } => (0..i64::from(n))
                .map(|i| (start + step * i) as u32)
                .collect(),
            Range::F32 { start, step } => (0..n)
                .map(|i| ((start + step * f64::from(i)) as f32).to_bits())
                .collect(),
        }
    }
}

impl From<List> for RawList {
    fn from(list: List) -> RawList {
        RawList {
            ty: list.ty,
            values: list.words.iter().map(|&w| list.ty.value(w)).collect(),
        }
    }
}

impl From<Fill> for RawFill {
    fn from(fill: Fill) -> RawFill {
        RawFill {
            ty: fill.ty,
            value: fill.ty.value(fill.word),
        }
    }
}

impl From<Range> for RawRange {
    fn from(range: Range) -> RawRange {
        match range {
            Range::Int { ty, start, step } => RawRange {
                ty,
                start: start as f64,
                step: step as f64,
            },
            Range::F32 { start, step } => RawRange {
                ty: ElementType::F32,
                start,
                step,
            },
        }
    }
}
