//! The heat map `wgstress tune` draws (SVG).

use anyhow::{anyhow, Result};
use std::path::Path;
use wgstress_model::stress::profile::Profile;

/// A heat map of weak behaviour over distance x stressed location, one panel per test.
pub fn heat_map(profile: &Profile, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let to_error = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", path.display());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1200, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| to_error(&e))?;
        let panels = root.split_evenly((1, profile.patch_grid.len().max(1)));
        for (panel, (name, rows)) in panels.iter().zip(&profile.patch_grid) {
            let (d, l) = (rows.len(), rows.first().map_or(0, Vec::len));
            let max = rows.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
            let mut chart = ChartBuilder::on(panel)
                .caption(
                    format!("{} weak behaviours", name.to_uppercase()),
                    ("sans-serif", 16),
                )
                .margin(8)
                .x_label_area_size(36)
                .y_label_area_size(36)
                .build_cartesian_2d(0..l as u32, 1..d as u32 + 1)
                .map_err(|e| to_error(&e))?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("stressed location (words from x)")
                .y_desc("distance x..y")
                .draw()
                .map_err(|e| to_error(&e))?;
            chart
                .draw_series(rows.iter().enumerate().flat_map(|(di, row)| {
                    row.iter().enumerate().map(move |(li, w)| {
                        let v = *w as f64 / max;
                        let color =
                            RGBColor(255, (255.0 * (1.0 - v)) as u8, (255.0 * (1.0 - v)) as u8);
                        Rectangle::new(
                            [(li as u32, di as u32 + 1), (li as u32 + 1, di as u32 + 2)],
                            color.filled(),
                        )
                    })
                }))
                .map_err(|e| to_error(&e))?;
        }
        root.present().map_err(|e| to_error(&e))?;
    }
    wgstress_runtime::write::replace(path, svg.as_bytes()).map_err(|e| to_error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heat_map_has_a_panel_per_test() {
        let row: Vec<u64> = (0..8).map(|l| l % 4).collect();
        let profile = Profile {
            adapter: "GPU".into(),
            driver: "driver".into(),
            backend: "Vulkan".into(),
            patch_words: 4,
            sequence: Default::default(),
            spread: 2,
            patch_note: "note".into(),
            patch_grid: ["lb", "mp", "sb"]
                .iter()
                .map(|t| (t.to_string(), vec![row.clone(), row.clone()]))
                .collect(),
            sequence_scores: Vec::new(),
            spread_scores: Vec::new(),
            iterations_per_cell: 1,
            seconds: 1.0,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heat.svg");
        heat_map(&profile, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for test in ["LB", "MP", "SB"] {
            assert!(svg.contains(&format!("{test} weak behaviours")), "{test}");
        }
    }
}
