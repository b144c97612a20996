//! Host checks over read-back buffers, declared in app specs. A check is prepared once per
//! session (its expected values computed on the host, or by a reference kernel on the
//! device) and verified after every run; a failure says how many elements are wrong and
//! shows the first few.

mod kinds;
mod mismatch;
mod reference;
mod slice;

pub use kinds::{
    Compare, Equals, Expected, Of, Reference, Scan, ScanOp, SortedPermutation, Tolerance,
};
pub use mismatch::{Mismatches, FIRST_FEW};
pub use slice::{Selection, Slice};

use crate::app::init::ElementType;
use crate::app::spec::{App, Outputs};
use crate::gpu::device::Gpu;
use serde::Deserialize;
use std::cmp::Ordering;
use std::path::PathBuf;

// No deny_unknown_fields here: serde cannot combine it with the flattened rule. The rule's
// own fields are checked: unknown keys in a check are refused there.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Check {
    /// A name for reports; the kind and what it compares with when absent.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub group: u32,
    pub binding: u32,
    /// Check only the first `words` words (all when absent): the older form of `count`,
    /// cut to the binding's size.
    pub words: Option<u32>,
    /// The first element checked (0 when absent).
    pub start: Option<u32>,
    /// How many elements are checked (as many as the binding holds when absent).
    pub count: Option<u32>,
    /// The distance between checked elements (1 when absent).
    pub stride: Option<u32>,
    /// Check the binding's last element only.
    #[serde(default)]
    pub last: bool,
    #[serde(flatten)]
    pub rule: Rule,
}

/// What must hold. `of` names another binding (group 0 unless `of_group`), compared with its
/// initial contents.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Rule {
    EqualsFile {
        path: PathBuf,
    },
    /// Non-decreasing as `type` (u32 unless given).
    Sorted {
        #[serde(default, rename = "type")]
        ty: ElementType,
    },
    /// One word: the wrapping u32 sum of `of`.
    Sum {
        of: u32,
        #[serde(default)]
        of_group: u32,
    },
    AllEqual {
        value: u32,
    },
    /// The same multiset of words as `of`, in any order.
    Permutation {
        of: u32,
        #[serde(default)]
        of_group: u32,
    },
    SortedPermutation(SortedPermutation),
    /// `prefix-sum` is the u32 inclusive add scan it always was.
    #[serde(alias = "prefix-sum")]
    InclusiveScan(Scan),
    ExclusiveScan(Scan),
    Equals(Equals),
    Reference(Reference),
}

impl Rule {
    /// The binding whose initial contents this rule compares with, if any.
    fn of(&self) -> Option<Of> {
        match self {
            Rule::Sum { of, of_group } | Rule::Permutation { of, of_group } => {
                Some((*of_group, *of))
            }
            Rule::SortedPermutation(SortedPermutation { of, .. })
            | Rule::InclusiveScan(Scan { of, .. })
            | Rule::ExclusiveScan(Scan { of, .. })
            | Rule::Equals(Equals {
                expected: Expected::Of(of),
                ..
            }) => Some(*of),
            Rule::EqualsFile { .. }
            | Rule::Sorted { .. }
            | Rule::AllEqual { .. }
            | Rule::Equals(_)
            | Rule::Reference(_) => None,
        }
    }

    /// The kind and what it compares with: "inclusive-scan of 0:1", "all-equal 1024".
    pub fn describe(&self) -> String {
        let of = |(g, b): Of| format!("{g}:{b}");
        match self {
            Rule::EqualsFile { path } => format!("equals-file {}", path.display()),
            Rule::Sorted { ty } => format!("sorted ({})", ty.name()),
            Rule::Sum { of: b, of_group } => format!("sum of {}", of((*of_group, *b))),
            Rule::AllEqual { value } => format!("all-equal {value}"),
            Rule::Permutation { of: b, of_group } => {
                format!("permutation of {}", of((*of_group, *b)))
            }
            Rule::SortedPermutation(s) => {
                format!("sorted-permutation ({}) of {}", s.ty.name(), of(s.of))
            }
            Rule::InclusiveScan(s) | Rule::ExclusiveScan(s) => format!(
                "{}-scan ({:?}, {}) of {}",
                if matches!(self, Rule::InclusiveScan(_)) {
                    "inclusive"
                } else {
                    "exclusive"
                },
                s.op,
                s.compare.ty.name(),
                of(s.of)
            )
            .to_lowercase(),
            Rule::Equals(e) => match &e.expected {
                Expected::Values(_) => format!("equals ({}) values", e.compare.ty.name()),
                Expected::Fill(f) => format!("equals fill {}", f.ty.show(f.word)),
                Expected::Of(b) => format!("equals ({}) {}", e.compare.ty.name(), of(*b)),
            },
            Rule::Reference(r) => format!("reference `{}`", r.entry),
        }
    }
}

impl Check {
    /// The bindings this check reads: the checked one, and the one it compares with.
    pub fn reads(&self) -> Vec<(u32, u32)> {
        let mut reads = vec![(self.group, self.binding)];
        reads.extend(self.rule.of());
        reads
    }

    /// How reports name this check.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("check `{name}`"),
            None => self.rule.describe(),
        }
    }

    /// The elements checked in a binding of `words` words, or what is wrong with the
    /// selection. A `sum` checks one element unless told otherwise.
    pub fn slice(&self, words: u32) -> Result<Slice, String> {
        if self.words.is_some() && self.count.is_some() {
            return Err("give `count` or `words` (its older name), not both".into());
        }
        let selection = Selection {
            start: self.start,
            count: self.count,
            stride: self.stride,
            last: self.last,
        };
        let first = match self.rule {
            Rule::Sum { .. } => Some(self.words.unwrap_or(1)),
            _ => self.words,
        };
        selection.slice(words, first)
    }

    /// What is wrong with this check's sizes in `app`, whose bindings it reads (checked
    /// before): a selection past the binding, a binding compared with that is shorter than
    /// the elements checked reach, a list of expected values of another length.
    pub fn validate(&self, app: &App) -> Result<(), String> {
        let words = |(g, b): Of| app.binding(g, b).map_or(0, |b| b.words);
        let slice = self.slice(words((self.group, self.binding)))?;
        if let Some(of) = self.rule.of() {
            let available = words(of) as usize;
            if !matches!(self.rule, Rule::Sum { .. }) && available < slice.end() {
                return Err(format!(
                    "binding {}:{} has {available} words, fewer than the {} the checked elements reach",
                    of.0,
                    of.1,
                    slice.end()
                ));
            }
        }
        if let Rule::Equals(Equals {
            expected: Expected::Values(list),
            ..
        }) = &self.rule
        {
            if list.words.len() != slice.count as usize {
                return Err(format!(
                    "`values` has {} values for the {} checked elements (set `count` to check fewer)",
                    list.words.len(),
                    slice.count
                ));
            }
        }
        Ok(())
    }
}

/// Prepares `app`'s checks on `gpu`: expected values from the initial contents, and from
/// one run of each reference kernel, shared by the checks that name the same one.
pub fn prepare(app: &App, gpu: &Gpu) -> crate::Result<Vec<Prepared>> {
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
        crate::Error::Input(format!(
            "{}: binding {}:{}: {m}",
            check.label(),
            check.group,
            check.binding
        ))
    })
}

fn binding(app: &App, (group, binding): Of) -> crate::Result<&crate::app::spec::Binding> {
    app.binding(group, binding).ok_or_else(|| {
        crate::Error::Input(format!(
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
pub fn scan(input: &[u32], s: &Scan, inclusive: bool) -> Vec<u32> {
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
pub struct Prepared {
    check: Check,
    slice: Slice,
    expected: Vec<u32>,
}

impl Prepared {
    pub(crate) fn resolve_paths(check: &mut Check, dir: &std::path::Path) {
        match &mut check.rule {
            Rule::EqualsFile { path }
            | Rule::Reference(Reference {
                shader: Some(path), ..
            }) => *path = dir.join(&*path),
            _ => {}
        }
    }

    /// `Err` says which check failed on which binding, how many elements are wrong, and the
    /// first few, in one line.
    pub fn verify(&self, outputs: &Outputs) -> Result<(), String> {
        let c = &self.check;
        let all = outputs
            .get(c.group, c.binding)
            .ok_or_else(|| format!("binding {}:{} was not read back", c.group, c.binding))?;
        let got = self.slice.take(all);
        match self.wrong(&got) {
            None => Ok(()),
            Some(detail) => Err(format!(
                "{}: binding {}:{}{}: {detail}",
                c.label(),
                c.group,
                c.binding,
                self.slice.describe()
            )),
        }
    }

    /// What is wrong with `got`, if anything.
    fn wrong(&self, got: &[u32]) -> Option<String> {
        let expected = &self.expected;
        let exact = |ty| Compare {
            ty,
            tolerance: None,
        };
        // Reports name elements by their index in the binding.
        let index = |k: usize| self.slice.index(k);
        let (compare, mismatches) = match &self.check.rule {
            Rule::Sorted { ty } => return descents(got, *ty, &index),
            Rule::Permutation { of, of_group } => {
                return permutation(got, expected, (*of_group, *of), ElementType::U32)
            }
            Rule::SortedPermutation(s) => {
                let compare = exact(s.ty);
                let m = Mismatches::find(got, expected, |g, e| compare.equal(g, e)).at(index);
                if m.is_empty() {
                    return None;
                }
                let mut why = Vec::new();
                if let Some(d) = descents(got, s.ty, &index) {
                    why.push(format!("not sorted ({d})"));
                }
                if let Some(p) = permutation(got, expected, s.of, s.ty) {
                    why.push(p);
                }
                why.push(m.describe(s.ty));
                return Some(why.join("; "));
            }
            Rule::InclusiveScan(s) | Rule::ExclusiveScan(s) => (s.compare, expected),
            Rule::Equals(e) => (e.compare, expected),
            Rule::Reference(r) => (r.compare, expected),
            Rule::EqualsFile { .. } | Rule::Sum { .. } | Rule::AllEqual { .. } => {
                (exact(ElementType::U32), expected)
            }
        };
        let m = Mismatches::find(got, mismatches, |g, e| compare.equal(g, e)).at(index);
        (!m.is_empty()).then(|| m.describe(compare.ty))
    }
}

/// Neighbours out of order as `ty`: "2 of 255 pairs out of order: [4] = 9 > [5] = 5, ...",
/// element k of `got` named `[index(k)]`.
fn descents(got: &[u32], ty: ElementType, index: &dyn Fn(usize) -> usize) -> Option<String> {
    let out: Vec<usize> = (1..got.len())
        .filter(|&i| !ty.in_order(got[i - 1], got[i]))
        .collect();
    if out.is_empty() {
        return None;
    }
    let listed: Vec<String> = out
        .iter()
        .take(FIRST_FEW)
        .map(|&i| {
            format!(
                "[{}] = {} > [{}] = {}",
                index(i - 1),
                ty.show(got[i - 1]),
                index(i),
                ty.show(got[i])
            )
        })
        .collect();
    let more = if out.len() > FIRST_FEW { ", ..." } else { "" };
    Some(format!(
        "{} of {} pairs out of order: {}{more}",
        out.len(),
        got.len().saturating_sub(1),
        listed.join(", ")
    ))
}

/// How `got` differs from the multiset `sorted` (ascending words), if it does: "not a
/// permutation of 0:1: 2 values missing (5, 7), 2 extra (1, 1)".
fn permutation(
    got: &[u32],
    sorted: &[u32],
    (group, binding): Of,
    ty: ElementType,
) -> Option<String> {
    let mut got = got.to_vec();
    got.sort_unstable();
    let mut sorted = sorted.to_vec();
    sorted.sort_unstable();
    let (mut missing, mut extra) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < got.len() || j < sorted.len() {
        match (got.get(i), sorted.get(j)) {
            (Some(g), Some(e)) if g == e => (i, j) = (i + 1, j + 1),
            (Some(g), e) if e.is_none_or(|e| g < e) => {
                extra.push(*g);
                i += 1;
            }
            (_, Some(e)) => {
                missing.push(*e);
                j += 1;
            }
            (_, None) => unreachable!("the loop runs while one is left"),
        }
    }
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    let few = |v: &[u32]| {
        let listed: Vec<String> = v.iter().take(FIRST_FEW).map(|w| ty.show(*w)).collect();
        let more = if v.len() > FIRST_FEW { ", ..." } else { "" };
        format!("{}{more}", listed.join(", "))
    };
    Some(format!(
        "not a permutation of {group}:{binding}: {} values missing ({}), {} extra ({})",
        missing.len(),
        few(&missing),
        extra.len(),
        few(&extra)
    ))
}

#[cfg(test)]
mod tests;
