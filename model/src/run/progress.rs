//! What runs under each progress model say about an application: per model, whether its waits
//! ended (every run completed without starving) or some wait starved; and from the models'
//! verdicts, the weakest model the application needs (Table 1 of the progress-models seed:
//! unfair is weaker than HSA and OBE, which are incomparable, each weaker than LOBE, which is
//! weaker than fair).

use crate::run::tally::RunCounts;
use crate::stress::schedule::Schedule;
use serde::Serialize;

/// What a model's runs showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProgressVerdict {
    /// Every run ended without a starved wait.
    Terminates,
    /// Some run's wait starved: the model does not guarantee the application ends.
    Starves,
    /// No run starved, but not every run passed either (a hang with nothing held back, the
    /// watchdog, a failed check: what `run` shows), or too few ran to have held each
    /// workgroup once.
    Inconclusive,
}

impl ProgressVerdict {
    /// The verdict of a model's runs, from their outcomes: a starved run decides it (a run
    /// released after it starved may then compute wrongly); without one, it terminates only if
    /// every run passed and there were at least `enough` of them. Each run holds one
    /// workgroup, drawn at random: a 1,024-workgroup lock that passed 64 runs under unfair had
    /// most of its workgroups never held, and starved under HSA in 1 of 162.
    pub fn of(runs: u64, counts: &RunCounts, enough: u64) -> ProgressVerdict {
        if counts.starved > 0 {
            ProgressVerdict::Starves
        } else if runs == 0 || runs < enough || counts.pass < runs {
            ProgressVerdict::Inconclusive
        } else {
            ProgressVerdict::Terminates
        }
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

/// The weakest models among those that terminated, given each model's verdict.
pub fn needs(verdicts: &[(Schedule, ProgressVerdict)]) -> Needs {
    let terminates = |s: Schedule| {
        verdicts
            .iter()
            .any(|(m, v)| *m == s && *v == ProgressVerdict::Terminates)
    };
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
    let inconclusive: Vec<Schedule> = verdicts
        .iter()
        .filter(|(m, v)| {
            *v == ProgressVerdict::Inconclusive && models.iter().any(|n| weaker(*m, *n))
        })
        .map(|(m, _)| *m)
        .collect();
    let need = if inconclusive.is_empty() {
        "needs"
    } else {
        "needs at most"
    };
    let mut meaning = match models.as_slice() {
        [] => "no model under which every run ended: see the runs".to_string(),
        [Schedule::Unfair] => "needs nothing: its waits end under any scheduler".to_string(),
        [one] => format!(
            "{need} {}: {}",
            one.name().to_uppercase(),
            one.in_practice()
        ),
        _ => format!("{need} HSA or OBE (either suffices): ends on every GPU tested so far"),
    };
    if !inconclusive.is_empty() {
        let names: Vec<String> = inconclusive
            .iter()
            .map(|m| m.name().to_uppercase())
            .collect();
        meaning.push_str(&format!(
            "; {} inconclusive (too few runs to hold each workgroup, or runs that failed otherwise: give a longer --time)",
            names.join(", ")
        ));
    }
    Needs {
        models,
        inconclusive,
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

    #[test]
    fn a_starved_run_decides_and_a_hang_leaves_it_open() {
        assert_eq!(
            ProgressVerdict::of(10, &counts(10, 0, 0), 1),
            ProgressVerdict::Terminates
        );
        assert_eq!(
            ProgressVerdict::of(10, &counts(9, 1, 0), 1),
            ProgressVerdict::Starves
        );
        assert_eq!(
            ProgressVerdict::of(10, &counts(9, 0, 1), 1),
            ProgressVerdict::Inconclusive
        );
        assert_eq!(
            ProgressVerdict::of(0, &counts(0, 0, 0), 1),
            ProgressVerdict::Inconclusive
        );
        let failed_check = RunCounts {
            pass: 9,
            postcondition: 1,
            ..RunCounts::default()
        };
        assert_eq!(
            ProgressVerdict::of(10, &failed_check, 1),
            ProgressVerdict::Inconclusive
        );
    }

    #[test]
    fn runs_too_few_to_hold_each_workgroup_leave_it_open() {
        assert_eq!(
            ProgressVerdict::of(64, &counts(64, 0, 0), 1024),
            ProgressVerdict::Inconclusive
        );
        assert_eq!(
            ProgressVerdict::of(1024, &counts(1024, 0, 0), 1024),
            ProgressVerdict::Terminates
        );
        assert_eq!(
            ProgressVerdict::of(64, &counts(63, 1, 0), 1024),
            ProgressVerdict::Starves
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
        assert_eq!(needs(&verdicts(&Schedule::ALL)).models, vec![Unfair]);
        assert!(needs(&verdicts(&[])).models.is_empty());
        let lobe = needs(&verdicts(&[Fair, Lobe]));
        assert!(lobe.meaning.contains("Apple and ARM"), "{}", lobe.meaning);
        assert!(lobe.inconclusive.is_empty());
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
