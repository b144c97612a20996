//! Host checks over read-back buffers, declared in app specs.

use crate::spec::{App, Outputs};
use serde::Deserialize;
use std::path::PathBuf;

// No deny_unknown_fields here: serde cannot combine it with the flattened rule.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Check {
    #[serde(default)]
    pub group: u32,
    pub binding: u32,
    /// Check only the first `words` words (all when absent).
    pub words: Option<u32>,
    #[serde(flatten)]
    pub rule: Rule,
}

/// What must hold. `of` names another binding (group 0 unless `of_group`), compared with its
/// initial contents.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Rule {
    EqualsFile {
        path: PathBuf,
    },
    Sorted,
    PrefixSum {
        of: u32,
        #[serde(default)]
        of_group: u32,
    },
    Sum {
        of: u32,
        #[serde(default)]
        of_group: u32,
    },
    AllEqual {
        value: u32,
    },
    Permutation {
        of: u32,
        #[serde(default)]
        of_group: u32,
    },
}

impl Check {
    /// The bindings this check reads: the checked one, and the one it compares with.
    pub fn reads(&self) -> Vec<(u32, u32)> {
        let mut reads = vec![(self.group, self.binding)];
        match &self.rule {
            Rule::PrefixSum { of, of_group }
            | Rule::Sum { of, of_group }
            | Rule::Permutation { of, of_group } => reads.push((*of_group, *of)),
            Rule::EqualsFile { .. } | Rule::Sorted | Rule::AllEqual { .. } => {}
        }
        reads
    }
}

/// A check with the reference data it needs, computed once.
pub struct Prepared {
    check: Check,
    expected: Vec<u32>,
}

impl Prepared {
    /// Computes reference data from the app's initial contents.
    pub fn new(check: &Check, app: &App) -> crate::Result<Prepared> {
        let initial = |group: u32, binding: u32| -> crate::Result<Vec<u32>> {
            let b = app.binding(group, binding).ok_or_else(|| {
                crate::Error::Input(format!(
                    "a check refers to binding {group}:{binding}, which the spec does not declare"
                ))
            })?;
            b.init.words(b.words)
        };
        let expected = match &check.rule {
            Rule::EqualsFile { path } => crate::init::Init::File { path: path.clone() }.words(
                app.binding(check.group, check.binding)
                    .map_or(0, |b| b.words),
            )?,
            Rule::PrefixSum { of, of_group } => initial(*of_group, *of)?
                .iter()
                .scan(0u32, |acc, x| {
                    *acc = acc.wrapping_add(*x);
                    Some(*acc)
                })
                .collect(),
            Rule::Sum { of, of_group } => {
                vec![initial(*of_group, *of)?
                    .iter()
                    .fold(0u32, |a, x| a.wrapping_add(*x))]
            }
            Rule::Permutation { of, of_group } => {
                let mut v = initial(*of_group, *of)?;
                v.sort_unstable();
                v
            }
            Rule::Sorted | Rule::AllEqual { .. } => Vec::new(),
        };
        Ok(Prepared {
            check: check.clone(),
            expected,
        })
    }

    pub(crate) fn resolve_paths(check: &mut Check, dir: &std::path::Path) {
        if let Rule::EqualsFile { path } = &mut check.rule {
            *path = dir.join(&*path);
        }
    }

    /// `Err` says what is wrong, with the first differing index.
    pub fn verify(&self, outputs: &Outputs) -> Result<(), String> {
        let c = &self.check;
        let all = outputs
            .get(c.group, c.binding)
            .ok_or_else(|| format!("binding {}:{} was not read back", c.group, c.binding))?;
        let words = c.words.map_or(all.len(), |w| (w as usize).min(all.len()));
        let got = &all[..words];
        let name = format!("binding {}:{}", c.group, c.binding);
        match &c.rule {
            Rule::Sorted => match got.windows(2).position(|w| w[0] > w[1]) {
                Some(i) => Err(format!(
                    "{name} is not sorted: [{i}] = {} > [{}] = {}",
                    got[i],
                    i + 1,
                    got[i + 1]
                )),
                None => Ok(()),
            },
            Rule::AllEqual { value } => match got.iter().position(|x| x != value) {
                Some(i) => Err(format!("{name}[{i}] = {}, expected {value}", got[i])),
                None => Ok(()),
            },
            Rule::Permutation { .. } => {
                let mut sorted = got.to_vec();
                sorted.sort_unstable();
                let n = words.min(self.expected.len());
                if sorted.len() != n || sorted[..] != self.expected[..n] {
                    Err(format!("{name} is not a permutation of its source"))
                } else {
                    Ok(())
                }
            }
            Rule::EqualsFile { .. } | Rule::PrefixSum { .. } | Rule::Sum { .. } => {
                let n = words.min(self.expected.len());
                match (0..n).find(|&i| got[i] != self.expected[i]) {
                    Some(i) => Err(format!(
                        "{name}[{i}] = {}, expected {}",
                        got[i], self.expected[i]
                    )),
                    None => Ok(()),
                }
            }
        }
    }
}
