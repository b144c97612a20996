//! Expectations (a TOML file of `[[expect]]` entries): per item name and adapter pattern,
//! the outcome a campaign expects (pass, fail or flaky). The first entry that matches an
//! item on an adapter decides; an item no entry matches is expected to pass.

use crate::error::{CampaignError, Result};
use crate::outcome::ExpectedOutcome;
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    expect: Vec<Spanned<Entry>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    /// A pattern over the item's name (`*` any text, `?` one character, case-insensitive).
    pub item: String,
    /// A pattern over the adapter's name and driver ("NVIDIA H100 80GB HBM3, driver ...").
    #[serde(default = "any")]
    pub adapter: String,
    pub outcome: ExpectedOutcome,
    /// Why, for the reader: read from the file (which may hold it), used by nothing.
    #[serde(default)]
    #[allow(dead_code)]
    pub reason: Option<String>,
}

fn any() -> String {
    "*".to_string()
}

#[derive(Clone, Debug, Default)]
pub struct Baseline {
    pub(crate) entries: Vec<Entry>,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline> {
        let text = wgstress_model::read::text(
            path,
            wgstress_model::read::PLAN_BYTES,
            "a baseline may hold",
        )
        .map_err(CampaignError::read)?;
        let file: File = toml::from_str(&text).map_err(|e| CampaignError::toml(path, &text, &e))?;
        if file.expect.is_empty() {
            return Err(CampaignError::at(
                path,
                &text,
                0,
                "the baseline has no [[expect]]",
            ));
        }
        Ok(Baseline {
            entries: file.expect.into_iter().map(Spanned::into_inner).collect(),
        })
    }

    /// What is expected of the item named `item` on `adapter` (its model: name and driver).
    pub(crate) fn expect(&self, item: &str, adapter: &str) -> ExpectedOutcome {
        self.entries
            .iter()
            .find(|e| matches(&e.item, item) && matches(&e.adapter, adapter))
            .map_or(ExpectedOutcome::Pass, |e| e.outcome)
    }
}

/// Whether `text` matches `pattern` (`*` any text, `?` any one character), ignoring case.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // The classic two-pointer match, backtracking to the last star.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_with_stars_and_question_marks_ignoring_case() {
        assert!(matches("*", ""));
        assert!(matches("run cub-scan*", "run cub-scan --variant buggy"));
        assert!(matches(
            "*h100*",
            "NVIDIA H100 80GB HBM3, driver NVIDIA 550"
        ));
        assert!(matches("a?c", "abc"));
        assert!(!matches("a?c", "ac"));
        assert!(!matches("*h100", "NVIDIA H100 80GB"));
        assert!(matches("*a*b*", "xaxxbx"));
    }

    #[test]
    fn the_first_matching_entry_decides_and_the_rest_pass() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.toml");
        std::fs::write(
            &path,
            "[[expect]]\nitem = \"a*\"\nadapter = \"*gpu*\"\noutcome = \"fail\"\n\n\
             [[expect]]\nitem = \"a*\"\noutcome = \"flaky\"\n",
        )
        .unwrap();
        let b = Baseline::load(&path).unwrap();
        assert_eq!(b.expect("ab", "Some GPU"), ExpectedOutcome::Fail);
        assert_eq!(b.expect("ab", "llvmpipe"), ExpectedOutcome::Flaky);
        assert_eq!(b.expect("b", "Some GPU"), ExpectedOutcome::Pass);
        std::fs::write(&path, "[[expect]]\nitem = \"a\"\noutcome = \"broken\"\n").unwrap();
        let error = Baseline::load(&path).unwrap_err().to_string();
        assert!(
            error.contains("b.toml:3:11: unknown variant `broken`"),
            "{error}"
        );
    }
}
