//! The chart of the HTML page: per item, a bar per adapter model for its failure rate,
//! with the 95% interval as a whisker and the rate written beside it.

use super::cells::rate;
use crate::merge::report::MergedReport;
use std::fmt::Write;

const LABEL: f64 = 360.0;
const PLOT: f64 = 420.0;
const BAR: f64 = 14.0;
const GAP: f64 = 10.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Escapes text for XML and HTML.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// At most 54 characters: the start of a long label, and an ellipsis.
fn short(text: &str) -> String {
    match text.char_indices().nth(53) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// The rates of every item per adapter model (or per GPU), as one SVG.
pub(crate) fn rates(r: &MergedReport) -> String {
    let series = super::cells::series(r);
    let names = &series.names;
    let top = 20.0 + 18.0 * names.len() as f64;
    let group = BAR * names.len() as f64 + GAP;
    let height = top + group * series.labels.len() as f64 + 30.0;
    let width = LABEL + PLOT + 140.0;
    let max = series
        .cells
        .values()
        .map(|c| c.interval_95[1])
        .fold(0.0, f64::max)
        .max(1e-12);
    let x = |p: f64| LABEL + PLOT * p / max;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    for (i, name) in names.iter().enumerate() {
        let y = 14.0 + 18.0 * i as f64;
        let colour = COLOURS[i % COLOURS.len()];
        let _ = write!(
            svg,
            r#"<rect x="{LABEL}" y="{}" width="12" height="12" fill="{colour}"/><text x="{}" y="{y}">{}</text>"#,
            y - 10.0,
            LABEL + 18.0,
            escape(name)
        );
    }
    for (g, item) in series.labels.iter().enumerate() {
        let y0 = top + group * g as f64;
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end"><title>{}</title>{}</text>"#,
            LABEL - 8.0,
            y0 + group / 2.0,
            escape(item),
            escape(&short(item))
        );
        for (i, name) in names.iter().enumerate() {
            let Some(c) = series.cells.get(&(g, i)) else {
                continue;
            };
            let y = y0 + BAR * i as f64;
            let colour = COLOURS[i % COLOURS.len()];
            let [lo, hi] = c.interval_95;
            let _ = write!(
                svg,
                r#"<rect x="{LABEL}" y="{y}" width="{:.2}" height="{}" fill="{colour}"><title>{}: {} of {}</title></rect><line x1="{:.2}" x2="{:.2}" y1="{}" y2="{}" stroke="black"/><text x="{}" y="{}">{}</text>"#,
                x(c.rate) - LABEL,
                BAR - 2.0,
                escape(name),
                c.failures,
                c.runs,
                x(lo),
                x(hi),
                y + BAR / 2.0 - 1.0,
                y + BAR / 2.0 - 1.0,
                x(hi) + 6.0,
                y + BAR - 3.0,
                rate(c.rate)
            );
        }
    }
    let axis = top + group * series.labels.len() as f64 + 4.0;
    let _ = write!(
        svg,
        r#"<line x1="{LABEL}" x2="{}" y1="{axis}" y2="{axis}" stroke="black"/><text x="{LABEL}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{}</text></svg>"#,
        LABEL + PLOT,
        axis + 16.0,
        LABEL + PLOT,
        axis + 16.0,
        rate(max)
    );
    svg
}
