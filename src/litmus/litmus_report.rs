//! The human-readable report of `wgstress litmus`, and its list of tests.

use std::fmt::Write;
use wgstress_litmus::test::Test;
use wgstress_model::litmus::counts::LitmusCounts;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::kind::Kind;
use wgstress_model::run::stats::reproducibility;

/// What the test looks for: a classic test its weak outcomes, a suite test its target.
pub fn looked_for(test: &Test, counts: &LitmusCounts) -> u64 {
    if test.kind == Kind::Classic {
        counts.weak
    } else {
        counts.target
    }
}

pub fn report(
    test: &Test,
    adapter: &str,
    env: &Env,
    counts: &LitmusCounts,
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
    let rate = |n: u64| n as f64 / seconds;
    let _ = writeln!(
        out,
        "weak             {} ({:.1} per second)",
        counts.weak,
        rate(counts.weak)
    );
    if test.kind != Kind::Classic {
        let _ = writeln!(
            out,
            "target           {} ({:.1} per second)",
            counts.target,
            rate(counts.target)
        );
    }
    let _ = writeln!(out, "disallowed       {}", counts.disallowed);
    let seen = looked_for(test, counts);
    let _ = writeln!(
        out,
        "reproducibility  {:.3}% that another {seconds:.2} s shows it (1 - e^-{seen})",
        reproducibility(seen as f64) * 100.0,
    );
    verdict(&mut out, env, counts);
    out
}

fn verdict(out: &mut String, env: &Env, counts: &LitmusCounts) {
    if counts.incoherent > 0 {
        let _ = writeln!(
            out,
            "failed           {}",
            crate::present::style::fail(format!(
                "{} coherence, which WGSL promises",
                crate::present::numbers::count(
                    counts.incoherent,
                    "instance broke",
                    "instances broke"
                )
            ))
        );
    }
    if env.fence && counts.weak > 0 {
        let _ = writeln!(
            out,
            "failed           {}",
            crate::present::style::fail("the fence did not remove the weak behaviour")
        );
    }
}

/// One line per test: its name, kind and the behaviour it looks for (a suite test's target
/// outcomes, the first three of them).
pub fn list(tests: &[Test]) -> String {
    let mut out = format!("{:<30} {:<32} behaviour looked for\n", "test", "kind");
    for t in tests {
        let _ = writeln!(
            out,
            "{:<30} {:<32} {}",
            t.name,
            t.kind.label(),
            looks_for(t)
        );
    }
    out
}

fn looks_for(t: &Test) -> String {
    if t.kind == Kind::Classic {
        return t.weak.to_string();
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
    format!("{}: {shown}", t.weak)
}
