//! Comparing stress strategies on one application: every configuration gets the same budget,
//! spent in interleaved rounds so that drift of the machine (clocks, temperature, other load)
//! hits all of them alike.

use crate::engine::Calibration;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::log::JsonLog;
use crate::runner::{progress_bar, run_into, summarize, Budget, RunConfig, Stream, Summary};
use crate::strategy::Settings;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

pub struct Plan {
    /// Each configuration, with what its calibration measured (its time comes out of the
    /// configuration's budget).
    pub configs: Vec<(Settings, Option<Calibration>)>,
    /// Budget of each configuration, calibration included.
    pub budget: Budget,
    /// Systematic stress adapts its shape per run.
    pub adaptive: bool,
    pub rounds: u32,
    pub master_seed: u64,
    pub progress: bool,
    pub stop: Arc<AtomicBool>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub app: String,
    pub adapter: String,
    pub rounds: u32,
    pub rows: Vec<Summary>,
    pub aborted: Option<String>,
}

pub fn run(engine: &mut Engine, plan: &Plan, mut log: Option<&mut JsonLog>) -> Result<Comparison> {
    let configs: Vec<RunConfig> = plan
        .configs
        .iter()
        .enumerate()
        .map(|(i, (settings, calibration))| RunConfig {
            settings: settings.clone(),
            budget: plan.budget.less(
                calibration
                    .as_ref()
                    .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds)),
            ),
            // Each configuration its own stream of seeds, the same in every round.
            master_seed: crate::strategy::run_seed(plan.master_seed, i as u64),
            replay: None,
            adaptive: plan.adaptive,
            calibration: calibration.clone(),
            progress: plan.progress,
            stop: plan.stop.clone(),
        })
        .collect();
    let mut streams: Vec<Stream> = configs
        .iter()
        .map(|c| Stream::new(c, engine.batch_size()))
        .collect();
    let bar = progress_bar(&RunConfig {
        budget: share_total(plan),
        ..configs[0].clone()
    });
    let mut aborted = None;
    'rounds: for _ in 0..plan.rounds {
        for (config, stream) in configs.iter().zip(streams.iter_mut()) {
            let share = config.budget.share(plan.rounds);
            if let Some(reason) =
                run_into(engine, config, &share, stream, log.as_deref_mut(), &bar)?
            {
                aborted = Some(reason);
                break 'rounds;
            }
        }
    }
    bar.finish_and_clear();
    let rows = configs
        .iter()
        .zip(&streams)
        .map(|(config, stream)| summarize(engine, config, stream, None))
        .collect();
    Ok(Comparison {
        app: engine.app.name.clone(),
        adapter: engine.gpu.describe(),
        rounds: plan.rounds,
        rows,
        aborted,
    })
}

fn share_total(plan: &Plan) -> Budget {
    let n = plan.configs.len() as u32;
    Budget {
        runs: plan.budget.runs.map(|r| r * u64::from(n)),
        time: plan.budget.time.map(|t| t * n),
        failures: None,
    }
}

fn label(row: &Summary) -> String {
    format!(
        "{}{}",
        row.strategy,
        if row.shuffle { "+shuffle" } else { "" }
    )
}

pub fn table(c: &Comparison) -> String {
    let mut out = format!("{} on {} ({} rounds)\n", c.app, c.adapter, c.rounds);
    let _ = writeln!(
        out,
        "{:<20} {:>9} {:>9} {:>10} {:>10} {:>8} {:>11} {:>16}  failing as",
        "strategy", "failures", "runs", "rate", "runs/s", "iters", "first fail", "reproducibility"
    );
    for row in &c.rows {
        let s = &row.stats;
        let first = s
            .time_to_first_failure
            .map_or("-".into(), |t| format!("{t:.2} s"));
        let _ = writeln!(
            out,
            "{:<20} {:>9} {:>9} {:>9.4}% {:>10.1} {:>8} {:>11} {:>15.3}%  {}",
            label(row),
            s.failures,
            s.runs,
            s.failure_rate * 100.0,
            s.runs_per_second,
            row.iterations,
            first,
            s.reproducibility * 100.0,
            s.counts.failing()
        );
    }
    if let Some(reason) = &c.aborted {
        let _ = writeln!(out, "aborted: {reason}");
    }
    out
}

/// A bar chart of failure rates per configuration, as SVG.
pub fn chart(c: &Comparison, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let to_error = |e: &dyn std::fmt::Display| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| to_error(&e))?;
    let rates: Vec<f64> = c
        .rows
        .iter()
        .map(|r| r.stats.failure_rate * 100.0)
        .collect();
    let top = rates.iter().cloned().fold(0.0, f64::max).max(1e-3) * 1.15;
    let labels: Vec<String> = c.rows.iter().map(label).collect();
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
