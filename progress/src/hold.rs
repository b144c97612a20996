//! Holds that starve a test: what the scheduler emulation (`run --schedule`) must do to show
//! that a model does not guarantee a test's termination.
//!
//! The emulation holds one workgroup back, at its start or at one of its steps, while the
//! model lets it wait, and calls a run starved when the others stop getting anywhere: every
//! one still running repeats a step that leaves the state as it was (a spin on a flag the held
//! one has still to set). So a hold shows an endless execution only when its others end up
//! waiting in place, whatever order they run in; an execution that goes on forever because
//! threads keep undoing each other's stores (a livelock) changes state at every turn and is
//! no wait, and no hold makes it.
//!
//! A starving hold here is: thread `victim` runs alone for `after` instructions (none: it is
//! held at its start), then is held; from there the other threads, in any order, cannot all
//! terminate and always can reach a state where each of them that has not terminated spins in
//! place; and in none of the states they reach does the model guarantee the victim execution
//! (it would be released).

use crate::explore::{Graph, StateId};
use crate::model::Model;
use crate::oracle::TerminationOracle;
use std::collections::HashMap;

/// The most instructions a victim runs alone before it is held: a test's threads hold at most
/// four instructions, so the states a hold can matter in come within its first few steps.
pub const MAX_AFTER: usize = 8;

/// A hold under which the emulation must starve a test (see the module's comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StarvingHold {
    /// The thread held, as the workgroup of that id.
    pub victim: usize,
    /// Instructions it runs alone before it is held; 0: held at its start.
    pub after: usize,
}

impl TerminationOracle {
    /// The first starving hold of the test under `model` (fewest instructions run alone, then
    /// lowest victim), if any, over the transition system the verdicts come from.
    pub fn starving_hold(&self, model: Model) -> Option<StarvingHold> {
        let graph = self.graph();
        (0..=MAX_AFTER)
            .flat_map(|after| (0..graph.threads).map(move |victim| StarvingHold { victim, after }))
            .find(|hold| starves(graph, model, *hold))
    }
}

/// Whether `hold` starves the test under `model`.
fn starves(graph: &Graph, model: Model, hold: StarvingHold) -> bool {
    let v = hold.victim;
    let mut at: StateId = 0;
    for _ in 0..hold.after {
        match graph.out(at).iter().find(|e| usize::from(e.thread) == v) {
            Some(e) => at = e.to,
            None => return false,
        }
    }
    if graph.done(at) >> v & 1 == 1 {
        return false;
    }
    let others = |s: StateId| {
        graph
            .out(s)
            .iter()
            .filter(move |e| usize::from(e.thread) != v)
    };
    // The states the others reach with the victim held.
    let mut index: HashMap<StateId, usize> = HashMap::from([(at, 0)]);
    let mut reached = vec![at];
    let mut next = 0;
    while next < reached.len() {
        let s = reached[next];
        next += 1;
        for e in others(s) {
            index.entry(e.to).or_insert_with(|| {
                reached.push(e.to);
                reached.len() - 1
            });
        }
    }
    let held_allowed =
        |s: StateId| model.fair(graph.threads, graph.stepped(s), graph.done(s)) >> v & 1 == 0;
    let others_done = |s: StateId| {
        (0..graph.threads)
            .filter(|&t| t != v)
            .all(|t| graph.done(s) >> t & 1 == 1)
    };
    if !reached.iter().all(|&s| held_allowed(s) && !others_done(s)) {
        return false;
    }
    // A state where each other thread that runs repeats a step that changes neither memory nor
    // any pc: the emulation sees nobody getting anywhere.
    let unchanged =
        |from: StateId, to: StateId| graph.memory_and_pcs(from) == graph.memory_and_pcs(to);
    let mut good: Vec<bool> = reached
        .iter()
        .map(|&s| others(s).all(|e| unchanged(s, e.to)))
        .collect();
    // Every reached state can still come to such a state: the others, run in any order, end in
    // one (a state with a way on is left eventually). Backwards from those states, over the
    // others' steps among the reached states.
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); reached.len()];
    for (i, &s) in reached.iter().enumerate() {
        for e in others(s) {
            into[index[&e.to]].push(i);
        }
    }
    let mut todo: Vec<usize> = (0..reached.len()).filter(|&i| good[i]).collect();
    while let Some(i) = todo.pop() {
        for &p in &into[i] {
            if !good[p] {
                good[p] = true;
                todo.push(p);
            }
        }
    }
    good.iter().all(|&g| g)
}

#[cfg(test)]
mod tests {
    use super::StarvingHold;
    use crate::axb::AxbTest;
    use crate::model::Model;
    use crate::oracle::TerminationOracle;
    use crate::suite::seed_examples;

    fn starving_hold(test: &AxbTest, model: Model) -> Option<StarvingHold> {
        TerminationOracle::new(test).starving_hold(model)
    }

    fn example(name: &str) -> AxbTest {
        seed_examples()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
            .unwrap()
    }

    #[test]
    fn the_seeds_producer_consumer_starves_where_its_producer_is_held() {
        // Increasing: thread 0 produces, thread 1 waits for it. Holding the producer starves
        // the consumer under unfair; HSA guarantees thread 0; OBE lets a workgroup that has
        // not stepped wait.
        let increasing = example("prodcons-increasing");
        assert_eq!(
            starving_hold(&increasing, Model::Unfair),
            Some(StarvingHold {
                victim: 0,
                after: 0
            })
        );
        assert_eq!(starving_hold(&increasing, Model::Hsa), None);
        assert!(starving_hold(&increasing, Model::Obe).is_some());
        assert_eq!(starving_hold(&increasing, Model::Fair), None);
        // Decreasing: the producer is thread 1, which HSA and LOBE let wait too.
        let decreasing = example("prodcons-decreasing");
        for model in [Model::Unfair, Model::Hsa, Model::Obe, Model::Lobe] {
            assert_eq!(
                starving_hold(&decreasing, model),
                Some(StarvingHold {
                    victim: 1,
                    after: 0
                }),
                "{model:?}"
            );
        }
    }

    #[test]
    fn the_seeds_mutex_starves_where_the_lock_holder_is_held_after_taking_it() {
        // Held at its start, a thread holds nothing; once it has taken the lock (one
        // instruction), the other spins on it. HSA lets thread 1 wait, not thread 0; OBE never
        // lets a thread that has stepped wait.
        let mutex = example("mutex");
        assert_eq!(
            starving_hold(&mutex, Model::Unfair),
            Some(StarvingHold {
                victim: 0,
                after: 1
            })
        );
        assert_eq!(
            starving_hold(&mutex, Model::Hsa),
            Some(StarvingHold {
                victim: 1,
                after: 1
            })
        );
        assert_eq!(starving_hold(&mutex, Model::Obe), None);
    }
}
