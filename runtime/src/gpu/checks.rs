//! The host checks a spec declares, run: each is prepared once per session (its expected
//! values computed on the host, or by a reference kernel on the device) and verified after
//! every run; a failure says which check found what on which binding (`CheckFailure`).

pub(crate) mod device;
pub(crate) mod kernel;
mod reference;

use crate::app::check::{Check, Compare, Expected, Of, Rule, Scan, ScanOp, Slice};
use crate::app::failure::{CheckFailure, Found, Mismatches, NotPermutation, OutOfOrder, Wrong};
use crate::app::init::ElementType;
use crate::app::spec::{App, Outputs};
use crate::gpu::device::Gpu;
use std::cmp::Ordering;

/// Prepares `app`'s checks on `gpu`: expected values from the initial contents, and from
/// one run of each reference kernel, shared by the checks that name the same one.
pub(crate) fn prepare(app: &App, gpu: &Gpu) -> crate::Result<Vec<Prepared>> {
    let mut runs = reference::Runs::default();
    app.checks
        .iter()
        .map(|check| {
            let slice = check_slice(check, app)?;
            let expected = match &check.rule {
                Rule::Reference(r) => {
                    slice.take(runs.output(gpu, app, r, (check.group, check.binding))?)
                }
                _ => expected(check, app, &slice)?,
            };
            Ok(Prepared {
                check: check.clone(),
                slice,
                expected,
            })
        })
        .collect()
}

fn check_slice(check: &Check, app: &App) -> crate::Result<Slice> {
    let b = binding(app, (check.group, check.binding))?;
    check.slice(b.words).map_err(|m| {
        crate::RuntimeError::Input(format!(
            "{}: binding {}:{}: {m}",
            check.label(),
            check.group,
            check.binding
        ))
    })
}

fn binding(app: &App, (group, binding): Of) -> crate::Result<&crate::app::spec::Binding> {
    app.binding(group, binding).ok_or_else(|| {
        crate::RuntimeError::Input(format!(
            "a check refers to binding {group}:{binding}, which the spec does not declare"
        ))
    })
}

/// The expected words of a check's slice computed on the host; empty for `sorted`. Kinds
/// that compare element by element expect at each checked index what they expect there of
/// the whole binding (a scan's element i is over `of`'s elements up to i); `permutation` and
/// `sorted-permutation` compare the slice with the same slice of `of`.
fn expected(check: &Check, app: &App, slice: &Slice) -> crate::Result<Vec<u32>> {
    let n = slice.count as usize;
    let initial = |of: Of| -> crate::Result<Vec<u32>> {
        let b = binding(app, of)?;
        let mut words = b.init.words(b.words)?;
        words.truncate(slice.end());
        Ok(words)
    };
    Ok(match &check.rule {
        Rule::EqualsFile { path } => slice.take(
            &crate::app::init::Init::File { path: path.clone() }
                .words(binding(app, (check.group, check.binding))?.words)?,
        ),
        Rule::Sorted { .. } => Vec::new(),
        Rule::Sum { of, of_group } => {
            let b = binding(app, (*of_group, *of))?;
            let sum = b
                .init
                .words(b.words)?
                .iter()
                .fold(0u32, |a, x| a.wrapping_add(*x));
            vec![sum; n]
        }
        Rule::AllEqual { value } => vec![*value; n],
        Rule::Permutation { of, of_group } => {
            let mut v = slice.take(&initial((*of_group, *of))?);
            v.sort_unstable();
            v
        }
        Rule::SortedPermutation(s) => {
            let mut v = slice.take(&initial(s.of)?);
            v.sort_by(|a, b| s.ty.order(*a, *b));
            v
        }
        Rule::InclusiveScan(s) => slice.take(&scan(&initial(s.of)?, s, true)),
        Rule::ExclusiveScan(s) => slice.take(&scan(&initial(s.of)?, s, false)),
        Rule::Equals(e) => match &e.expected {
            Expected::Values(list) => list.words.clone(),
            Expected::Fill(fill) => vec![fill.word; n],
            Expected::Of(of) => slice.take(&initial(*of)?),
        },
        Rule::Reference(_) => unreachable!("reference checks are prepared on the device"),
    })
}

/// The inclusive or exclusive scan of `input` under `s.op`, as `s`'s type.
pub(crate) fn scan(input: &[u32], s: &Scan, inclusive: bool) -> Vec<u32> {
    let ty = s.compare.ty;
    let mut out = Vec::with_capacity(input.len());
    if (ty, s.op) == (ElementType::F32, ScanOp::Add) {
        let mut acc = 0f64;
        for &x in input {
            let before = acc;
            acc += f64::from(f32::from_bits(x));
            out.push((if inclusive { acc } else { before } as f32).to_bits());
        }
        return out;
    }
    let mut acc = identity(ty, s.op);
    for &x in input {
        let next = match s.op {
            ScanOp::Add => acc.wrapping_add(x),
            ScanOp::Min if ty.order(x, acc) == Ordering::Less => x,
            ScanOp::Max if ty.order(x, acc) == Ordering::Greater => x,
            ScanOp::Min | ScanOp::Max => acc,
        };
        out.push(if inclusive { next } else { acc });
        acc = next;
    }
    out
}

/// The value an exclusive scan starts from: x op identity = x.
fn identity(ty: ElementType, op: ScanOp) -> u32 {
    match (op, ty) {
        (ScanOp::Add, _) => 0,
        (ScanOp::Min, ElementType::U32) => u32::MAX,
        (ScanOp::Min, ElementType::I32) => i32::MAX as u32,
        (ScanOp::Min, ElementType::F32) => f32::INFINITY.to_bits(),
        (ScanOp::Max, ElementType::U32) => 0,
        (ScanOp::Max, ElementType::I32) => i32::MIN as u32,
        (ScanOp::Max, ElementType::F32) => f32::NEG_INFINITY.to_bits(),
    }
}

/// A check with the elements it reads and the expected values it compares them with,
/// computed once per session.
pub(crate) struct Prepared {
    check: Check,
    slice: Slice,
    expected: Vec<u32>,
}

impl Prepared {
    /// `Err` says which check failed on which binding and what it found there.
    pub(crate) fn verify(&self, outputs: &Outputs) -> Result<(), CheckFailure> {
        let c = &self.check;
        let binding = (c.group, c.binding);
        let all = outputs
            .get(c.group, c.binding)
            .ok_or(CheckFailure::NotReadBack {
                binding,
                buffer: None,
            })?;
        let got = self.slice.take(all);
        match self.wrong(&got) {
            None => Ok(()),
            Some(found) => Err(CheckFailure::Check(Box::new(Wrong {
                check: c.label(),
                binding,
                slice: self.slice,
                found,
            }))),
        }
    }

    /// How this check compares on the device, where it can exactly as `wrong` does on the
    /// host: checks whose expected words are fixed for the session and compared element by
    /// element, with no tolerance (the host judges one in f64, which WGSL lacks). `None`:
    /// the check is verified on the host.
    pub(crate) fn on_device(&self) -> Option<kernel::Kernel> {
        use kernel::{Against, Equality};
        let (against, compare) = match &self.check.rule {
            Rule::EqualsFile { .. } => (Against::Buffer, Compare::default()),
            Rule::AllEqual { value } => (Against::Word(*value), Compare::default()),
            Rule::Equals(e) => match &e.expected {
                Expected::Fill(fill) => (Against::Word(fill.word), e.compare),
                Expected::Values(_) | Expected::Of(_) => (Against::Buffer, e.compare),
            },
            Rule::Reference(r) => (Against::Buffer, r.compare),
            Rule::Sorted { .. }
            | Rule::Sum { .. }
            | Rule::Permutation { .. }
            | Rule::SortedPermutation(_)
            | Rule::InclusiveScan(_)
            | Rule::ExclusiveScan(_) => return None,
        };
        if compare.tolerance.is_some() {
            return None;
        }
        Some(kernel::Kernel {
            slice: self.slice,
            // The host compares as many elements as both sides have.
            count: self.slice.count.min(self.expected.len() as u32),
            against,
            equality: match compare.ty {
                ElementType::F32 => Equality::F32,
                ElementType::U32 | ElementType::I32 => Equality::Bits,
            },
        })
    }

    /// The expected words a device comparison reads from its `expected` buffer.
    pub(crate) fn expected(&self) -> &[u32] {
        &self.expected
    }

    /// `verify` for a check compared on the device (`on_device`), from the result block
    /// its kernel left: the same failure the host comparison gives.
    pub(crate) fn verify_block(&self, block: &kernel::Block) -> Result<(), CheckFailure> {
        if block.wrong == 0 {
            return Ok(());
        }
        let kernel = self.on_device().expect("a check compared on the device");
        let ty = match &self.check.rule {
            Rule::Equals(e) => e.compare.ty,
            Rule::Reference(r) => r.compare.ty,
            _ => ElementType::U32,
        };
        let mismatches = Mismatches {
            wrong: block.wrong as usize,
            of: kernel.count as usize,
            first: block
                .first
                .iter()
                .map(|&(k, got)| (self.slice.index(k as usize), got, self.expected[k as usize]))
                .collect(),
        };
        let c = &self.check;
        Err(CheckFailure::Check(Box::new(Wrong {
            check: c.label(),
            binding: (c.group, c.binding),
            slice: self.slice,
            found: Found::Elements { mismatches, ty },
        })))
    }

    /// What is wrong with `got`, if anything.
    fn wrong(&self, got: &[u32]) -> Option<Found> {
        let expected = &self.expected;
        let exact = |ty| Compare {
            ty,
            tolerance: None,
        };
        // Reports name elements by their index in the binding.
        let index = |k: usize| self.slice.index(k);
        let compare = match &self.check.rule {
            Rule::Sorted { ty } => {
                return OutOfOrder::find(got, *ty, &index).map(Found::OutOfOrder)
            }
            Rule::Permutation { of, of_group } => {
                return NotPermutation::find(got, expected, (*of_group, *of), ElementType::U32)
                    .map(Found::NotPermutation)
            }
            Rule::SortedPermutation(s) => {
                let compare = exact(s.ty);
                let m = Mismatches::find(got, expected, |g, e| compare.equal(g, e)).at(index);
                return (!m.is_empty()).then(|| Found::NotSortedPermutation {
                    order: OutOfOrder::find(got, s.ty, &index),
                    values: NotPermutation::find(got, expected, s.of, s.ty),
                    mismatches: m,
                    ty: s.ty,
                });
            }
            Rule::InclusiveScan(s) | Rule::ExclusiveScan(s) => s.compare,
            Rule::Equals(e) => e.compare,
            Rule::Reference(r) => r.compare,
            Rule::EqualsFile { .. } | Rule::Sum { .. } | Rule::AllEqual { .. } => {
                exact(ElementType::U32)
            }
        };
        let m = Mismatches::find(got, expected, |g, e| compare.equal(g, e)).at(index);
        (!m.is_empty()).then_some(Found::Elements {
            mismatches: m,
            ty: compare.ty,
        })
    }
}

#[cfg(test)]
mod tests;
