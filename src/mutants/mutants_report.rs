//! What `wgstress mutants` found, for people: the suite's table and scores, the search's
//! progress and its best environment.

use anyhow::Result;
use std::fmt::Write;
use std::path::Path;
use wgstress_model::litmus::env::Env;
use wgstress_model::litmus::mutants::{MutantScores, TestResult};
use wgstress_model::litmus::search::{Candidate, SearchResult};

/// One test's row: name, kind, instances, target behaviours, per second, and what it showed
/// that its memory model disallows.
pub fn line(r: &TestResult) -> String {
    let mut text = format!(
        "{:<30} {:<28} {:>14} {:>12} {:>14.1}",
        r.name,
        r.kind.label(),
        r.instances,
        r.counts.target,
        r.rate
    );
    for v in &r.violations {
        let class = if v.incoherent {
            "incoherent"
        } else {
            "release/acquire"
        };
        let _ = write!(text, "  DISALLOWED {} x{} ({class})", v.outcome, v.count);
    }
    text
}

/// The suite's table, its scores, its environment, and a `litmus` command that replays each
/// test that showed a disallowed behaviour.
pub fn suite(
    results: &[TestResult],
    summary: &MutantScores,
    env: &Env,
    time: f64,
    seconds: f64,
) -> Result<String> {
    let mut out = format!(
        "{:<30} {:<28} {:>14} {:>12} {:>14}\n",
        "test", "kind", "instances", "target", "per second"
    );
    for r in results {
        let _ = writeln!(out, "{}", line(r));
    }
    scores(&mut out, summary);
    let _ = writeln!(out, "environment      {}", serde_json::to_string(env)?);
    for r in results.iter().filter(|r| !r.violations.is_empty()) {
        let _ = writeln!(
            out,
            "replay           wgstress litmus {} {} --time {time}",
            r.name,
            replay_options(env)
        );
    }
    let _ = writeln!(out, "took             {seconds:.1} s");
    Ok(out)
}

/// The mutants' scores when mutants ran; the conformance verdict when conformance tests ran
/// or any test showed a disallowed behaviour.
fn scores(out: &mut String, s: &MutantScores) {
    if s.mutants > 0 {
        mutant_scores(out, s);
    }
    let violated = !(s.incoherent.is_empty() && s.relacq_only.is_empty());
    if s.conformance_tests > 0 || violated {
        let _ = writeln!(out, "coherence violations      {}", or_none(&s.incoherent));
        let _ = writeln!(out, "release/acquire only      {}", or_none(&s.relacq_only));
    }
}

fn mutant_scores(out: &mut String, s: &MutantScores) {
    let _ = writeln!(
        out,
        "mutation score   {}/{} = {:.1}% (mean death rate {:.1}/s)",
        s.killed,
        s.mutants,
        s.mutation_score * 100.0,
        s.mean_death_rate
    );
    let _ = writeln!(
        out,
        "reproducible     {}/{} mutants die at least {:.3}/s: {:.3}% sure to die within {} s",
        s.reproducible,
        s.mutants,
        s.ceiling_rate,
        s.reproducibility * 100.0,
        s.budget
    );
}

fn or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The `litmus` options that rebuild `env` (but its fence): y by --y-gap when it lies in a
/// region of its own, else by --distance.
pub fn replay_options(env: &Env) -> String {
    let x_words =
        u64::from(env.testing_groups) * u64::from(env.workgroup_size) * u64::from(env.stride);
    let y = if env.split() {
        format!("--y-gap {}", u64::from(env.distance) - x_words)
    } else {
        format!("--distance {}", env.distance)
    };
    let mut options = format!(
        "--testing-groups {} --workgroup-size {} --stride {} {y} --placement {} --stress-groups {} --stress-offset {} --target-lines {} --line-size {} --sequence '{}' --stress-iterations {} --pre-stress {}",
        env.testing_groups,
        env.workgroup_size,
        env.stride,
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

/// The search's progress line for its `tried`th environment, and the best so far.
pub fn candidate(tried: usize, c: &Candidate, best: &Candidate) -> String {
    format!(
        "env {tried:>3} {:<7} killed {:>2} above ceiling {:>2} min rate {:>12.3}  (best: {} above, min {:.3}) {:.1} s",
        format!("{:?}", c.phase).to_lowercase(),
        c.killed,
        c.above_ceiling,
        finite(c.min_rate),
        best.above_ceiling,
        finite(best.min_rate),
        c.seconds
    )
}

/// What the search tried and the environment it chose, written to `path`.
pub fn search(result: &SearchResult, path: &Path) -> Result<String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "tried            {} in {:.1} s",
        crate::present::numbers::count(
            result.candidates.len() as u64,
            "environment",
            "environments"
        ),
        result.seconds
    );
    if result.interrupted {
        let _ = writeln!(out, "interrupted      before its budget was spent");
    }
    let Some(best) = result.best() else {
        let _ = writeln!(
            out,
            "best             none: stopped before an environment was scored in full; {} not written",
            path.display()
        );
        return Ok(out);
    };
    let _ = writeln!(
        out,
        "best             {} of {} mutants at or above {:.3}/s, {} killed, min rate {:.3}/s",
        best.above_ceiling,
        result.mutants.len(),
        result.ceiling_rate,
        best.killed,
        finite(best.min_rate)
    );
    let _ = writeln!(
        out,
        "environment      {}",
        serde_json::to_string(&best.env)?
    );
    let _ = writeln!(out, "written to       {}", path.display());
    Ok(out)
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
    use super::replay_options;
    use crate::options::LitmusEnvOptions;
    use clap::Parser;
    use wgstress_model::litmus::env::{Env, LitmusPlacement};

    #[derive(Parser)]
    struct Options {
        #[command(flatten)]
        env: LitmusEnvOptions,
    }

    fn replayed(env: &Env) -> Env {
        let text = replay_options(env);
        let words = std::iter::once("wgstress")
            .chain(text.split_whitespace().map(|w| w.trim_matches('\'')));
        Options::try_parse_from(words).unwrap().env.env(false)
    }

    #[test]
    fn replay_options_rebuild_the_environment() {
        let env = Env {
            testing_groups: 512,
            stride: 4,
            distance: 1 << 20,
            placement: LitmusPlacement::Scattered,
            shuffle: false,
            stress_groups: 7,
            stress_offset: 3,
            target_lines: 9,
            sequence: "st;ld;st".parse().unwrap(),
            stress_iterations: 99,
            pre_stress: 5,
            ..Env::default()
        };
        assert_eq!(replayed(&env), env);
        // y in a region of its own, farther than --distance goes.
        let split = Env {
            testing_groups: 1024,
            stride: 1024,
            distance: (1024 * 256 * 1024) + 262_144,
            placement: LitmusPlacement::YPermuted,
            ..Env::default()
        };
        assert_eq!(replayed(&split), split);
    }

    #[test]
    fn the_default_layout_is_the_mp_harness_s_and_distance_replaces_it() {
        let parse = |words: &[&str]| {
            Options::try_parse_from(std::iter::once("wgstress").chain(words.iter().copied()))
        };
        let env = parse(&[]).unwrap().env.env(false);
        assert_eq!(env.placement, LitmusPlacement::Direct);
        assert_eq!((env.testing_groups, env.stride), (512, 4));
        assert!(env.split(), "y in a region of its own: {env:?}");
        assert_eq!(u64::from(env.distance), 512 * 256 * 4 + (1 << 18));
        let packed = parse(&["--distance", "33"]).unwrap().env.env(false);
        assert_eq!(packed.distance, 33);
        assert!(!packed.split());
        assert!(parse(&["--distance", "33", "--y-gap", "5"]).is_err());
    }
}
