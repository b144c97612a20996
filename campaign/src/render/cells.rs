//! What the text, the page and the chart share: rates and counts as cells, tables, and the
//! series the side-by-side table and the chart compare.

use crate::merge::report::{Counts, MergedReport, Row};
use crate::outcome::{BaselineJudgement, SessionOutcome};
use std::collections::BTreeMap;

/// What the side-by-side table and the chart compare: the adapter models, or the GPUs when
/// they are all of one model.
pub(crate) struct Series {
    /// "adapter model" or "GPU".
    pub of: &'static str,
    pub names: Vec<String>,
    /// The items (with compare's configuration), in order.
    pub labels: Vec<String>,
    /// Per (label, name), by index.
    pub cells: BTreeMap<(usize, usize), Counts>,
}

pub(crate) fn series(r: &MergedReport) -> Series {
    let by_gpu = r.model_names.len() < 2 && r.gpus.len() > 1;
    let cells: Vec<(String, String, &Counts)> = match by_gpu {
        false => r
            .models
            .iter()
            .map(|p| {
                (
                    label(&p.item, p.config.as_ref()),
                    p.model.clone(),
                    &p.counts,
                )
            })
            .collect(),
        true => r
            .rows
            .iter()
            .map(|row| {
                let gpu = format!("{} {}", row.host, row.adapter.place);
                (label(&row.item, row.config.as_ref()), gpu, &row.counts)
            })
            .collect(),
    };
    let mut out = Series {
        of: if by_gpu { "GPU" } else { "adapter model" },
        names: Vec::new(),
        labels: Vec::new(),
        cells: BTreeMap::new(),
    };
    for (label, name, counts) in cells {
        let at = |list: &mut Vec<String>, x: String| match list.iter().position(|y| *y == x) {
            Some(i) => i,
            None => {
                list.push(x);
                list.len() - 1
            }
        };
        let key = (at(&mut out.labels, label), at(&mut out.names, name));
        out.cells.insert(key, counts.clone());
    }
    out
}

/// A rate as a percentage, or in scientific notation below 0.1%.
pub(crate) fn rate(p: f64) -> String {
    if p == 0.0 {
        "0".to_string()
    } else if p >= 0.001 {
        format!("{:.1}%", p * 100.0)
    } else {
        format!("{p:.1e}")
    }
}

/// "12 / 3400  0.35% [0.07%, 1.0%]"
pub(crate) fn counts(c: &Counts) -> String {
    format!(
        "{} / {}  {} [{}, {}]",
        c.failures,
        c.runs,
        rate(c.rate),
        rate(c.interval_95[0]),
        rate(c.interval_95[1])
    )
}

/// An item and its compare configuration, as one label.
pub(crate) fn label(item: &str, config: Option<&String>) -> String {
    match config {
        Some(c) => format!("{item} [{c}]"),
        None => item.to_string(),
    }
}

pub(crate) fn seconds(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |s| format!("{s:.2} s"))
}

/// "fail (expected)", "pass (unexpected pass)"; "incomplete" once.
pub(crate) fn verdict(row: &Row) -> String {
    verdict_of(row.outcome, row.judgement)
}

fn verdict_of(outcome: SessionOutcome, judgement: BaselineJudgement) -> String {
    let (outcome, judgement) = (outcome.name(), judgement.name());
    if outcome == judgement {
        outcome.to_string()
    } else {
        format!("{outcome} ({judgement})")
    }
}

/// Columns padded to their widest cell, two spaces apart.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_says_each_word_once() {
        assert_eq!(
            verdict_of(SessionOutcome::Incomplete, BaselineJudgement::Incomplete),
            "incomplete"
        );
        assert_eq!(
            verdict_of(SessionOutcome::Pass, BaselineJudgement::UnexpectedPass),
            "pass (unexpected pass)"
        );
        assert_eq!(
            verdict_of(SessionOutcome::Fail, BaselineJudgement::Expected),
            "fail (expected)"
        );
    }
}
