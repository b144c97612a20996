//! Placing candidate fence sites in the entry point's body: before and after every statement
//! that touches storage memory, at points in uniform control flow only, so that a
//! `storageBarrier()` there is valid WGSL for Tint as well as naga.
//!
//! A statement reached in uniform control flow that touches storage gets a site before and
//! after it. A branch or loop that is not uniform inside is one statement to the walk: its
//! accesses get their sites before and after the whole branch or loop (the nearest enclosing
//! uniform points). As in Tint's analysis, control flow reconverges after a loop that some
//! invocations leave early by a non-uniform `break` or `continue`, but stays non-uniform
//! after a non-uniform `return` (and after a branch inside a loop that some invocations
//! leave by `break` or `continue`), so no site follows one. Calls count as accesses when the callee (or one of its
//! callees) names a storage variable; the walk does not enter callees.

use super::site::Side;
use super::uniformity::{Root, Uniformity};
use naga::valid::FunctionInfo;
use naga::{
    AddressSpace, Arena, Barrier, Block, Expression, Function, Handle, LocalVariable, Span,
    Statement, Type, UniqueArena,
};
use std::collections::HashSet;

/// A site: a barrier goes here, on `side` of the access at `access`.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub access: Span,
    pub side: Side,
    /// The site-number argument of a marker call, numbered once all sites are known.
    pub number: Option<Handle<Expression>>,
}

/// How control flow leaves a statement or block.
#[derive(Clone, Copy)]
struct Flow {
    /// Control flow after it is uniform.
    uniform: bool,
    /// Some invocations left the enclosing loop (`break`, `continue`) in non-uniform flow.
    loop_exit: bool,
    /// Some invocations left the function in non-uniform flow.
    fn_exit: bool,
}

impl Flow {
    fn exits(&self) -> bool {
        self.loop_exit || self.fn_exit
    }

    /// Flow after this, then a statement that left with `after`.
    fn then(self, after: Flow) -> Flow {
        Flow {
            uniform: after.uniform,
            loop_exit: self.loop_exit || after.loop_exit,
            fn_exit: self.fn_exit || after.fn_exit,
        }
    }
}

pub struct Walker<'a> {
    pub uniformity: &'a Uniformity<'a>,
    pub function: &'a Function,
    pub info: &'a FunctionInfo,
    /// Functions that name a storage variable, themselves or through their callees.
    pub storage_functions: &'a HashSet<Handle<Function>>,
    pub sites: Vec<Placed>,
    /// Locals this walk saw written with a non-uniform value or in non-uniform flow.
    pub tainted: HashSet<Handle<LocalVariable>>,
    /// The function's expressions, locals and the module's types, grown by splits
    /// (split.rs); the walk itself reads the original function.
    pub expressions: Arena<Expression>,
    pub locals: Arena<LocalVariable>,
    pub types: UniqueArena<Type>,
    /// What goes at a site: `storageBarrier()`, or a call of patch.rs's marker function
    /// with the site's number, which becomes a barrier or nothing once the set is chosen.
    pub marker: Option<Handle<Function>>,
    /// Every call the walk saw, and whether it was in uniform control flow.
    pub calls: Vec<(Handle<Function>, bool)>,
    /// The first storage access of each loop that is not uniform inside: no barrier may go
    /// between its accesses.
    pub in_loops: Vec<Span>,
}

impl Walker<'_> {
    /// The block with a storage barrier at every site, and how control flow leaves it.
    pub fn block(&mut self, block: &Block, uniform: bool) -> (Block, bool) {
        let (out, flow) = self.walk_block(block, uniform);
        (out, flow.uniform)
    }

    fn walk_block(&mut self, block: &Block, uniform: bool) -> (Block, Flow) {
        let (mut out, flow, pending) = self.walk_block_from(block, uniform, None);
        if let Some(site) = pending {
            let end = self.sites.len();
            self.barrier(&mut out, site, end);
        }
        (out, flow)
    }

    /// Walks `block` with `pending`, a site after the statement before it, still to place;
    /// returns the site pending after its last statement, for whatever follows the block.
    /// A nested block walked in uniform flow takes the pending site in and hands its own
    /// out, so a block (a `for` and its `var`) does not put a second barrier beside the one
    /// after the statement before it.
    fn walk_block_from(
        &mut self,
        block: &Block,
        uniform: bool,
        mut pending: Option<Placed>,
    ) -> (Block, Flow, Option<Placed>) {
        let mut out = Block::with_capacity(block.len());
        let mut flow = Flow {
            uniform,
            loop_exit: false,
            fn_exit: false,
        };
        for (statement, span) in block.span_iter() {
            let before = flow.uniform;
            if let (Statement::Block(inner), true) = (statement, before) {
                let (inner, after, left) = self.walk_block_from(inner, true, pending.take());
                out.push(Statement::Block(inner), *span);
                pending = left;
                flow = flow.then(after);
                continue;
            }
            // Sites inside come after a site pending before this statement.
            let mark = self.sites.len();
            let (new, after, placed_inside) = self.statement(statement, before);
            let access = self.access(statement, *span);
            match access.filter(|_| before && !placed_inside) {
                Some(access) => {
                    let last = self.last_access(statement, *span).unwrap_or(access);
                    let site = pending.take().unwrap_or(Placed {
                        access,
                        side: Side::Before,
                        number: None,
                    });
                    self.barrier(&mut out, site, mark);
                    out.push(new, *span);
                    if after.uniform {
                        pending = Some(Placed {
                            access: last,
                            side: Side::After,
                            number: None,
                        });
                    }
                }
                // A statement that touches no storage neither moves nor blocks a site: a
                // barrier before it orders what one after it would.
                None if access.is_none() && after.uniform && self.touches_no_storage(statement) => {
                    out.push(new, *span)
                }
                None => {
                    if let Some(site) = pending.take() {
                        self.barrier(&mut out, site, mark);
                    }
                    out.push(new, *span);
                }
            }
            flow = flow.then(after);
        }
        (out, flow, pending)
    }

    /// An `Emit`, a store into a function-local variable, a barrier, a workgroup uniform
    /// load, or a call of a function that names no storage variable. Letting a site pass a
    /// barrier keeps one candidate where a hand-written fix had a `workgroupBarrier()`
    /// (ct-octree's `fence()`): before, the points just before and just after it were two
    /// sites that order the same accesses, and the search on the H100 kept both.
    fn touches_no_storage(&self, statement: &Statement) -> bool {
        match statement {
            Statement::Emit(_)
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_)
            | Statement::WorkGroupUniformLoad { .. } => true,
            Statement::Call { function, .. } => !self.storage_functions.contains(function),
            // A branch on workgroup values (`lid == 0u && shared_a < shared_b` is one), as
            // long as no invocation leaves through it: a barrier after a `break` or a
            // `return` is not one before it.
            Statement::If { .. } | Statement::Switch { .. } => !leaves(statement),
            Statement::Store { pointer, .. } => {
                matches!(self.uniformity.root(*pointer), Root::Local(_))
            }
            _ => false,
        }
    }

    /// A barrier at the end of `out`, numbered `index` among the sites (the sites of the
    /// statement after it were found first).
    pub(super) fn barrier(&mut self, out: &mut Block, mut site: Placed, index: usize) {
        let statement = match self.marker {
            None => Statement::ControlBarrier(Barrier::STORAGE),
            Some(function) => {
                let literal = Expression::Literal(naga::Literal::U32(0));
                let number = self.expressions.append(literal, site.access);
                site.number = Some(number);
                Statement::Call {
                    function,
                    arguments: vec![number],
                    result: None,
                }
            }
        };
        self.sites.insert(index, site);
        out.push(statement, site.access);
    }

    /// The statement rewritten, how control flow leaves it, and whether its accesses got
    /// their sites inside it (a branch or loop walked in uniform flow).
    fn statement(&mut self, statement: &Statement, uniform: bool) -> (Statement, Flow, bool) {
        let leaf = |uniform_after: bool| Flow {
            uniform: uniform_after,
            loop_exit: false,
            fn_exit: false,
        };
        match statement {
            Statement::Block(block) => {
                let (block, flow) = self.walk_block(block, uniform);
                (Statement::Block(block), flow, uniform)
            }
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let inside = uniform && self.uniformity.is_uniform(*condition);
                let (accept, a) = self.walk_block(accept, inside);
                let (reject, r) = self.walk_block(reject, inside);
                let flow = Self::branches(uniform, inside, &[a, r]);
                if uniform && !inside && accept.is_empty() != reject.is_empty() {
                    let (branch, is_accept) = if reject.is_empty() {
                        (accept.clone(), true)
                    } else {
                        (reject.clone(), false)
                    };
                    if let Some(split) = self.split(*condition, branch, is_accept) {
                        return (split, flow, false);
                    }
                }
                let new = Statement::If {
                    condition: *condition,
                    accept,
                    reject,
                };
                (new, flow, inside)
            }
            Statement::Switch { selector, cases } => {
                let inside = uniform && self.uniformity.is_uniform(*selector);
                let mut flows = Vec::new();
                let cases = cases
                    .iter()
                    .map(|case| {
                        let (body, flow) = self.walk_block(&case.body, inside);
                        flows.push(flow);
                        naga::SwitchCase {
                            body,
                            ..case.clone()
                        }
                    })
                    .collect();
                let flow = Self::branches(uniform, inside, &flows);
                let new = Statement::Switch {
                    selector: *selector,
                    cases,
                };
                (new, flow, inside)
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => self.loop_(body, continuing, *break_if, uniform),
            Statement::Break | Statement::Continue => {
                let flow = Flow {
                    uniform,
                    loop_exit: !uniform,
                    fn_exit: false,
                };
                (statement.clone(), flow, false)
            }
            Statement::Return { .. } | Statement::Kill => {
                let flow = Flow {
                    uniform,
                    loop_exit: false,
                    fn_exit: !uniform,
                };
                (statement.clone(), flow, false)
            }
            Statement::Store { pointer, value } => {
                if let Root::Local(local) = self.uniformity.root(*pointer) {
                    let known = uniform
                        && self.uniformity.is_uniform(*value)
                        && self.uniformity.is_uniform(*pointer);
                    if !known {
                        self.tainted.insert(local);
                    }
                }
                (statement.clone(), leaf(uniform), false)
            }
            Statement::Call {
                function,
                arguments,
                ..
            } => {
                self.calls.push((*function, uniform));
                // A callee may write through a pointer to a local.
                for argument in arguments {
                    if let Root::Local(local) = self.uniformity.root(*argument) {
                        self.tainted.insert(local);
                    }
                }
                (statement.clone(), leaf(uniform), false)
            }
            Statement::Emit(_)
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_)
            | Statement::ImageStore { .. }
            | Statement::Atomic { .. }
            | Statement::ImageAtomic { .. }
            | Statement::WorkGroupUniformLoad { .. }
            | Statement::RayQuery { .. }
            | Statement::RayPipelineFunction(_)
            | Statement::SubgroupBallot { .. }
            | Statement::SubgroupGather { .. }
            | Statement::SubgroupCollectiveOperation { .. }
            | Statement::CooperativeStore { .. } => (statement.clone(), leaf(uniform), false),
        }
    }

    /// How control flow leaves a branch statement: it reconverges after the branches unless
    /// some invocations left early in non-uniform flow, or (conservatively) a branch taken
    /// in uniform flow ended in non-uniform flow.
    fn branches(uniform: bool, inside: bool, flows: &[Flow]) -> Flow {
        let exits = flows.iter().any(Flow::exits);
        let ends_uniform = flows.iter().all(|f| f.uniform);
        Flow {
            uniform: uniform && !exits && (!inside || ends_uniform),
            loop_exit: flows.iter().any(|f| f.loop_exit),
            fn_exit: flows.iter().any(|f| f.fn_exit),
        }
    }

    /// A loop is uniform inside when it is entered in uniform flow, every iteration ends in
    /// uniform flow, no invocation leaves it (or the function) early in non-uniform flow and
    /// its `break if` is uniform. Control flow after it is uniform when it was before and no
    /// invocation returned from inside it: the others reconverge where the loop ends, as in
    /// the WGSL uniformity analysis (a `for` over `local_invocation_index` is followed by a
    /// barrier in most reductions).
    fn loop_(
        &mut self,
        body: &Block,
        continuing: &Block,
        break_if: Option<Handle<Expression>>,
        uniform: bool,
    ) -> (Statement, Flow, bool) {
        let (sites, calls) = (self.sites.len(), self.calls.len());
        let (b, bf) = self.walk_block(body, uniform);
        let (c, cf) = self.walk_block(continuing, bf.uniform);
        let inside = uniform
            && bf.uniform
            && cf.uniform
            && !bf.exits()
            && !cf.exits()
            && break_if.is_none_or(|e| self.uniformity.is_uniform(e));
        if !inside {
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
        let (body, continuing, fn_exit) = if inside || !uniform {
            (b, c, bf.fn_exit || cf.fn_exit)
        } else {
            // Walked as uniform, it is not: no sites inside after all, nor uniform calls.
            self.sites.truncate(sites);
            self.calls.truncate(calls);
            let (b, bf) = self.walk_block(body, false);
            let (c, cf) = self.walk_block(continuing, false);
            (b, c, bf.fn_exit || cf.fn_exit)
        };
        // Invocations that left by a non-uniform `break` or `continue` wait for the others
        // after the loop (Tint accepts a barrier there); one that returned does not.
        let flow = Flow {
            uniform: uniform && !fn_exit,
            loop_exit: false,
            fn_exit,
        };
        let new = Statement::Loop {
            body,
            continuing,
            break_if,
        };
        (new, flow, inside)
    }

    /// Where `statement` first touches storage memory, if it does.
    pub(super) fn access(&self, statement: &Statement, span: Span) -> Option<Span> {
        self.access_at(statement, span, false)
    }

    /// Where `statement` last touches storage memory, if it does.
    fn last_access(&self, statement: &Statement, span: Span) -> Option<Span> {
        self.access_at(statement, span, true)
    }

    fn access_at(&self, statement: &Statement, span: Span, last: bool) -> Option<Span> {
        let storage = |pointer: Handle<Expression>| {
            matches!(
                self.uniformity.root(pointer),
                Root::Global(AddressSpace::Storage { .. })
            )
        };
        let first = |blocks: &[&Block]| {
            let in_block = |block: &&Block| {
                let mut statements: Vec<_> = block.span_iter().collect();
                if last {
                    statements.reverse();
                }
                statements
                    .into_iter()
                    .find_map(|(s, span)| self.access_at(s, *span, last))
            };
            if last {
                blocks.iter().rev().find_map(in_block)
            } else {
                blocks.iter().find_map(in_block)
            }
        };
        match statement {
            Statement::Emit(range) => {
                range
                    .clone()
                    .find_map(|expr| match self.function.expressions[expr] {
                        Expression::Load { pointer } if storage(pointer) => {
                            Some(self.function.expressions.get_span(expr))
                        }
                        _ => None,
                    })
            }
            Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => {
                storage(*pointer).then_some(span)
            }
            Statement::Call { function, .. } => {
                self.storage_functions.contains(function).then_some(span)
            }
            // Storage textures are storage memory too.
            Statement::ImageStore { .. } | Statement::ImageAtomic { .. } => Some(span),
            Statement::Block(_)
            | Statement::If { .. }
            | Statement::Switch { .. }
            | Statement::Loop { .. } => {
                let mut blocks = Vec::new();
                crate::walk::nested_blocks_ref(statement, |block| blocks.push(block));
                first(&blocks)
            }
            Statement::Break
            | Statement::Continue
            | Statement::Return { .. }
            | Statement::Kill
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_)
            | Statement::WorkGroupUniformLoad { .. }
            | Statement::RayQuery { .. }
            | Statement::RayPipelineFunction(_)
            | Statement::SubgroupBallot { .. }
            | Statement::SubgroupGather { .. }
            | Statement::SubgroupCollectiveOperation { .. }
            | Statement::CooperativeStore { .. } => None,
        }
    }
}

/// Whether `statement` holds a `break`, `continue`, `return` or discard anywhere inside.
fn leaves(statement: &Statement) -> bool {
    let exit = |s: &Statement| {
        matches!(
            s,
            Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill
        )
    };
    exit(statement) || {
        let mut found = false;
        crate::walk::nested_blocks_ref(statement, |block| {
            found = found || crate::walk::any_statement(block, &exit)
        });
        found
    }
}
