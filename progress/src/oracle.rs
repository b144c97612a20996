//! The termination oracle: whether a test is guaranteed to terminate under a scheduler, by
//! explicit-state exploration of its transition system (the seed's §4.2, Listings 1 and 2).
//!
//! Weak fairness: the test may not terminate when some reachable cycle lets every thread of F
//! take a step (Listing 1): an execution that goes round it forever schedules every thread it
//! must and never ends. F is the same on all states of a strongly connected component (who has
//! stepped and who has terminated cannot change on a cycle), so the check is, per component
//! with a cycle inside, whether every thread of its F has a step inside it.
//!
//! Strong fairness: the test terminates when from every reachable state a path of steps by
//! threads of F (F of the state each step leaves) reaches the end or a state with F empty
//! (Listing 2: there some thread must still run, so the execution moves on). A way out that F's
//! threads can always take again is eventually taken.
//!
//! The unfair model guarantees nobody anything under either notion: a test terminates under it
//! when its transition system has no cycle.

use crate::axb::AxbTest;
use crate::explore::{Edge, Graph, Predecessors, StateId};
use crate::model::{Fairness, Model, ProgressScheduler, Threads};
use serde::Serialize;
use std::collections::VecDeque;

/// A state of the test, as an execution's steps show it.
pub use crate::explore::State;

/// A test's transition system with what every scheduler's check needs computed once.
pub struct TerminationOracle {
    graph: Graph,
    component: Vec<StateId>,
    cyclic: Vec<bool>,
    /// Per component, the threads with a step that stays inside it.
    stepping: Vec<Threads>,
    /// Per component, one of its states.
    representative: Vec<StateId>,
    /// Steps into each state.
    into: Predecessors,
}

/// One step of an execution: the thread, the instruction it executed, the state it left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ExecutionStep {
    pub thread: usize,
    pub instruction: usize,
    pub to: State,
}

/// An execution that need not end under a scheduler: from the start, `prefix`, then `cycle`
/// forever, during which the threads of `fair` are the ones guaranteed to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EndlessExecution {
    pub start: State,
    pub prefix: Vec<ExecutionStep>,
    pub cycle: Vec<ExecutionStep>,
    pub fair: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TerminationVerdict {
    pub scheduler: ProgressScheduler,
    pub terminates: bool,
    /// When it need not terminate: the starving or livelocked execution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<EndlessExecution>,
}

impl TerminationOracle {
    pub fn new(test: &AxbTest) -> TerminationOracle {
        let graph = Graph::of(test.threads());
        let (component, cyclic) = graph.components();
        let mut stepping = vec![0; cyclic.len()];
        let mut representative = vec![0; cyclic.len()];
        for s in graph.ids() {
            let c = component[s as usize] as usize;
            representative[c] = s;
            for e in graph.out(s) {
                if component[e.to as usize] as usize == c {
                    stepping[c] |= 1 << e.thread;
                }
            }
        }
        let into = graph.predecessors();
        TerminationOracle {
            graph,
            component,
            cyclic,
            stepping,
            representative,
            into,
        }
    }

    /// The transition system the verdicts are drawn from.
    pub(crate) fn graph(&self) -> &Graph {
        &self.graph
    }

    fn fair(&self, model: Model, state: StateId) -> Threads {
        model.fair(
            self.graph.threads,
            self.graph.stepped(state),
            self.graph.done(state),
        )
    }

    /// The component whose cycles starve nobody F guarantees, under weak fairness.
    fn weak_cycle(&self, model: Model) -> Option<usize> {
        (0..self.cyclic.len()).find(|&c| {
            self.cyclic[c] && {
                let fair = self.fair(model, self.representative[c]);
                fair & !self.stepping[c] == 0
            }
        })
    }

    /// Per state, whether F's threads can lead it to the end or to a state with F empty.
    fn strong_escapes(&self, model: Model) -> Vec<bool> {
        let fair: Vec<Threads> = self.graph.ids().map(|s| self.fair(model, s)).collect();
        let mut good: Vec<bool> = self
            .graph
            .ids()
            .map(|s| self.graph.is_final(s) || fair[s as usize] == 0)
            .collect();
        let mut queue: VecDeque<StateId> = self.graph.ids().filter(|&s| good[s as usize]).collect();
        while let Some(s) = queue.pop_front() {
            for &(from, thread) in self.into.of(s) {
                let f = from as usize;
                if !good[f] && fair[f] >> thread & 1 == 1 {
                    good[f] = true;
                    queue.push_back(from);
                }
            }
        }
        good
    }

    /// Whether the test is guaranteed to terminate under `scheduler`.
    pub fn terminates(&self, scheduler: ProgressScheduler) -> bool {
        match (scheduler.model, scheduler.fairness) {
            (Model::Unfair, _) => !self.cyclic.iter().any(|&c| c),
            (model, Fairness::Weak) => self.weak_cycle(model).is_none(),
            (model, Fairness::Strong) => self.strong_escapes(model).iter().all(|&g| g),
        }
    }

    /// The verdict with its evidence.
    pub fn decide(&self, scheduler: ProgressScheduler) -> TerminationVerdict {
        let evidence = match (scheduler.model, scheduler.fairness) {
            (model, Fairness::Weak) | (model @ Model::Unfair, Fairness::Strong) => {
                self.weak_cycle(model).map(|c| self.weak_evidence(model, c))
            }
            (model, Fairness::Strong) => {
                let good = self.strong_escapes(model);
                good.iter()
                    .position(|&g| !g)
                    .map(|bad| self.strong_evidence(model, bad as StateId, &good))
            }
        };
        TerminationVerdict {
            scheduler,
            terminates: evidence.is_none(),
            evidence,
        }
    }

    /// Every scheduler's verdict (`ProgressScheduler::all`'s order).
    pub fn verdicts(&self) -> Vec<TerminationVerdict> {
        ProgressScheduler::all()
            .into_iter()
            .map(|s| self.decide(s))
            .collect()
    }

    /// The shortest path from `from` through states `inside` allows to a state where `stop`
    /// holds, as the steps taken.
    fn path(
        &self,
        from: StateId,
        inside: impl Fn(StateId) -> bool,
        stop: impl Fn(StateId) -> bool,
    ) -> Option<(Vec<(StateId, Edge)>, StateId)> {
        // Per state, the state and the step it was first reached by (`from` and the states
        // not reached: none).
        const NONE: StateId = StateId::MAX;
        let mut came: Vec<(StateId, u8)> = vec![(NONE, 0); self.graph.len()];
        let mut queue = VecDeque::from([from]);
        came[from as usize].0 = from;
        while let Some(s) = queue.pop_front() {
            if stop(s) {
                let mut steps = Vec::new();
                let mut at = s;
                while at != from {
                    let (prev, thread) = came[at as usize];
                    let edge = *self
                        .graph
                        .out(prev)
                        .iter()
                        .find(|e| e.thread == thread)
                        .expect("the step that reached it");
                    steps.push((prev, edge));
                    at = prev;
                }
                steps.reverse();
                return Some((steps, s));
            }
            for e in self.graph.out(s) {
                if inside(e.to) && came[e.to as usize].0 == NONE {
                    came[e.to as usize] = (s, e.thread);
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    fn steps(&self, steps: &[(StateId, Edge)]) -> Vec<ExecutionStep> {
        steps
            .iter()
            .map(|(_, e)| ExecutionStep {
                thread: usize::from(e.thread),
                instruction: usize::from(e.pc),
                to: self.graph.view(e.to),
            })
            .collect()
    }

    fn threads(&self, set: Threads) -> Vec<usize> {
        (0..self.graph.threads)
            .filter(|t| set >> t & 1 == 1)
            .collect()
    }

    /// A cycle in component `c` in which every thread of its F steps.
    fn weak_evidence(&self, model: Model, c: usize) -> EndlessExecution {
        let c32 = c as StateId;
        let within = |s: StateId| self.component[s as usize] == c32;
        let root = self.representative[c];
        let fair = self.fair(model, root);
        let (prefix, _) = self
            .path(0, |_| true, |s| s == root)
            .expect("every state is reachable");
        let mut cycle: Vec<(StateId, Edge)> = Vec::new();
        let mut at = root;
        // At least one step inside, then one by every thread of F.
        let wanted = if fair == 0 {
            self.stepping[c] & self.stepping[c].wrapping_neg()
        } else {
            fair
        };
        for t in self.threads(wanted) {
            let has_step = |s: StateId| {
                self.graph
                    .out(s)
                    .iter()
                    .any(|e| usize::from(e.thread) == t && within(e.to))
            };
            let (to, end) = self
                .path(at, within, has_step)
                .expect("inside one component");
            cycle.extend(to);
            let edge = *self
                .graph
                .out(end)
                .iter()
                .find(|e| usize::from(e.thread) == t && within(e.to))
                .expect("found above");
            cycle.push((end, edge));
            at = edge.to;
        }
        let (back, _) = self
            .path(at, within, |s| s == root)
            .expect("inside one component");
        cycle.extend(back);
        EndlessExecution {
            start: self.graph.view(0),
            prefix: self.steps(&prefix),
            cycle: self.steps(&cycle),
            fair: self.threads(fair),
        }
    }

    /// From a state F's threads cannot lead out of, the steps they can take, followed until a
    /// state repeats: they all stay among such states.
    fn strong_evidence(&self, model: Model, bad: StateId, good: &[bool]) -> EndlessExecution {
        let (mut prefix, _) = self
            .path(0, |_| true, |s| s == bad)
            .expect("every state is reachable");
        let mut walk: Vec<(StateId, Edge)> = Vec::new();
        let mut first_visit = vec![usize::MAX; self.graph.len()];
        let mut at = bad;
        let mut last_thread: Option<u8> = None;
        while first_visit[at as usize] == usize::MAX {
            first_visit[at as usize] = walk.len();
            let fair = self.fair(model, at);
            let moves: Vec<&Edge> = self
                .graph
                .out(at)
                .iter()
                .filter(|e| fair >> e.thread & 1 == 1 && !good[e.to as usize])
                .collect();
            // Take turns among F's threads where the state allows, so that the cycle shows
            // them all running.
            let edge = **moves
                .iter()
                .find(|e| Some(e.thread) > last_thread)
                .or(moves.first())
                .expect("a state F cannot lead out has a step by F that stays");
            last_thread = Some(edge.thread);
            walk.push((at, edge));
            at = edge.to;
        }
        let start = first_visit[at as usize];
        let cycle = walk.split_off(start);
        prefix.extend(walk);
        EndlessExecution {
            start: self.graph.view(0),
            prefix: self.steps(&prefix),
            cycle: self.steps(&cycle),
            fair: self.threads(self.fair(model, at)),
        }
    }
}
