//! Rounds of the fence search. Trials are sized to catch the failure at the rate measured
//! without fences, but a partial fix lowers that rate: on the H100, sdk-red failed in 2.9% of
//! runs, and the one barrier its first round kept left a failure in 1 of 201 verification
//! runs, which the trials of 155 runs had missed. A fix that fails its verification therefore
//! starts another round with trials sized for the rate the fix left (a quarter of the old rate
//! at most), from all sites again.

use super::report::{Fix, Report, Round, Verdict};
use wgstress_runtime::fences::trial::FailureRate;

/// The failure rate the next round's trials are sized for, when the fix found is barriers
/// whose verification ran to a failure (not an error, an interruption or too few runs).
pub fn lower_rate(report: &Report, rate: FailureRate) -> Option<FailureRate> {
    let failed_verification = matches!(report.verdict, Verdict::Unverified { .. })
        && report.fix == Some(Fix::Barriers)
        && report.verified.iter().all(|v| v.runs.aborted.is_none())
        && report.verified.iter().any(|v| v.runs.failures > 0);
    if !failed_verification {
        return None;
    }
    let (failures, runs) = report
        .verified
        .iter()
        .fold((0, 0), |(f, r), v| (f + v.runs.failures, r + v.runs.runs));
    let left = FailureRate::measured(failures, runs)?.get();
    FailureRate::new(left.min(rate.get() / 4.0))
}

/// Moves the last round's fix and verification into `refined`, for a new round.
pub fn start_round(report: &mut Report) {
    report.refined.push(Round {
        runs_per_trial: report.runs_per_trial.unwrap_or_default(),
        kept: report.kept.iter().map(|k| k.site).collect(),
        verified: std::mem::take(&mut report.verified),
    });
    report.kept.clear();
    report.fix = None;
    report.relies_on = None;
    report.diff = None;
    report.verdict = Verdict::DoesNotFail;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::fences::report::StrategyRuns;
    use wgstress_runtime::fences::gpu::Measured;

    fn report(fix: Option<Fix>, verified: &[(u64, u64, Option<&str>)]) -> Report {
        Report {
            app: "a".into(),
            adapter: "b".into(),
            strategy: "systematic".into(),
            iterations: 8,
            master_seed: "0x1".into(),
            verdict: Verdict::Unverified { why: "w".into() },
            before: Vec::new(),
            sites: 3,
            all_sites: None,
            atomic: Vec::new(),
            trials: 4,
            search_runs: 40,
            runs_per_trial: Some(155),
            fix,
            kept: Vec::new(),
            verified: verified
                .iter()
                .map(|&(runs, failures, aborted)| StrategyRuns {
                    strategy: "systematic".into(),
                    iterations: 8,
                    runs: Measured {
                        runs,
                        failures,
                        seconds: 1.0,
                        aborted: aborted.map(str::to_string),
                        ..Measured::default()
                    },
                })
                .collect(),
            refined: Vec::new(),
            relies_on: None,
            diff: None,
            output: None,
        }
    }

    fn rate(p: f64) -> FailureRate {
        FailureRate::new(p).unwrap()
    }

    #[test]
    fn a_failed_verification_sizes_the_next_trials_for_the_rate_left() {
        // sdk-red on the H100: 2.9%, then 1 failure in 201 runs with the fix.
        let lower = lower_rate(&report(Some(Fix::Barriers), &[(201, 1, None)]), rate(0.029));
        assert_eq!(lower.map(FailureRate::get), Some(1.0 / 201.0));
        assert!(lower.unwrap().runs_needed() > rate(0.029).runs_needed() * 5);
        // A fix that failed often still takes trials four times the size.
        let often = lower_rate(&report(Some(Fix::Barriers), &[(4, 2, None)]), rate(0.8));
        assert_eq!(often.map(FailureRate::get), Some(0.2));
    }

    #[test]
    fn no_new_round_without_a_failed_verification_of_barriers() {
        let atomic = Fix::MakeAtomic {
            variable: "v".into(),
            fused: Vec::new(),
            sites: 2,
        };
        for r in [
            report(Some(Fix::Barriers), &[(500, 0, None)]),
            report(Some(Fix::Barriers), &[(10, 1, Some("hang"))]),
            report(Some(atomic), &[(201, 1, None)]),
            report(None, &[]),
        ] {
            assert!(lower_rate(&r, rate(0.03)).is_none(), "{:?}", r.verified);
        }
    }

    #[test]
    fn a_new_round_keeps_the_last_ones_evidence() {
        let mut r = report(Some(Fix::Barriers), &[(201, 1, None)]);
        start_round(&mut r);
        assert_eq!(r.refined.len(), 1);
        assert_eq!(r.refined[0].runs_per_trial, 155);
        assert_eq!(r.refined[0].verified[0].runs.failures, 1);
        assert!(r.verified.is_empty() && r.fix.is_none());
        assert_eq!(r.trials, 4, "trials add up over rounds");
    }
}
