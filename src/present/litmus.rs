//! The human-readable report of `wgstress litmus`.

use std::fmt::Write;
use wgstress_runtime::litmus::{env::Env, runner::Counts, test::Test};
use wgstress_runtime::stats::reproducibility;

pub fn report(
    test: &Test,
    adapter: &str,
    env: &Env,
    counts: &Counts,
    iterations: u64,
    seconds: f64,
) -> String {
    let mut out = String::new();
    let fenced = if env.fence { "fenced" } else { "no fences" };
    let _ = writeln!(out, "{} on {adapter} ({fenced})", test.name);
    let _ = writeln!(out, "weak behaviour   {}", test.weak);
    let _ = writeln!(
        out,
        "instances        {} ({iterations} iterations x {})",
        counts.total(),
        env.instances()
    );
    let _ = writeln!(out, "sequential       {}", counts.sequential);
    let _ = writeln!(out, "interleaved      {}", counts.interleaved);
    let _ = writeln!(
        out,
        "weak             {} ({:.1} per second)",
        counts.weak,
        counts.weak as f64 / seconds
    );
    let _ = writeln!(
        out,
        "reproducibility  {:.3}% that another {seconds:.2} s shows it (1 - e^-{})",
        reproducibility(counts.weak as f64) * 100.0,
        counts.weak
    );
    if env.fence && counts.weak > 0 {
        let _ = writeln!(
            out,
            "failed           the fence did not remove the weak behaviour"
        );
    }
    out
}
