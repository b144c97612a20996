use super::litmus::EnvArgs;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use wgstress_runtime::litmus::{runner::Litmus, test};
use wgstress_runtime::tune::{heat_map, tune, TuneConfig};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// Distances between x and y, 1..=N
    #[arg(long, default_value_t = 64)]
    distances: u32,
    /// Stressed locations 0..N words from x
    #[arg(long, default_value_t = 128)]
    locations: u32,
    /// Longest access sequence tried
    #[arg(long, default_value_t = 5)]
    max_sequence: usize,
    /// Most patches stressed at once
    #[arg(long, default_value_t = 64)]
    max_spread: u32,
    /// Litmus iterations per grid cell
    #[arg(long, default_value_t = 16)]
    iterations_per_cell: u32,
    /// Seconds the whole tune may take: grids and iterations are scaled down to fit
    #[arg(long)]
    budget: Option<f64>,
    /// Where to write the device profile
    #[arg(long, default_value = wgstress_runtime::profile::DEFAULT_PATH)]
    profile: PathBuf,
    /// Where to write the heat map (SVG)
    #[arg(long, default_value = "wgstress-heatmap.svg")]
    heat_map: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let gpu = wgstress_runtime::device::open(args.env.adapter.as_deref())?;
    // The environment the search found, when it was found on this adapter.
    let mut env = args.env.resolve(false, &gpu.info.name)?;
    if env.stress_groups == 0 {
        env.stress_groups = (env.testing_groups / 2).max(1);
    }
    let mut config = TuneConfig {
        distances: args.distances.max(1),
        locations: args.locations.max(2),
        max_sequence: args.max_sequence.clamp(1, 5),
        max_spread: args.max_spread.clamp(1, 64),
        iterations_per_cell: args.iterations_per_cell.max(1),
        env,
    };
    eprintln!(
        "wgstress: tuning {}",
        wgstress_runtime::device::describe(&gpu.info)
    );
    if let Some(budget) = args.budget {
        let mut probe = Litmus::new(
            &gpu,
            test::find("mp").expect("mp"),
            config.env.clone(),
            0,
            0,
        )?;
        probe.run(&gpu, 1)?;
        let start = Instant::now();
        probe.run(&gpu, config.iterations_per_cell)?;
        config.fit(budget, start.elapsed().as_secs_f64());
        eprintln!(
            "wgstress: fitted to {budget} s: {} distances x {} locations, sequences up to {}, spread up to {}, {} iterations per cell",
            config.distances, config.locations, config.max_sequence, config.max_spread, config.iterations_per_cell
        );
    }
    let bar = wgstress_runtime::indicatif::ProgressBar::new(config.cells());
    bar.set_style(
        wgstress_runtime::indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} cells, {elapsed} so far, about {eta} left",
        )
        .expect("template"),
    );
    let profile = tune(&gpu, &config, &bar)?;
    bar.finish_and_clear();
    // The profile this one replaces, to say how tuning in another environment changed it.
    let previous = wgstress_runtime::profile::Profile::load(&args.profile).ok();
    profile.save(&args.profile)?;
    heat_map(&profile, &args.heat_map)?;
    println!("adapter          {}", profile.adapter);
    println!(
        "patch size       {} words ({})",
        profile.patch_words, profile.patch_note
    );
    println!("sequence         {}", profile.sequence);
    println!("spread           {} patches", profile.spread);
    println!(
        "took             {:.1} s ({} iterations per cell)",
        profile.seconds, profile.iterations_per_cell
    );
    println!("profile          {}", args.profile.display());
    if let Some(before) = previous.filter(|p| p.adapter == profile.adapter) {
        let changes = profile.changes_from(&before);
        let text = if changes.is_empty() {
            "none".to_string()
        } else {
            changes.join("; ")
        };
        println!("changes          {text} (from the profile it replaced)");
    }
    println!("heat map         {}", args.heat_map.display());
    Ok(ExitCode::SUCCESS)
}
