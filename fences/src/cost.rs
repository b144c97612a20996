//! What a fix costs: the application alone, without stress or instrumentation, timed as is,
//! with the suggested fix, with the other fix (minimal or portable), with a barrier at every
//! site and, for a bundled application, as its hand-written fixed variant. The variants run in
//! interleaved batches, so that drift of the machine (clocks, temperature, other load) hits
//! all of them alike; each gets the median time per run over its batches, with the spread
//! (the middle half of the batches). A run is the whole run: buffers reset, the dispatches,
//! the checks' copies, the same for every variant, so differences are the kernel's.

use crate::error::Result;
use crate::lab::{Lab, Subject};
use std::time::Duration;
use wgstress_model::fences::cost::Cost;

/// Times `variants` (the original first) for about `time` in all.
pub(crate) fn measure<L: Lab + ?Sized>(
    lab: &mut L,
    variants: &[(&str, Subject)],
    time: Duration,
) -> Result<Vec<Cost>, L::Error> {
    let subjects: Vec<Subject> = variants.iter().map(|(_, s)| *s).collect();
    let times = lab.time_runs(&subjects, time)?;
    Ok(costs(variants.iter().map(|(of, _)| *of), times))
}

/// Each variant's median and quartiles, against the first's median.
fn costs<'a>(names: impl Iterator<Item = &'a str>, times: Vec<Vec<f64>>) -> Vec<Cost> {
    let mut stats: Vec<(String, [f64; 3], usize)> = names
        .zip(times)
        .map(|(of, mut t)| {
            t.sort_by(f64::total_cmp);
            let quartile = |q: f64| t.get(((t.len() - 1) as f64 * q).round() as usize).copied();
            let at = |q| quartile(q).unwrap_or(f64::NAN);
            (of.to_string(), [at(0.25), at(0.5), at(0.75)], t.len())
        })
        .collect();
    let original = stats.first().map_or(f64::NAN, |(_, q, _)| q[1]);
    stats
        .drain(..)
        .map(|(of, [low, median, high], batches)| Cost {
            of,
            seconds_per_run: median,
            low,
            high,
            batches,
            percent: (median / original - 1.0) * 100.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_quartiles_and_percent_of_the_original() {
        let times = vec![vec![1.0, 3.0, 2.0, 2.0, 9.0], vec![2.2, 2.2, 2.2, 2.0, 3.0]];
        let costs = costs(["original", "portable fix"].into_iter(), times);
        assert_eq!(costs[0].seconds_per_run, 2.0);
        assert_eq!((costs[0].low, costs[0].high), (2.0, 3.0));
        assert_eq!(costs[0].percent, 0.0);
        assert_eq!(costs[1].seconds_per_run, 2.2);
        assert!(
            (costs[1].percent - 10.0).abs() < 1e-9,
            "{}",
            costs[1].percent
        );
        assert_eq!(costs[1].batches, 5);
    }
}
