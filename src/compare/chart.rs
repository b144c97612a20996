//! The comparison's bar chart (SVG).

use anyhow::{anyhow, Result};
use std::path::Path;
use wgstress_model::run::summary::Comparison;

/// A bar chart of failure rates per configuration, as SVG.
pub fn chart(c: &Comparison, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let to_error = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| to_error(&e))?;
    let rates: Vec<f64> = c
        .rows
        .iter()
        .map(|r| r.stats.failure_rate * 100.0)
        .collect();
    let top = rates.iter().cloned().fold(0.0, f64::max).max(1e-3) * 1.15;
    let labels: Vec<String> = c.rows.iter().map(super::comparison::label).collect();
    let mut plot = ChartBuilder::on(&root)
        .caption(
            format!("{}: failing runs per strategy ({})", c.app, c.adapter),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (0..labels.len().saturating_sub(1)).into_segmented(),
            0.0..top,
        )
        .map_err(|e| to_error(&e))?;
    plot.configure_mesh()
        .disable_x_mesh()
        .y_desc("failing runs (%)")
        .x_labels(labels.len())
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(|e| to_error(&e))?;
    plot.draw_series(rates.iter().enumerate().map(|(i, rate)| {
        let mut bar = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0.0),
                (SegmentValue::Exact(i + 1), *rate),
            ],
            BLUE.mix(0.6).filled(),
        );
        bar.set_margin(0, 0, 8, 8);
        bar
    }))
    .map_err(|e| to_error(&e))?;
    root.present().map_err(|e| to_error(&e))?;
    Ok(())
}
