//! The host checks a spec declares (`[[check]]`): which binding, which of its elements,
//! and the rule they must follow. What a check is, not how it runs: `checks` prepares and
//! verifies them on a device.

mod kinds;
mod slice;

pub use kinds::{Compare, Equals, Expected, Of, Reference, Scan, ScanOp, SortedPermutation};
pub use slice::{Selection, Slice};

use crate::init::ElementType;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A spec writes the rule's kind and keys beside the check's own (`kind = "all-equal"`);
/// `app::tagged` moves them under `rule` (`rule = { all-equal = { ... } }`) before serde reads
/// the check, so that an error in any of them points at its own key.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
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
    pub rule: Rule,
}

/// What must hold. `of` names another binding (group 0 unless `of_group`), compared with its
/// initial contents. Written `kind = "NAME"` beside its keys, read as `NAME = { ... }`
/// (`app::tagged`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
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

/// A check is written as a spec writes it: its own keys, then the rule's `kind` and keys.
impl Serialize for Check {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let number = |n: u32| toml::Value::Integer(i64::from(n));
        let mut own: Vec<(&'static str, toml::Value)> = Vec::new();
        if let Some(name) = &self.name {
            own.push(("name", toml::Value::String(name.clone())));
        }
        own.push(("group", number(self.group)));
        own.push(("binding", number(self.binding)));
        for (key, value) in [
            ("words", self.words),
            ("start", self.start),
            ("count", self.count),
            ("stride", self.stride),
        ] {
            if let Some(value) = value {
                own.push((key, number(value)));
            }
        }
        if self.last {
            own.push(("last", toml::Value::Boolean(true)));
        }
        crate::tagged::serialize(serializer, &own, &self.rule)
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

    /// What is wrong with this check's sizes, given the words of each binding it reads
    /// (`words`: 0 for a binding the spec does not declare): a selection past the binding,
    /// a binding compared with that is shorter than the elements checked reach, a list of
    /// expected values of another length.
    pub fn validate(&self, words: &dyn Fn(Of) -> u32) -> Result<(), String> {
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

    /// Puts the files the check names (relative to the spec that declares it) under `dir`,
    /// the spec's directory.
    pub fn resolve_paths(&mut self, dir: &Path) {
        match &mut self.rule {
            Rule::EqualsFile { path }
            | Rule::Reference(Reference {
                shader: Some(path), ..
            }) => *path = dir.join(&*path),
            _ => {}
        }
    }
}
