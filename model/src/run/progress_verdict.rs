//! What runs under each progress model say about an application: per model, whether its waits
//! ended (every run completed without starving) or some wait starved; and from the models'
//! verdicts, the weakest model the application needs (Table 1 of the progress-models seed:
//! unfair is weaker than HSA and OBE, which are incomparable, each weaker than LOBE, which is
//! weaker than fair).

use crate::run::holds::HoldCoverage;
use crate::run::tally::RunCounts;
use crate::stress::schedule::Schedule;
use serde::Serialize;

/// The fewest runs a model's verdict "terminates" rests on, whatever the budget: fewer say
/// too little of a scheduler's choices (docs/progress.md).
pub const MIN_RUNS: u64 = 32;

/// What a model's runs showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProgressVerdict {
    /// Every run ended without a starved wait, there were enough of them, and they held a
    /// workgroup at every place the model allows.
    Terminates,
    /// Some run's wait starved: the model does not guarantee the application ends.
    Starves,
    /// No run starved, and the runs do not show that it terminates: `Unsettled` says why.
    Inconclusive,
}

/// Why a model's runs were inconclusive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unsettled {
    /// Fewer runs than a verdict needs: `MIN_RUNS`, and under a model that holds workgroups
    /// at least one per workgroup.
    TooFewRuns { runs: u64, needed: u64 },
    /// Some runs failed otherwise (a confirmed hang with nothing held, the watchdog, a
    /// failed check, a lost device): what `run` shows of them.
    RunsFailed { failures: u64, outcomes: String },
    /// The runs did not hold a workgroup at every place the model allows, or did not hold
    /// every workgroup.
    HoldsNotCovered(HoldCoverage),
}

impl std::fmt::Display for Unsettled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsettled::TooFewRuns { runs, needed } => {
                let runs = crate::plural::count(*runs, "run", "runs");
                write!(f, "{runs}, fewer than the {needed} a verdict needs")
            }
            Unsettled::RunsFailed { failures, outcomes } => write!(
                f,
                "{failures} run{} failed otherwise ({outcomes})",
                if *failures == 1 { "" } else { "s" }
            ),
            Unsettled::HoldsNotCovered(c) => write!(f, "hold points not covered: {c}"),
        }
    }
}

impl ProgressVerdict {
    /// The verdict of a model's runs, from their outcomes: a starved run decides it (a run
    /// released after it starved may then compute wrongly); without one, it terminates only
    /// if every run passed, there were at least `enough` of them and, where the model holds
    /// workgroups (`holds`), they covered its hold points. Each run holds one workgroup, at
    /// one place, drawn at random: runs that never held a lock's holder, or held a producer
    /// only at its start, show nothing of the waits on them.
    pub fn of(
        runs: u64,
        counts: &RunCounts,
        enough: u64,
        holds: Option<&HoldCoverage>,
    ) -> (ProgressVerdict, Option<Unsettled>) {
        let failures = counts.failures() - counts.starved;
        let why = if counts.starved > 0 {
            return (ProgressVerdict::Starves, None);
        } else if failures > 0 {
            Unsettled::RunsFailed {
                failures,
                outcomes: counts.failing(),
            }
        } else if runs < enough.max(1) {
            Unsettled::TooFewRuns {
                runs,
                needed: enough.max(1),
            }
        } else if let Some(c) = holds.filter(|c| !c.covered()) {
            Unsettled::HoldsNotCovered(*c)
        } else {
            return (ProgressVerdict::Terminates, None);
        };
        (ProgressVerdict::Inconclusive, Some(why))
    }

    pub fn name(self) -> &'static str {
        match self {
            ProgressVerdict::Terminates => "terminates",
            ProgressVerdict::Starves => "starves",
            ProgressVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// The weakest models under which the application terminated: what it needs of a GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Needs {
    /// The weakest models it terminated under (two where HSA and OBE both hold, which are
    /// incomparable); empty when it starved even under fair or nothing was conclusive.
    pub models: Vec<Schedule>,
    /// Weaker models than those whose runs were inconclusive: the application may need less.
    pub inconclusive: Vec<Schedule>,
    /// Weaker models than those that were not run (`--models`): nothing is said of them.
    #[serde(default)]
    pub not_run: Vec<Schedule>,
    /// What that means in practice, in a sentence.
    pub meaning: String,
}

/// Whether `a` guarantees less than `b` (Table 1 of the seed: unfair below HSA and OBE, which
/// are incomparable, both below LOBE, below fair).
fn weaker(a: Schedule, b: Schedule) -> bool {
    a != b
        && (a == Schedule::Unfair
            || b == Schedule::Fair
            || (b == Schedule::Lobe && matches!(a, Schedule::Hsa | Schedule::Obe)))
}

fn names(models: &[Schedule]) -> String {
    let names: Vec<String> = models.iter().map(|m| m.name().to_uppercase()).collect();
    names.join(", ")
}

/// The weakest models among those that terminated, given the verdict of each model run. A
/// claim about a GPU ("needs LOBE: hangs on Apple and ARM GPUs") is made only where every
/// weaker model was run and starved: a weaker model not run leaves the need an upper bound,
/// and "needs nothing" takes every model run.
pub fn needs(verdicts: &[(Schedule, ProgressVerdict)]) -> Needs {
    let verdict = |s: Schedule| verdicts.iter().find(|(m, _)| *m == s).map(|(_, v)| *v);
    let terminates = |s: Schedule| verdict(s) == Some(ProgressVerdict::Terminates);
    let models: Vec<Schedule> = if terminates(Schedule::Unfair) {
        vec![Schedule::Unfair]
    } else {
        let semi: Vec<Schedule> = [Schedule::Hsa, Schedule::Obe]
            .into_iter()
            .filter(|s| terminates(*s))
            .collect();
        if !semi.is_empty() {
            semi
        } else if terminates(Schedule::Lobe) {
            vec![Schedule::Lobe]
        } else if terminates(Schedule::Fair) {
            vec![Schedule::Fair]
        } else {
            Vec::new()
        }
    };
    let below = |pick: &dyn Fn(Option<ProgressVerdict>) -> bool| -> Vec<Schedule> {
        Schedule::ALL
            .into_iter()
            .filter(|m| pick(verdict(*m)) && models.iter().any(|n| weaker(*m, *n)))
            .collect()
    };
    let inconclusive = below(&|v| v == Some(ProgressVerdict::Inconclusive));
    let mut not_run = below(&|v| v.is_none());
    if models == [Schedule::Unfair] {
        // "Needs nothing" is the claim that it ends on every GPU: it rests on every model.
        not_run = Schedule::ALL
            .into_iter()
            .filter(|m| verdict(*m).is_none())
            .collect();
    }
    let mut meaning = match models.as_slice() {
        [] => "no model under which every run ended: see the runs".to_string(),
        [Schedule::Unfair] if not_run.is_empty() => {
            "needs nothing: its waits end under any scheduler".to_string()
        }
        [Schedule::Unfair] => "terminates under UNFAIR".to_string(),
        _ if !not_run.is_empty() => format!(
            "terminates under {}: needs at most {}",
            names(&models),
            if models.len() > 1 {
                "one of them".to_string()
            } else {
                names(&models)
            }
        ),
        _ if !inconclusive.is_empty() => format!(
            "needs at most {}{}",
            names(&models),
            if models.len() > 1 { " (either)" } else { "" }
        ),
        [one] => format!("needs {}: {}", one.name().to_uppercase(), one.in_practice()),
        _ => "needs HSA or OBE (either suffices): ends on every GPU tested so far".to_string(),
    };
    if !inconclusive.is_empty() {
        meaning.push_str(&format!(
            "; {} inconclusive (see why beside each)",
            names(&inconclusive)
        ));
    }
    if !not_run.is_empty() {
        meaning.push_str(&format!(
            "; {} not run (--models), so nothing is said of {}",
            names(&not_run),
            if not_run.len() == 1 { "it" } else { "them" }
        ));
    }
    Needs {
        models,
        inconclusive,
        not_run,
        meaning,
    }
}

/// One configuration's result.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct ModelResult {
    pub model: Schedule,
    /// At most this many workgroups ran at once (`None`: as the device ran them).
    pub occupancy: Option<u32>,
    pub verdict: ProgressVerdict,
    /// Why the verdict is inconclusive, where it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsettled: Option<Unsettled>,
    /// Where the runs held a workgroup, against where the model allows (models that hold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<HoldCoverage>,
    pub runs: u64,
    pub starved_runs: u64,
    /// Runs that failed otherwise (a check, a hang with nothing held back, the watchdog).
    pub other_failures: u64,
    /// The first starved (or failed) run: what waited for whom.
    pub wait: Option<String>,
    /// The `wgstress run` command that replays it.
    pub replay: Option<String>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct ProgressReport {
    pub app: String,
    pub adapter: String,
    pub models: Vec<ModelResult>,
    pub occupancy: Vec<ModelResult>,
    pub needs: Needs,
    /// Whether it starved under some occupancy bound below its workgroup count.
    pub needs_occupancy: Option<u32>,
    /// Why the models' runs ended early, if they did: the models after it did not run.
    #[serde(
        flatten,
        serialize_with = "crate::run::stop::fields",
        deserialize_with = "crate::run::stop::from_fields"
    )]
    pub stopped: Option<crate::run::stop::Stop>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pass: u64, starved: u64, hang: u64) -> RunCounts {
        RunCounts {
            pass,
            starved,
            hang,
            ..RunCounts::default()
        }
    }

    fn verdict(runs: u64, counts: &RunCounts, enough: u64) -> ProgressVerdict {
        ProgressVerdict::of(runs, counts, enough, None).0
    }

    #[test]
    fn a_starved_run_decides_and_a_hang_leaves_it_open() {
        assert_eq!(
            verdict(40, &counts(40, 0, 0), 1),
            ProgressVerdict::Terminates
        );
        assert_eq!(verdict(10, &counts(9, 1, 0), 1), ProgressVerdict::Starves);
        let (v, why) = ProgressVerdict::of(40, &counts(39, 0, 1), 1, None);
        assert_eq!(v, ProgressVerdict::Inconclusive);
        assert_eq!(why.unwrap().to_string(), "1 run failed otherwise (hang 1)");
        let (v, why) = ProgressVerdict::of(0, &counts(0, 0, 0), 1, None);
        assert_eq!(v, ProgressVerdict::Inconclusive);
        assert_eq!(why, Some(Unsettled::TooFewRuns { runs: 0, needed: 1 }));
        let failed_check = RunCounts {
            pass: 39,
            postcondition: 1,
            ..RunCounts::default()
        };
        assert_eq!(verdict(40, &failed_check, 1), ProgressVerdict::Inconclusive);
    }

    #[test]
    fn runs_too_few_to_hold_each_workgroup_leave_it_open() {
        assert_eq!(
            verdict(64, &counts(64, 0, 0), 1024),
            ProgressVerdict::Inconclusive
        );
        assert_eq!(
            verdict(1024, &counts(1024, 0, 0), 1024),
            ProgressVerdict::Terminates
        );
        assert_eq!(
            verdict(64, &counts(63, 1, 0), 1024),
            ProgressVerdict::Starves
        );
    }

    #[test]
    fn hold_points_not_covered_leave_it_open_and_say_so() {
        let holds = HoldCoverage {
            places: 4,
            places_held: 3,
            rare_places: 0,
            workgroups: 2,
            workgroups_held: 2,
            most_points: 5,
        };
        let (v, why) = ProgressVerdict::of(100, &counts(100, 0, 0), 32, Some(&holds));
        assert_eq!(v, ProgressVerdict::Inconclusive);
        assert_eq!(
            why.unwrap().to_string(),
            "hold points not covered: held at 3 of 4 places, tried 2 of 2 workgroups; up to 5 \
             hold points a victim passed"
        );
        let all = HoldCoverage {
            places_held: 4,
            ..holds
        };
        assert_eq!(
            ProgressVerdict::of(100, &counts(100, 0, 0), 32, Some(&all)).0,
            ProgressVerdict::Terminates
        );
    }

    fn verdicts(terminating: &[Schedule]) -> Vec<(Schedule, ProgressVerdict)> {
        Schedule::ALL
            .iter()
            .map(|s| {
                let v = if terminating.contains(s) {
                    ProgressVerdict::Terminates
                } else {
                    ProgressVerdict::Starves
                };
                (*s, v)
            })
            .collect()
    }

    #[test]
    fn the_weakest_models_follow_the_seeds_order() {
        use Schedule::*;
        // The look-back without fallback: fair, OBE and LOBE, not HSA.
        assert_eq!(needs(&verdicts(&[Fair, Obe, Lobe])).models, vec![Obe]);
        // The mutex: OBE, not HSA; producer-consumer increasing id: HSA, not OBE.
        assert_eq!(needs(&verdicts(&[Fair, Lobe, Hsa])).models, vec![Hsa]);
        // Decreasing id: fair only.
        let fair = needs(&verdicts(&[Fair]));
        assert_eq!(fair.models, vec![Fair]);
        assert!(fair.meaning.starts_with("needs FAIR"), "{}", fair.meaning);
        // Both semi-fair models: either suffices.
        assert_eq!(
            needs(&verdicts(&[Fair, Lobe, Hsa, Obe])).models,
            vec![Hsa, Obe]
        );
        // The fallback: everything.
        let all = needs(&verdicts(&Schedule::ALL));
        assert_eq!(all.models, vec![Unfair]);
        assert!(all.meaning.starts_with("needs nothing"), "{}", all.meaning);
        assert!(needs(&verdicts(&[])).models.is_empty());
        let lobe = needs(&verdicts(&[Fair, Lobe]));
        assert!(lobe.meaning.contains("Apple and ARM"), "{}", lobe.meaning);
        assert!(lobe.inconclusive.is_empty());
    }

    #[test]
    fn models_not_run_are_not_claimed_about() {
        use Schedule::*;
        let run = |v: &[(Schedule, ProgressVerdict)]| needs(v);
        // Only fair run: no word about the GPUs that need more.
        let n = run(&[(Fair, ProgressVerdict::Terminates)]);
        assert_eq!(n.models, vec![Fair]);
        assert_eq!(n.not_run, vec![Obe, Hsa, Lobe, Unfair]);
        assert!(
            n.meaning
                .starts_with("terminates under FAIR: needs at most FAIR"),
            "{}",
            n.meaning
        );
        assert!(!n.meaning.contains("hangs"), "{}", n.meaning);
        // LOBE and fair: nothing about Apple and ARM, whose model was not the question.
        let n = run(&[
            (Lobe, ProgressVerdict::Terminates),
            (Fair, ProgressVerdict::Terminates),
        ]);
        assert_eq!(n.models, vec![Lobe]);
        assert!(!n.meaning.contains("Apple"), "{}", n.meaning);
        assert!(
            n.meaning.contains("OBE, HSA, UNFAIR not run"),
            "{}",
            n.meaning
        );
        // Unfair alone terminating is not "needs nothing" until every model ran.
        let n = run(&[(Unfair, ProgressVerdict::Terminates)]);
        assert!(
            n.meaning.starts_with("terminates under UNFAIR"),
            "{}",
            n.meaning
        );
        assert!(!n.meaning.contains("needs nothing"), "{}", n.meaning);
    }

    #[test]
    fn an_inconclusive_weaker_model_makes_the_need_an_upper_bound() {
        use Schedule::*;
        // The 1,024-workgroup ticket lock in five seconds a model: OBE and LOBE ran fewer
        // runs than it has workgroups.
        let lock = [
            (Fair, ProgressVerdict::Terminates),
            (Obe, ProgressVerdict::Inconclusive),
            (Hsa, ProgressVerdict::Starves),
            (Lobe, ProgressVerdict::Inconclusive),
            (Unfair, ProgressVerdict::Starves),
        ];
        let n = needs(&lock);
        assert_eq!(n.models, vec![Fair]);
        assert_eq!(n.inconclusive, vec![Obe, Lobe]);
        assert!(n.meaning.starts_with("needs at most FAIR"), "{}", n.meaning);
        assert!(
            n.meaning.contains("OBE, LOBE inconclusive"),
            "{}",
            n.meaning
        );
        // An inconclusive model stronger than the one it needs changes nothing.
        let mut scan = verdicts(&[Fair, Obe, Lobe]);
        scan[0].1 = ProgressVerdict::Inconclusive;
        let n = needs(&scan);
        assert_eq!(n.models, vec![Obe]);
        assert!(n.inconclusive.is_empty());
        assert!(n.meaning.starts_with("needs OBE"), "{}", n.meaning);
    }
}
