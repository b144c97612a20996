//! The check kinds that compare a binding with values computed on the host or by a reference
//! kernel, as a spec writes them. Each is read through a raw form that refuses unknown keys
//! and contradictory ones, so that a check that parses is one that can run.

use crate::init::{ElementType, Fill, List};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How two words of the checked type are compared: exactly, or for f32 within a tolerance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Compare {
    pub ty: ElementType,
    pub tolerance: Option<Tolerance>,
}

/// f32 values within `absolute` of each other, or within `relative` times the expected
/// value's magnitude, are equal (either bound suffices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    #[serde(default)]
    pub absolute: f32,
    #[serde(default)]
    pub relative: f32,
}

impl Compare {
    fn new(ty: ElementType, tolerance: Option<Tolerance>) -> Result<Compare, String> {
        if let Some(t) = tolerance {
            if ty != ElementType::F32 {
                return Err(format!(
                    "a tolerance needs type = \"f32\"; {} values compare exactly",
                    ty.name()
                ));
            }
            let ok = |v: f32| v.is_finite() && v >= 0.0;
            if !ok(t.absolute) || !ok(t.relative) || t.absolute == 0.0 && t.relative == 0.0 {
                return Err(
                    "give tolerance.absolute and/or tolerance.relative, finite and above 0".into(),
                );
            }
        }
        Ok(Compare { ty, tolerance })
    }

    /// Whether `got` counts as `expected`. f32 compares as numbers (+0 equals -0, NaN
    /// equals NaN); integers bit for bit.
    pub fn equal(&self, got: u32, expected: u32) -> bool {
        if self.ty != ElementType::F32 || got == expected {
            return got == expected;
        }
        let (g, e) = (f32::from_bits(got), f32::from_bits(expected));
        if g == e || g.is_nan() && e.is_nan() {
            return true;
        }
        let Some(t) = self.tolerance else {
            return false;
        };
        let diff = (f64::from(g) - f64::from(e)).abs();
        diff <= f64::from(t.absolute) || diff <= f64::from(t.relative) * f64::from(e).abs()
    }
}

/// A binding whose initial contents a check compares with; group 0 unless `of_group`.
pub type Of = (u32, u32);

/// `kind = "sorted-permutation"`: the output is sorted (as `type`) and holds the same values
/// as binding `of` did before the run.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawSortedPermutation", into = "RawSortedPermutation")]
pub struct SortedPermutation {
    pub of: Of,
    pub ty: ElementType,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawSortedPermutation {
    of: u32,
    #[serde(default)]
    of_group: u32,
    #[serde(default, rename = "type")]
    ty: ElementType,
}

impl TryFrom<RawSortedPermutation> for SortedPermutation {
    type Error = String;

    fn try_from(raw: RawSortedPermutation) -> Result<Self, String> {
        Ok(SortedPermutation {
            of: (raw.of_group, raw.of),
            ty: raw.ty,
        })
    }
}

/// The operator of a scan, applied as `type`: integer addition wraps; f32 addition runs in
/// f64 and rounds each element once, so compare it with a tolerance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanOp {
    #[default]
    Add,
    Min,
    Max,
}

/// `kind = "inclusive-scan"` or `"exclusive-scan"`: element i is `op` over elements 0..=i
/// (inclusive) or 0..i (exclusive, starting from `op`'s identity) of binding `of`'s initial
/// contents.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawScan", into = "RawScan")]
pub struct Scan {
    pub of: Of,
    pub op: ScanOp,
    pub compare: Compare,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawScan {
    of: u32,
    #[serde(default)]
    of_group: u32,
    #[serde(default)]
    op: ScanOp,
    #[serde(default, rename = "type")]
    ty: ElementType,
    #[serde(skip_serializing_if = "Option::is_none")]
    tolerance: Option<Tolerance>,
}

impl TryFrom<RawScan> for Scan {
    type Error = String;

    fn try_from(raw: RawScan) -> Result<Self, String> {
        Ok(Scan {
            of: (raw.of_group, raw.of),
            op: raw.op,
            compare: Compare::new(raw.ty, raw.tolerance)?,
        })
    }
}

/// What `kind = "equals"` compares with.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    /// `values = [...]`: one value per checked element.
    Values(List),
    /// `fill = x`: every element.
    Fill(Fill),
    /// `of = B`: binding B's initial contents.
    Of(Of),
}

/// `kind = "equals"`: element-wise equality, for f32 within an optional tolerance.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawEquals", into = "RawEquals")]
pub struct Equals {
    pub expected: Expected,
    pub compare: Compare,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawEquals {
    #[serde(default, rename = "type")]
    ty: ElementType,
    #[serde(skip_serializing_if = "Option::is_none")]
    tolerance: Option<Tolerance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fill: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    of_group: Option<u32>,
}

impl TryFrom<RawEquals> for Equals {
    type Error = String;

    fn try_from(raw: RawEquals) -> Result<Self, String> {
        let ty = raw.ty;
        let expected = match (raw.values, raw.fill, raw.of) {
            (Some(values), None, None) => Expected::Values(List {
                ty,
                words: ty.words(&values)?,
            }),
            (None, Some(value), None) => Expected::Fill(Fill {
                ty,
                word: ty.word(value)?,
            }),
            (None, None, Some(of)) => Expected::Of((raw.of_group.unwrap_or(0), of)),
            _ => return Err("give exactly one of `values`, `fill` and `of`".into()),
        };
        if raw.of_group.is_some() && !matches!(expected, Expected::Of(_)) {
            return Err("`of_group` goes with `of`".into());
        }
        Ok(Equals {
            expected,
            compare: Compare::new(ty, raw.tolerance)?,
        })
    }
}

/// `kind = "reference"`: the binding equals what a correct kernel the user provides leaves
/// in it, run once per session, uninstrumented, on the same initial contents.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "RawReference", into = "RawReference")]
pub struct Reference {
    /// The reference kernel's WGSL file; the application's own shader when absent.
    pub shader: Option<PathBuf>,
    pub entry: String,
    pub workgroups: [u32; 3],
    pub compare: Compare,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawReference {
    #[serde(skip_serializing_if = "Option::is_none")]
    shader: Option<PathBuf>,
    entry: String,
    workgroups: Vec<u32>,
    #[serde(default, rename = "type")]
    ty: ElementType,
    #[serde(skip_serializing_if = "Option::is_none")]
    tolerance: Option<Tolerance>,
}

impl TryFrom<RawReference> for Reference {
    type Error = String;

    fn try_from(raw: RawReference) -> Result<Self, String> {
        let workgroups =
            crate::dims::dims(&raw.workgroups).map_err(|m| format!("workgroups: {m}"))?;
        Ok(Reference {
            shader: raw.shader,
            entry: raw.entry,
            workgroups,
            compare: Compare::new(raw.ty, raw.tolerance)?,
        })
    }
}

impl From<SortedPermutation> for RawSortedPermutation {
    fn from(s: SortedPermutation) -> RawSortedPermutation {
        RawSortedPermutation {
            of: s.of.1,
            of_group: s.of.0,
            ty: s.ty,
        }
    }
}

impl From<Scan> for RawScan {
    fn from(scan: Scan) -> RawScan {
        RawScan {
            of: scan.of.1,
            of_group: scan.of.0,
            op: scan.op,
            ty: scan.compare.ty,
            tolerance: scan.compare.tolerance,
        }
    }
}

impl From<Equals> for RawEquals {
    fn from(equals: Equals) -> RawEquals {
        let ty = equals.compare.ty;
        let mut raw = RawEquals {
            ty,
            tolerance: equals.compare.tolerance,
            values: None,
            fill: None,
            of: None,
            of_group: None,
        };
        match equals.expected {
            Expected::Values(list) => {
                raw.values = Some(list.words.iter().map(|&w| list.ty.value(w)).collect())
            }
            Expected::Fill(fill) => raw.fill = Some(fill.ty.value(fill.word)),
            Expected::Of((group, binding)) => {
                raw.of = Some(binding);
                raw.of_group = Some(group);
            }
        }
        raw
    }
}

impl From<Reference> for RawReference {
    fn from(reference: Reference) -> RawReference {
        RawReference {
            shader: reference.shader,
            entry: reference.entry,
            workgroups: reference.workgroups.to_vec(),
            ty: reference.compare.ty,
            tolerance: reference.compare.tolerance,
        }
    }
}
