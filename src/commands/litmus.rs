use anyhow::{anyhow, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wgstress_runtime::litmus::env::{Env, Placement};
use wgstress_runtime::litmus::{runner::Counts, runner::Litmus, test};
use wgstress_runtime::stats::reproducibility;
use wgstress_runtime::strategy::Sequence;

/// A litmus environment on the command line.
#[derive(clap::Args, Clone)]
pub struct EnvArgs {
    #[arg(long, default_value_t = 256)]
    pub testing_groups: u32,
    #[arg(long, default_value_t = 256)]
    pub workgroup_size: u32,
    /// Words between instances' locations
    #[arg(long, default_value_t = 64)]
    pub stride: u32,
    /// Words from x to y (in one cache line, MP and LB show nothing on the H100)
    #[arg(long, default_value_t = 32)]
    pub distance: u32,
    /// Put y of every instance in its own region, this many words after the end of the x
    /// region (instances x stride words); replaces --distance
    #[arg(long)]
    pub y_gap: Option<u32>,
    /// Where instance k's locations go: direct (k), permuted (one co-prime permutation for x
    /// and y), y-permuted (x at k, y permuted: the paper's) or scattered (one permutation for
    /// x, another for y)
    #[arg(long, default_value = "permuted")]
    pub placement: Placement,
    /// Environment JSON written by `wgstress mutants --search`; used instead of the
    /// environment options when it was found on this adapter
    #[arg(long = "env", value_name = "FILE")]
    pub env_file: Option<PathBuf>,
    #[arg(long)]
    pub no_shuffle: bool,
    #[arg(long, default_value_t = 0)]
    pub stress_groups: u32,
    /// Word of an instance's region that stress hammers
    #[arg(long, default_value_t = 48)]
    pub stress_offset: u32,
    /// Instance regions stress spreads over
    #[arg(long, default_value_t = 2)]
    pub target_lines: u32,
    /// Words of each target line stress spreads over
    #[arg(long, default_value_t = 1)]
    pub line_size: u32,
    /// Stress access sequence, as in ld;st
    #[arg(long, default_value = "ld;st")]
    pub sequence: Sequence,
    #[arg(long, default_value_t = 64)]
    pub stress_iterations: u32,
    /// Stress iterations by testing threads before the test
    #[arg(long, default_value_t = 0)]
    pub pre_stress: u32,
    #[arg(long)]
    pub adapter: Option<String>,
}

impl EnvArgs {
    /// The environment of `--env FILE` when it was found on `adapter`, else of the options;
    /// the note (on stderr) says which.
    pub fn resolve(&self, fence: bool, adapter: &str) -> Result<Env> {
        if let Some(path) = &self.env_file {
            let (env, note) = wgstress_runtime::litmus::env_file::env_for(adapter, path)?;
            eprintln!("wgstress: {note}");
            if let Some(env) = env {
                return Ok(Env { fence, ..env });
            }
        }
        Ok(self.env(fence))
    }

    pub fn env(&self, fence: bool) -> Env {
        let distance = match self.y_gap {
            Some(gap) => (u64::from(self.testing_groups)
                * u64::from(self.workgroup_size)
                * u64::from(self.stride)
                + u64::from(gap))
            .min(u64::from(u32::MAX)) as u32,
            None => self.distance,
        };
        Env {
            testing_groups: self.testing_groups,
            workgroup_size: self.workgroup_size,
            stride: self.stride,
            distance,
            placement: self.placement,
            shuffle: !self.no_shuffle,
            stress_groups: self.stress_groups,
            stress_offset: self.stress_offset,
            target_lines: self.target_lines,
            line_size: self.line_size,
            sequence: self.sequence.clone(),
            stress_iterations: self.stress_iterations,
            pre_stress: self.pre_stress,
            fence,
            same_thread: false,
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// mp, sb, lb, corr, coww, cowr, corw, 2+2w, or a test of the MC Mutants suite (--list)
    #[arg(required_unless_present = "list")]
    test: Option<String>,
    /// List every test: its kind (classic, conformance or mutant) and the behaviour it
    /// looks for
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    env: EnvArgs,
    /// storageBarrier() between each thread's accesses
    #[arg(long)]
    fence: bool,
    /// Iterations (dispatches of every instance); 100 when neither this nor --time is given
    #[arg(long)]
    iterations: Option<u64>,
    /// Time budget in seconds
    #[arg(long)]
    time: Option<f64>,
    /// Iterations per submission
    #[arg(long, default_value_t = 50)]
    batch: u32,
    #[arg(long)]
    json: bool,
}

/// `--list`: one line per test, its kind, its threads and its target outcomes.
fn list() -> Result<ExitCode> {
    println!("{:<30} {:<32} behaviour looked for", "test", "kind");
    for t in test::all() {
        if t.kind == test::Kind::Classic {
            println!("{:<30} {:<32} {}", t.name, t.kind.label(), t.weak);
            continue;
        }
        let outcomes = t.outcomes();
        let targets: Vec<String> = (0..outcomes.target.len())
            .filter(|&o| outcomes.target[o])
            .map(|o| t.describe(o))
            .collect();
        let shown = if targets.len() > 3 {
            format!(
                "{} (and {} more)",
                targets[..3].join(" | "),
                targets.len() - 3
            )
        } else {
            targets.join(" | ")
        };
        println!("{:<30} {:<32} {}: {shown}", t.name, t.kind.label(), t.weak);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.list {
        return list();
    }
    let name = args.test.clone().unwrap_or_default();
    let test = test::find(&name).ok_or_else(|| {
        anyhow!(
            "unknown litmus test `{name}` (known: {}) or a test of the MC Mutants suite (wgstress litmus --list)",
            test::classics()
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    if args.iterations == Some(0) || args.batch == 0 {
        anyhow::bail!("--iterations and --batch must be at least 1");
    }
    let gpu = wgstress_runtime::device::open(args.env.adapter.as_deref())?;
    let env = args.env.resolve(args.fence, &gpu.info.name)?;
    let mut litmus = Litmus::new(&gpu, test.clone(), env.clone(), 0, 1)?;
    let budget_time = args.time.map(Duration::from_secs_f64);
    let iterations = if budget_time.is_some() {
        args.iterations
    } else {
        Some(args.iterations.unwrap_or(100))
    };
    let (mut counts, mut done, start) = (Counts::default(), 0u64, Instant::now());
    while iterations.is_none_or(|n| done < n) && budget_time.is_none_or(|t| start.elapsed() < t) {
        let n = iterations.map_or(u64::from(args.batch), |n| {
            (n - done).min(u64::from(args.batch))
        });
        counts.add(&litmus.run(&gpu, n as u32)?);
        done += n;
    }
    let seconds = start.elapsed().as_secs_f64();
    // A classic test looks for its weak outcomes, a suite test for its target.
    let looked_for = if test.kind == test::Kind::Classic {
        counts.weak
    } else {
        counts.target
    };
    let report = serde_json::json!({
        "test": test.name,
        "kind": test.kind,
        "weak_behaviour": test.weak,
        "adapter": wgstress_runtime::device::describe(&gpu.info),
        "env": env,
        "iterations": done,
        "instances": u64::from(env.instances()) * done,
        "counts": counts,
        "seconds": seconds,
        "weak_per_second": counts.weak as f64 / seconds,
        "reproducibility": reproducibility(looked_for as f64),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} on {} ({})",
            test.name,
            wgstress_runtime::device::describe(&gpu.info),
            if args.fence { "fenced" } else { "no fences" }
        );
        println!("weak behaviour   {}", test.weak);
        println!(
            "instances        {} ({} iterations x {})",
            counts.total(),
            done,
            env.instances()
        );
        println!("sequential       {}", counts.sequential);
        println!("interleaved      {}", counts.interleaved);
        println!(
            "weak             {} ({:.1} per second)",
            counts.weak,
            counts.weak as f64 / seconds
        );
        if test.kind != test::Kind::Classic {
            println!(
                "target           {} ({:.1} per second)",
                counts.target,
                counts.target as f64 / seconds
            );
        }
        println!("disallowed       {}", counts.disallowed);
        println!(
            "reproducibility  {:.3}% that another {:.2} s shows it (1 - e^-{})",
            reproducibility(looked_for as f64) * 100.0,
            seconds,
            looked_for
        );
    }
    // Coherence broken: a bug by WGSL's own rules (in the driver or in naga).
    if counts.incoherent > 0 {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
