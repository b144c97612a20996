//! The merged report as text, and as an HTML page with SVG charts; the JSON is the report's
//! own serialisation.

mod html;
mod svg;
mod text;

pub use html::html;
pub use text::text;

use crate::merge::report::{Counts, Row};

/// A rate as a percentage, or in scientific notation below 0.1%.
pub fn rate(p: f64) -> String {
    if p == 0.0 {
        "0".to_string()
    } else if p >= 0.001 {
        format!("{:.1}%", p * 100.0)
    } else {
        format!("{p:.1e}")
    }
}

/// "12 / 3400  0.35% [0.07%, 1.0%]"
pub fn counts(c: &Counts) -> String {
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
pub fn label(item: &str, config: Option<&String>) -> String {
    match config {
        Some(c) => format!("{item} [{c}]"),
        None => item.to_string(),
    }
}

pub fn seconds(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |s| format!("{s:.2} s"))
}

/// "fail (expected)", "pass (unexpected pass)".
pub fn verdict(row: &Row) -> String {
    format!("{} ({})", row.outcome.name(), row.judgement.name())
}

/// Columns padded to their widest cell, two spaces apart.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
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
