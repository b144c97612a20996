//! `wgstress mutants`: the MC Mutants suite in one environment (death rates, mutation score,
//! reproducibility, conformance violations), or `--search` for the best environment.

use super::litmus::EnvArgs;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wgstress_runtime::device::{describe, open, Gpu};
use wgstress_runtime::litmus::env::Env;
use wgstress_runtime::litmus::env_file::EnvFile;
use wgstress_runtime::litmus::mutants::{run_suite, summarise, Pool, TestResult};
use wgstress_runtime::litmus::search::{search, Candidate, SearchConfig, Space};
use wgstress_runtime::litmus::test::{self, Kind, Test};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// Seconds each test runs
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// Which tests: all, mutants or conformance
    #[arg(long, default_value = "all", value_parser = ["all", "mutants", "conformance"])]
    tests: String,
    /// Reproducibility target of the score and of the search's Algorithm 1
    #[arg(long, default_value_t = 0.99999)]
    reproducibility: f64,
    /// Per-test time budget (seconds) the reproducibility score is for
    #[arg(long, default_value_t = 64.0)]
    budget: f64,
    /// Search environments for this many seconds instead, and write the best to --write-env
    #[arg(long, value_name = "SECONDS")]
    search: Option<f64>,
    /// Seconds each mutant runs in each environment of the search
    #[arg(long, default_value_t = 0.1)]
    search_time: f64,
    /// Share of the search spent on random environments before guided ones
    #[arg(long, default_value_t = 0.5)]
    random_share: f64,
    /// Testing workgroups the search tries (comma-separated)
    #[arg(long, value_delimiter = ',', default_values_t = [256u32, 512, 1024])]
    search_groups: Vec<u32>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the search writes the best environment
    #[arg(long, default_value = "wgstress-env.json")]
    write_env: PathBuf,
    /// Print the results as JSON
    #[arg(long)]
    json: bool,
}

fn check(args: &Args) -> Result<()> {
    if !(args.time > 0.0 && args.search_time > 0.0 && args.budget > 0.0) {
        bail!("--time, --search-time and --budget must be above 0");
    }
    if !(args.reproducibility > 0.0 && args.reproducibility < 1.0) {
        bail!("--reproducibility must be between 0 and 1 (exclusive)");
    }
    if !(0.0..=1.0).contains(&args.random_share) {
        bail!("--random-share must be between 0 and 1");
    }
    if args.search.is_some_and(|s| s <= 0.0) {
        bail!("--search must be above 0 seconds");
    }
    Ok(())
}

fn selected(which: &str) -> Vec<Test> {
    test::all()
        .into_iter()
        .filter(|t| match (which, t.kind) {
            (_, Kind::Classic) => false,
            ("mutants", Kind::Mutant(_)) | ("conformance", Kind::Conformance(_)) => true,
            (w, _) => w == "all",
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode> {
    check(&args)?;
    let gpu = open(args.env.adapter.as_deref())?;
    if let Some(seconds) = args.search {
        return run_search(&args, &gpu, seconds);
    }
    let env = args.env.resolve(false, &gpu.info.name)?;
    let tests = selected(&args.tests);
    let start = Instant::now();
    eprintln!(
        "wgstress: {} tests for {} s each on {}",
        tests.len(),
        args.time,
        describe(&gpu.info)
    );
    let mut pool = Pool::default();
    let results = run_suite(
        &gpu,
        &mut pool,
        &tests,
        &env,
        Duration::from_secs_f64(args.time),
        &mut |r| eprintln!("{}", line(r)),
    )?;
    let summary = summarise(&results, args.reproducibility, args.budget);
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let report = serde_json::json!({
            "adapter": describe(&gpu.info),
            "env": env,
            "time_per_test": args.time,
            "summary": summary,
            "results": results,
            "seconds": seconds,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{:<30} {:<28} {:>14} {:>12} {:>14}",
            "test", "kind", "instances", "target", "per second"
        );
        for r in &results {
            println!("{}", line(r));
        }
        println!(
            "mutation score   {}/{} = {:.1}% (mean death rate {:.1}/s)",
            summary.killed,
            summary.mutants,
            summary.mutation_score * 100.0,
            summary.mean_death_rate
        );
        println!(
            "reproducible     {}/{} mutants die at least {:.3}/s: {:.3}% sure to die within {} s",
            summary.reproducible,
            summary.mutants,
            summary.ceiling_rate,
            summary.reproducibility * 100.0,
            summary.budget
        );
        println!(
            "coherence violations      {}",
            list_or_none(&summary.incoherent)
        );
        println!(
            "release/acquire only      {}",
            list_or_none(&summary.relacq_only)
        );
        println!("environment      {}", serde_json::to_string(&env)?);
        for r in results.iter().filter(|r| !r.violations.is_empty()) {
            println!(
                "replay           wgstress litmus {} {} --time {}",
                r.name,
                replay_options(&env),
                args.time
            );
        }
        println!("took             {seconds:.1} s");
    }
    // A broken coherence promise is a bug by WGSL's own rules (or naga's).
    Ok(if summary.incoherent.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The `litmus` options that rebuild `env`.
fn replay_options(env: &Env) -> String {
    let mut options = format!(
        "--testing-groups {} --workgroup-size {} --stride {} --distance {} --placement {} --stress-groups {} --stress-offset {} --target-lines {} --line-size {} --sequence '{}' --stress-iterations {} --pre-stress {}",
        env.testing_groups,
        env.workgroup_size,
        env.stride,
        env.distance,
        env.placement,
        env.stress_groups,
        env.stress_offset,
        env.target_lines,
        env.line_size,
        env.sequence,
        env.stress_iterations,
        env.pre_stress
    );
    if !env.shuffle {
        options.push_str(" --no-shuffle");
    }
    options
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn line(r: &TestResult) -> String {
    let mut text = format!(
        "{:<30} {:<28} {:>14} {:>12} {:>14.1}",
        r.name,
        r.kind.label(),
        r.instances,
        r.counts.target,
        r.rate
    );
    for v in &r.violations {
        text.push_str(&format!(
            "  DISALLOWED {} x{}{}",
            v.outcome,
            v.count,
            if v.incoherent {
                " (incoherent)"
            } else {
                " (release/acquire)"
            }
        ));
    }
    text
}

fn run_search(args: &Args, gpu: &Gpu, seconds: f64) -> Result<ExitCode> {
    let config = SearchConfig {
        space: Space {
            testing_groups: args.search_groups.clone(),
            workgroup_size: args.env.workgroup_size,
            ..Space::default()
        },
        budget: Duration::from_secs_f64(seconds),
        per_test: Duration::from_secs_f64(args.search_time),
        random_share: args.random_share,
        reproducibility: args.reproducibility,
        test_budget: args.budget,
        seed: args.seed,
    };
    eprintln!(
        "wgstress: searching {} s on {}, {} s per mutant per environment",
        seconds,
        describe(&gpu.info),
        args.search_time
    );
    let tests = selected("mutants");
    let mut tried = 0;
    let result = search(
        gpu,
        &tests,
        &config,
        &mut |c: &Candidate, best: &Candidate| {
            tried += 1;
            eprintln!(
            "env {tried:>3} {:<7} killed {:>2} above ceiling {:>2} min rate {:>12.3}  (best: {} above, min {:.3}) {:.1} s",
            format!("{:?}", c.phase).to_lowercase(),
            c.killed,
            c.above_ceiling,
            finite(c.min_rate),
            best.above_ceiling,
            finite(best.min_rate),
            c.seconds
        );
        },
    )?;
    let best = result.best();
    let file = EnvFile {
        adapter: gpu.info.name.clone(),
        driver: format!("{} {}", gpu.info.driver, gpu.info.driver_info),
        backend: format!("{:?}", gpu.info.backend),
        env: best.env.clone(),
        reproducibility: args.reproducibility,
        budget: args.budget,
        above_ceiling: best.above_ceiling,
        min_rate: best.min_rate.is_finite().then_some(best.min_rate),
        mutants: result.mutants.len(),
        killed: best.killed,
        rates: result
            .mutants
            .iter()
            .cloned()
            .zip(best.rates.iter().copied())
            .collect(),
        environments_tried: result.candidates.len(),
        search_seconds: result.seconds,
    };
    file.save(&args.write_env)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        println!(
            "tried            {} environments in {:.1} s",
            result.candidates.len(),
            result.seconds
        );
        println!(
            "best             {} of {} mutants at or above {:.3}/s, {} killed, min rate {:.3}/s",
            best.above_ceiling,
            result.mutants.len(),
            result.ceiling_rate,
            best.killed,
            finite(best.min_rate)
        );
        println!("environment      {}", serde_json::to_string(&best.env)?);
        println!("written to       {}", args.write_env.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// A minimum over no rates is infinite; show it as 0.
fn finite(rate: f64) -> f64 {
    if rate.is_finite() {
        rate
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use wgstress_runtime::litmus::env::Placement;

    #[derive(Parser)]
    struct Options {
        #[command(flatten)]
        env: EnvArgs,
    }

    #[test]
    fn replay_options_rebuild_the_environment() {
        let env = Env {
            testing_groups: 512,
            stride: 4,
            distance: 1 << 20,
            placement: Placement::Scattered,
            shuffle: false,
            stress_groups: 7,
            stress_offset: 3,
            target_lines: 9,
            sequence: "st;ld;st".parse().unwrap(),
            stress_iterations: 99,
            pre_stress: 5,
            ..Env::default()
        };
        let text = replay_options(&env);
        let words = std::iter::once("wgstress")
            .chain(text.split_whitespace().map(|w| w.trim_matches('\'')));
        let parsed = Options::try_parse_from(words).unwrap();
        assert_eq!(parsed.env.env(false), env);
    }
}
