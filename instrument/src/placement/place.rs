//! Placing candidate fence sites in a function's body, at points where a `storageBarrier()`
//! is valid WGSL for Tint as well as naga (the uniformity analysis says where) and where it
//! orders storage accesses.
//!
//! The rule, point by point: a point is a candidate when control flow there is uniform
//! (uniformity/) and it separates storage accesses (memory.rs says which memory counts):
//! some access of the function can run before it and another after it (an access earlier
//! or later in the block or in the blocks around it, or anywhere in a loop around it). Points
//! with nothing between them but statements that touch no storage and fall through (an
//! evaluation, a store into a local, a barrier, a call of a function that touches no
//! storage, a branch or loop without an access and without a `break`, `continue` or `return`
//! that leaves it) order the same accesses: such a run is one site, its barrier at the run's
//! end. A run also gets a site when it borders an access (before the first access of a
//! block, after the last), as sites always have. Not points: those inside a statement that
//! touches no storage (a barrier there runs on some paths only, where the site around the
//! statement would order the same accesses), the points of a `for` or `while` loop's
//! condition, and those of a `continuing` block that touches no storage (a `for` loop's
//! update): they have no place in the source.
//!
//! A branch or loop that is not uniform inside is one access to the rule: its sites are
//! around it. A non-uniform branch with an empty other side entered in uniform flow is split
//! around the sites between its accesses (split.rs). A loop that is not uniform inside is
//! noted (`in_loops`): no barrier can go between its accesses.

use super::site::{IrPoint, Side};
use super::uniformity::{behaviors_of, Context, Positions};
use naga::valid::FunctionInfo;
use naga::{
    Arena, Barrier, Block, Expression, Function, Handle, LocalVariable, Module, Span, Statement,
    Type, UniqueArena,
};
use std::collections::HashSet;

/// A site: a barrier goes at `point`, on `side` of the access at `access`.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    pub access: Span,
    pub side: Side,
    pub point: IrPoint,
    /// The site-number argument of a marker call, numbered once all sites are known.
    pub number: Option<Handle<Expression>>,
}

/// Which access a site is named after.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Label {
    pub access: Span,
    pub side: Side,
}

/// What ends a run of points.
#[derive(Clone, Copy)]
enum Next {
    /// A statement that is one access to the rule (its first access).
    Access(Span),
    /// A branch or loop with accesses and sites inside (its first access).
    Inside(Span),
    /// A statement without access that leaves, or the end of a block.
    Nothing,
}

/// Whether accesses of the function can run before a block and after it.
#[derive(Clone, Copy)]
struct Around {
    before: bool,
    after: bool,
}

/// A run of points with nothing between them that touches storage.
#[derive(Default)]
struct Run {
    /// Named when the run begins right after an access.
    label: Option<Label>,
    /// Some point of the run separates accesses.
    separating: bool,
    /// A site before it serves it: only statements that touch no storage lie between, one
    /// of which may leave (a barrier after it would run on fewer paths and order no more).
    covered: bool,
}

pub(crate) struct Walker<'a> {
    pub module: &'a Module,
    pub function: &'a Function,
    pub info: &'a FunctionInfo,
    /// How every call of the function is made: where a barrier is valid.
    pub context: &'a Context,
    /// Functions that touch storage, themselves or through their callees.
    pub storage_functions: &'a HashSet<Handle<Function>>,
    pub sites: Vec<Placed>,
    /// The function's expressions, locals and the module's types, grown by splits
    /// (split.rs); the walk itself reads the original function.
    pub expressions: Arena<Expression>,
    pub locals: Arena<LocalVariable>,
    pub types: UniqueArena<Type>,
    /// What goes at a site: `storageBarrier()`, or a call of patch.rs's marker function
    /// with the site's number, which becomes a barrier or nothing once the set is chosen.
    pub marker: Option<Handle<Function>>,
    /// The first storage access of each loop that is not uniform inside: no barrier may go
    /// between its accesses.
    pub in_loops: Vec<Span>,
    /// The block being walked, as an `IrPoint`'s path.
    pub path: Vec<(usize, usize)>,
    /// The last access walked past, to name a site that borders none.
    pub last_access: Option<Span>,
    /// The first access of each loop the walk is in, likewise.
    pub loop_accesses: Vec<Span>,
}

impl Walker<'_> {
    /// The function's body with a barrier (or a marker) at every site.
    pub(crate) fn body(&mut self, body: &Block, positions: &Positions) -> Block {
        let around = Around {
            before: false,
            after: false,
        };
        let (mut out, run) = self.block(body, positions, around, None, 0);
        self.close(&mut out, run, body.len(), Next::Nothing);
        out
    }

    /// Walks `block` (its points before `skip` are none), continuing `run` from the point
    /// before it; returns the rewritten block and the run still open at its end.
    fn block(
        &mut self,
        block: &Block,
        positions: &Positions,
        around: Around,
        mut run: Option<Run>,
        skip: usize,
    ) -> (Block, Option<Run>) {
        let statements: Vec<(&Statement, &Span)> = block.span_iter().collect();
        let accesses: Vec<Option<Span>> = statements
            .iter()
            .map(|(s, span)| self.access(s, **span))
            .collect();
        let before = |i: usize| around.before || accesses[..i].iter().any(Option::is_some);
        let after = |i: usize| around.after || accesses[i..].iter().any(Option::is_some);
        let mut out = Block::with_capacity(block.len());
        for (i, &(statement, span)) in statements.iter().enumerate() {
            self.enter_point(&mut run, positions, i, skip, before(i) && after(i));
            let nested = &positions.nested[i];
            let inside = Around {
                before: before(i),
                after: after(i + 1),
            };
            if let Statement::Block(inner) = statement {
                // A block of its own (a `for` and its `var`) is no boundary: the run goes on.
                self.path.push((i, 0));
                let (inner, left) = self.block(inner, &nested[0], inside, run.take(), 0);
                self.path.pop();
                out.push(Statement::Block(inner), *span);
                run = left;
                continue;
            }
            let Some(access) = accesses[i] else {
                if behaviors_of(statement).only_next() {
                    out.push(statement.clone(), *span);
                    continue;
                }
                // It leaves: the run ends; nothing to place inside a statement without access.
                // A site of the run before it serves the points after it.
                let sites = self.sites.len();
                let covered = run.as_ref().is_some_and(|r| r.covered);
                self.close(&mut out, run.take(), i, Next::Nothing);
                out.push(statement.clone(), *span);
                if covered || self.sites.len() > sites {
                    run = Some(Run {
                        covered: true,
                        ..Run::default()
                    });
                }
                continue;
            };
            let walk_inside = self.uniform_inside(statement, nested);
            let leaf = !walk_inside;
            let next = if leaf {
                Next::Access(access)
            } else {
                Next::Inside(access)
            };
            self.close(&mut out, run.take(), i, next);
            let before_statement = self.last_access;
            let new = if walk_inside {
                self.compound(statement, i, nested, inside)
            } else {
                let uniform_before = self.context.allows_barrier(&positions.at[i]);
                self.unit(statement, i, uniform_before)
            };
            out.push(new, *span);
            self.last_access = self.last_access_of(statement, *span).or(before_statement);
            if leaf {
                // The run that begins right after an access is named after it.
                run = Some(Run {
                    label: self.last_access.map(|access| Label {
                        access,
                        side: Side::After,
                    }),
                    ..Run::default()
                });
            }
        }
        self.enter_point(
            &mut run,
            positions,
            block.len(),
            skip,
            before(block.len()) && after(block.len()),
        );
        (out, run)
    }

    /// At point `i` of a block: a run goes on through it, begins at it, or has no place
    /// there (where a barrier is not valid, or the point is none).
    fn enter_point(
        &self,
        run: &mut Option<Run>,
        positions: &Positions,
        i: usize,
        skip: usize,
        separating: bool,
    ) {
        if i < skip || !self.context.allows_barrier(&positions.at[i]) {
            *run = None;
            return;
        }
        run.get_or_insert_with(Run::default).separating |= separating;
    }

    /// Ends `run` at point `index` of the block being walked (`out` so far), before `next`:
    /// a site goes there if the run separates accesses or borders one.
    fn close(&mut self, out: &mut Block, run: Option<Run>, index: usize, next: Next) {
        let Some(run) = run else { return };
        let before = |access| Label {
            access,
            side: Side::Before,
        };
        let label = match (run.label, next) {
            (Some(label), _) => Some(label),
            (None, Next::Access(access)) => Some(before(access)),
            (None, _) if run.covered || !run.separating => None,
            (None, Next::Inside(access)) => Some(before(access)),
            (None, Next::Nothing) => self.name_unbordered(),
        };
        if let Some(label) = label {
            let point = IrPoint {
                path: self.path.clone(),
                index,
            };
            self.barrier(out, label, point);
        }
    }

    /// A name for a site that borders no access: after the last access walked past in its
    /// loop's body (or, outside loops, in the function), or else before the first access of
    /// the loop it is in (one of them runs before it).
    fn name_unbordered(&self) -> Option<Label> {
        match (self.last_access, self.loop_accesses.last()) {
            (Some(access), _) => Some(Label {
                access,
                side: Side::After,
            }),
            (None, Some(access)) => Some(Label {
                access: *access,
                side: Side::Before,
            }),
            (None, None) => None,
        }
    }

    /// A barrier at the end of `out`, at `point`.
    pub(super) fn barrier(&mut self, out: &mut Block, label: Label, point: IrPoint) {
        let mut number = None;
        let statement = match self.marker {
            None => Statement::ControlBarrier(Barrier::STORAGE),
            Some(function) => {
                let literal = Expression::Literal(naga::Literal::U32(0));
                let argument = self.expressions.append(literal, label.access);
                number = Some(argument);
                Statement::Call {
                    function,
                    arguments: vec![argument],
                    result: None,
                }
            }
        };
        self.sites.push(Placed {
            access: label.access,
            side: label.side,
            point,
            number,
        });
        out.push(statement, label.access);
    }

    /// Whether barriers are valid inside `statement`, a branch or loop (its blocks are
    /// entered with the same flow: an `if`'s both sides, a loop's body).
    fn uniform_inside(&self, statement: &Statement, nested: &[Positions]) -> bool {
        match statement {
            Statement::If { .. } | Statement::Switch { .. } | Statement::Loop { .. } => nested
                .first()
                .is_some_and(|first| self.context.allows_barrier(&first.at[0])),
            _ => false,
        }
    }

    /// A branch or loop uniform inside, with sites inside.
    fn compound(
        &mut self,
        statement: &Statement,
        index: usize,
        nested: &[Positions],
        around: Around,
    ) -> Statement {
        let before = self.last_access;
        // A block starts from the last access before the statement; a loop's body from none,
        // so that a site at its start is named after the loop's first access, not after an
        // access outside the loop.
        let walk = |walker: &mut Self, k: usize, block: &Block, around: Around, skip: usize| {
            walker.path.push((index, k));
            walker.last_access = match statement {
                Statement::Loop { .. } => None,
                _ => before,
            };
            let (mut out, run) = walker.block(block, &nested[k], around, None, skip);
            walker.close(&mut out, run, block.len(), Next::Nothing);
            walker.path.pop();
            out
        };
        match statement {
            Statement::If {
                condition,
                accept,
                reject,
            } => Statement::If {
                condition: *condition,
                accept: walk(self, 0, accept, around, 0),
                reject: walk(self, 1, reject, around, 0),
            },
            Statement::Switch { selector, cases } => Statement::Switch {
                selector: *selector,
                cases: cases
                    .iter()
                    .enumerate()
                    .map(|(k, case)| {
                        // `case 1u, 2u:` is an empty case falling through to the next: its
                        // point is none (WGSL has no place for it).
                        let skip = if case.fall_through {
                            case.body.len() + 1
                        } else {
                            0
                        };
                        naga::SwitchCase {
                            body: walk(self, k, &case.body, around, skip),
                            ..case.clone()
                        }
                    })
                    .collect(),
            },
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                // Every access of the loop runs before and after every point in it.
                let around = Around {
                    before: true,
                    after: true,
                };
                let first = self.access(statement, Span::UNDEFINED);
                self.loop_accesses.extend(first);
                let condition = condition_length(body);
                let body = walk(self, 0, body, around, condition);
                let update =
                    match self.access(&Statement::Block(continuing.clone()), Span::UNDEFINED) {
                        Some(_) => 0,
                        None => continuing.len() + 1,
                    };
                let continuing = walk(self, 1, continuing, around, update);
                if first.is_some() {
                    self.loop_accesses.pop();
                }
                Statement::Loop {
                    body,
                    continuing,
                    break_if: *break_if,
                }
            }
            other => other.clone(),
        }
    }

    /// A statement that is one access to the rule: a leaf, or a branch or loop that is not
    /// uniform inside (split when it can be, noted when it is a loop).
    fn unit(&mut self, statement: &Statement, index: usize, uniform_before: bool) -> Statement {
        self.note_loops(statement);
        match statement {
            Statement::If {
                condition,
                accept,
                reject,
            } if uniform_before && accept.is_empty() != reject.is_empty() => {
                let (branch, k) = if reject.is_empty() {
                    (accept, 0)
                } else {
                    (reject, 1)
                };
                self.path.push((index, k));
                let split = self.split(*condition, branch.clone(), k == 0);
                self.path.pop();
                split.unwrap_or_else(|| statement.clone())
            }
            other => other.clone(),
        }
    }

    /// Notes every loop with an access in `statement`, which is not uniform inside, inner
    /// loops first: no barrier may go between its accesses.
    fn note_loops(&mut self, statement: &Statement) {
        crate::ir::walk::nested_blocks_ref(statement, |block| {
            for inner in block.iter() {
                self.note_loops(inner);
            }
        });
        if let Statement::Loop {
            body, continuing, ..
        } = statement
        {
            let blocks = Statement::Block(Block::from_vec(vec![
                Statement::Block(body.clone()),
                Statement::Block(continuing.clone()),
            ]));
            if let Some(access) = self.access(&blocks, Span::UNDEFINED) {
                if !self.in_loops.contains(&access) {
                    self.in_loops.push(access);
                }
            }
        }
    }
}

/// How many points at the start of a loop's body are its condition's: naga gives a `for` or
/// `while` loop the body `{ evaluations; if condition {} else { break; } ...body }`, and the
/// points up to the condition's `if` have no place in the source.
pub(crate) fn condition_length(body: &Block) -> usize {
    for (index, statement) in body.iter().enumerate() {
        match statement {
            Statement::Emit(_) => continue,
            Statement::If { accept, reject, .. }
                if accept.is_empty()
                    && reject.len() == 1
                    && matches!(reject.first(), Some(Statement::Break)) =>
            {
                return index + 1;
            }
            _ => return 0,
        }
    }
    0
}
