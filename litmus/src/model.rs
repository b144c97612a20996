//! The memory model of the MC Mutants paper, by brute force over candidate executions:
//! happens-before is po-loc ∪ com ∪ po;sw;po (release/acquire fences) and must be acyclic.
//! It decides, for every outcome of a test, whether the model allows it and whether it is the
//! test's target: an outcome that proves the template's communication edges.

use crate::test::{Class, Event, Loc, Op, Outcomes, Test};

/// One candidate execution: what every read reads from and the coherence order per location.
struct Execution {
    /// Per event: the event it reads from (None: the initial value), for reads only.
    rf: Vec<Option<Option<usize>>>,
    /// Per location: writes in coherence order.
    co: [Vec<usize>; 2],
}

struct Events {
    ops: Vec<Op>,
    /// Per event: (thread, index in thread).
    at: Vec<Event>,
}

impl Events {
    fn of(test: &Test) -> Events {
        let mut ops = Vec::new();
        let mut at = Vec::new();
        for (t, thread) in test.threads.iter().enumerate() {
            for (i, op) in thread.iter().enumerate() {
                ops.push(*op);
                at.push((t, i));
            }
        }
        Events { ops, at }
    }

    fn id(&self, event: Event) -> usize {
        self.at
            .iter()
            .position(|e| *e == event)
            .expect("cycle edges name events of the test")
    }

    fn writes(&self, loc: Loc) -> Vec<usize> {
        (0..self.ops.len())
            .filter(|&e| self.ops[e].loc() == Some(loc) && self.ops[e].written().is_some())
            .collect()
    }

    fn po(&self, a: usize, b: usize) -> bool {
        self.at[a].0 == self.at[b].0 && self.at[a].1 < self.at[b].1
    }

    /// Every candidate execution: every coherence order, every reads-from, with
    /// read-modify-writes atomic (reading their coherence predecessor).
    fn executions(&self) -> Vec<Execution> {
        let mut out = Vec::new();
        let (wx, wy) = (self.writes(Loc::X), self.writes(Loc::Y));
        for px in super::test::permutations(wx.len()) {
            for py in super::test::permutations(wy.len()) {
                let co = [
                    px.iter().map(|&i| wx[i]).collect::<Vec<_>>(),
                    py.iter().map(|&i| wy[i]).collect(),
                ];
                self.reads_from(&co, 0, vec![None; self.ops.len()], &mut out);
            }
        }
        out
    }

    fn reads_from(
        &self,
        co: &[Vec<usize>; 2],
        event: usize,
        rf: Vec<Option<Option<usize>>>,
        out: &mut Vec<Execution>,
    ) {
        if event == self.ops.len() {
            out.push(Execution { rf, co: co.clone() });
            return;
        }
        let op = self.ops[event];
        let (Some(loc), Some(_)) = (op.loc(), op.register()) else {
            return self.reads_from(co, event + 1, rf, out);
        };
        let order = &co[loc as usize];
        let sources: Vec<Option<usize>> = if op.written().is_some() {
            let at = order.iter().position(|&w| w == event).expect("in co");
            vec![at.checked_sub(1).map(|p| order[p])]
        } else {
            std::iter::once(None)
                .chain(order.iter().map(|&w| Some(w)))
                .collect()
        };
        for source in sources {
            let mut rf = rf.clone();
            rf[event] = Some(source);
            self.reads_from(co, event + 1, rf, out);
        }
    }
}

impl Execution {
    fn value(events: &Events, source: Option<usize>) -> u32 {
        source.map_or(0, |w| events.ops[w].written().expect("a write"))
    }

    fn outcome(&self, events: &Events, test: &Test) -> usize {
        let mut registers = vec![0; test.registers()];
        for (e, rf) in self.rf.iter().enumerate() {
            if let (Some(source), Some(r)) = (rf, events.ops[e].register()) {
                registers[r] = Self::value(events, *source);
            }
        }
        let last = |l: usize| Self::value(events, self.co[l].last().copied());
        test.encode(&registers, last(0), last(1))
    }

    fn co_before(&self, events: &Events, a: usize, b: usize) -> bool {
        let Some(loc) = events.ops[a].loc() else {
            return false;
        };
        let order = &self.co[loc as usize];
        match (
            order.iter().position(|&w| w == a),
            order.iter().position(|&w| w == b),
        ) {
            (Some(i), Some(j)) => i < j,
            _ => false,
        }
    }

    /// Communication: reads-from, coherence, or from-reads from `a` to `b`.
    fn com(&self, events: &Events, a: usize, b: usize) -> bool {
        if a == b || events.ops[a].loc() != events.ops[b].loc() || events.ops[a].loc().is_none() {
            return false;
        }
        let b_writes = events.ops[b].written().is_some();
        let rf = self.rf[b] == Some(Some(a));
        let co = self.co_before(events, a, b);
        let fr = b_writes
            && match self.rf[a] {
                Some(None) => true,
                Some(Some(source)) => self.co_before(events, source, b),
                None => false,
            };
        rf || co || fr
    }

    /// Fence f1 synchronises with fence f2: a write after f1 is read by a read before f2.
    fn sw(&self, events: &Events, f1: usize, f2: usize) -> bool {
        events.at[f1].0 != events.at[f2].0
            && (0..events.ops.len()).any(|w| {
                events.po(f1, w)
                    && events.ops[w].written().is_some()
                    && (0..events.ops.len())
                        .any(|r| events.po(r, f2) && self.rf[r] == Some(Some(w)))
            })
    }

    /// Happens-before is acyclic; `fences` says whether fences synchronise (the paper's
    /// release/acquire model) or not (SC per location alone, what WGSL promises across
    /// workgroups today).
    fn consistent(&self, events: &Events, fences: bool) -> bool {
        let n = events.ops.len();
        let fences: Vec<usize> = (0..n)
            .filter(|&e| fences && events.ops[e] == Op::Fence)
            .collect();
        let mut hb: Vec<Vec<bool>> = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        let po_loc = events.po(a, b)
                            && events.ops[a].loc().is_some()
                            && events.ops[a].loc() == events.ops[b].loc();
                        po_loc || self.com(events, a, b)
                    })
                    .collect()
            })
            .collect();
        for &f1 in &fences {
            for &f2 in &fences {
                if self.sw(events, f1, f2) {
                    for a in (0..n).filter(|&a| events.po(a, f1)) {
                        for b in (0..n).filter(|&b| events.po(f2, b)) {
                            hb[a][b] = true;
                        }
                    }
                }
            }
        }
        acyclic(&hb)
    }
}

fn acyclic(edges: &[Vec<bool>]) -> bool {
    let n = edges.len();
    let mut reach = edges.to_vec();
    // Warshall's transitive closure.
    for k in 0..n {
        let through = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (cell, via) in row.iter_mut().zip(&through) {
                    *cell |= *via;
                }
            }
        }
    }
    (0..n).all(|i| !reach[i][i])
}

/// What the model says about every outcome of a test.
pub(crate) struct Judgement {
    /// Allowed with release/acquire fences (the paper's model).
    pub allowed: Vec<bool>,
    /// Allowed by SC per location alone: seeing any other outcome breaks coherence.
    pub coherent: Vec<bool>,
    pub target: Vec<bool>,
}

/// Per outcome: allowed by the model, and the test's target: some execution giving it has the
/// cycle's edges, every consistent execution giving it has them, and it is allowed when the
/// edges can be consistent at all (a mutant) or disallowed when they cannot (a conformance
/// test); so a mutant's target never includes an unrelated violation.
pub(crate) fn judge(test: &Test) -> Judgement {
    let events = Events::of(test);
    let edges: Vec<(usize, usize)> = test
        .cycle
        .iter()
        .map(|(a, b)| (events.id(*a), events.id(*b)))
        .collect();
    let n = test.outcome_count();
    let (mut allowed, mut with_edges, mut only_with_edges) =
        (vec![false; n], vec![false; n], vec![true; n]);
    let mut coherent = vec![false; n];
    let mut edges_consistent = false;
    for execution in events.executions() {
        let outcome = execution.outcome(&events, test);
        let has_edges = edges.iter().all(|&(a, b)| execution.com(&events, a, b));
        with_edges[outcome] |= has_edges;
        coherent[outcome] |= execution.consistent(&events, false);
        if execution.consistent(&events, true) {
            allowed[outcome] = true;
            only_with_edges[outcome] &= has_edges;
            edges_consistent |= has_edges;
        }
    }
    let target = (0..n)
        .map(|o| with_edges[o] && only_with_edges[o] && allowed[o] == edges_consistent)
        .collect();
    Judgement {
        allowed,
        coherent,
        target,
    }
}

/// The model's verdicts live here, beside the model: a test is data and knows nothing of it.
impl Test {
    /// Classes, the model's verdict and the target of every outcome.
    pub fn outcomes(&self) -> Outcomes {
        let class = self.classes();
        if self.cycle.is_empty() {
            // A classic test: its target is its weak outcomes; the model is not asked.
            return Outcomes {
                target: class.iter().map(|c| *c == Class::Weak).collect(),
                allowed: vec![true; class.len()],
                coherent: vec![true; class.len()],
                class,
            };
        }
        let judgement = judge(self);
        Outcomes {
            class,
            allowed: judgement.allowed,
            coherent: judgement.coherent,
            target: judgement.target,
        }
    }
}
