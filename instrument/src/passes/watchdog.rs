//! The loop watchdog and the scheduler's step: every loop gets an iteration counter, reset
//! where the loop starts, and at the top of its body a call of the library's `wgstress_step`
//! with a hash of the state the iteration before left (loop_state.rs), which tells a wait from
//! progress, parks a scheduled workgroup and finds a wait nothing will end. Past the cap in the
//! params block the library records the loop's id and the loop is left. A spin-wait that never
//! ends becomes a reported outcome instead of a hung GPU.

use crate::ir::builder::BlockBuilder;
use crate::ir::walk::nested_blocks;
use crate::passes::barriers::{FunctionNeeds, Needs};
use crate::passes::loop_state::StateTypes;
use crate::passes::sites::Sites;
use naga::{
    BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Span, Statement, Type,
};

pub(crate) struct Watchdog {
    /// The library's `wgstress_watchdog(iterations, loop_id) -> bool`.
    pub check: Handle<Function>,
    /// The library's `wgstress_step(loop_id, iterations, state, previous: ptr<function, u32>)`.
    pub step: Handle<Function>,
    /// The library's `wgstress_left(loop_id, exited)`, right after each loop.
    pub left: Handle<Function>,
    /// The library's `wgstress_stopped() -> bool` and `wgstress_stopped_uniform() -> bool`:
    /// whether the watchdog stopped another loop of this run.
    pub stopped: Handle<Function>,
    pub stopped_uniform: Handle<Function>,
    /// What uniformity each function needs, to choose between the two.
    pub needs: FunctionNeeds,
    pub u32_type: Handle<Type>,
}

/// Loops look for another loop's watchdog event every this many iterations (a power of two).
const STOP_EVERY: u32 = 64;

/// One loop's locals: its iteration count, its state's hash on the iteration before, the
/// hash of what this iteration read so far, and whether it left by an exit of its own (1u):
/// a loop that ends otherwise was ended by the driver (llvmpipe's iteration limit).
#[derive(Clone, Copy)]
struct LoopLocals {
    counter: Handle<LocalVariable>,
    previous: Handle<LocalVariable>,
    reads: Handle<LocalVariable>,
    exited: Handle<LocalVariable>,
}

/// The rewrite of one function.
struct Guarding<'w> {
    watchdog: &'w Watchdog,
    types: StateTypes,
    name: String,
    /// The locals the watchdog added, which are no part of any loop's state.
    ours: Vec<Handle<LocalVariable>>,
}

impl Watchdog {
    /// Puts every loop of `function` under the watchdog and the scheduler's step; `types`
    /// were taken from the function before this rewrite.
    pub(crate) fn guard_loops(
        &self,
        function: &mut Function,
        name: &str,
        types: StateTypes,
        sites: &mut Sites,
    ) {
        let mut guarding = Guarding {
            watchdog: self,
            types,
            name: name.to_string(),
            ours: Vec::new(),
        };
        let body = std::mem::take(&mut function.body);
        function.body = guarding.guard_block(body, function, sites);
    }
}

impl Guarding<'_> {
    fn guard_block(&mut self, block: Block, fun: &mut Function, sites: &mut Sites) -> Block {
        let mut out = Block::with_capacity(block.len());
        for (mut statement, span) in block.span_into_iter() {
            nested_blocks(&mut statement, |inner| {
                *inner = self.guard_block(std::mem::take(inner), fun, sites);
            });
            if let Statement::Loop {
                body,
                continuing,
                break_if,
            } = &mut statement
            {
                let id = sites.add(&self.name, span);
                let locals = self.locals(fun, id, span);
                let state = self
                    .types
                    .stored_locals(fun, &[&*body, &*continuing], &self.ours);
                let needs = self
                    .watchdog
                    .needs
                    .of_block(body)
                    .max(self.watchdog.needs.of_block(continuing));
                out.extend_block(self.reset(fun, locals, span));
                let mut captured =
                    self.types
                        .capture_reads(std::mem::take(body), fun, locals.reads);
                let mut guarded = self.guard(fun, locals, id, span);
                guarded.append(&mut self.step(fun, locals, &state, id, span));
                guarded.append(&mut self.stop_early(fun, locals.counter, needs, span));
                guarded.append(&mut captured);
                *body = mark_exits(guarded, fun, locals.exited, span);
                if let Some(condition) = *break_if {
                    let mut b = BlockBuilder::new(fun, span);
                    let one = b.u32(1);
                    let zero = b.u32(0);
                    let value = b.expr(Expression::Select {
                        condition,
                        accept: one,
                        reject: zero,
                    });
                    let pointer = b.expr(Expression::LocalVariable(locals.exited));
                    b.statement(Statement::Store { pointer, value });
                    continuing.extend_block(b.finish());
                }
                out.push(statement, span);
                let mut after = BlockBuilder::new(fun, span);
                let site = after.u32(id);
                let exited = after.expr(Expression::LocalVariable(locals.exited));
                let exited = after.expr(Expression::Load { pointer: exited });
                after.call(self.watchdog.left, vec![site, exited], false);
                out.extend_block(after.finish());
                continue;
            }
            out.push(statement, span);
        }
        out
    }

    fn locals(&mut self, fun: &mut Function, id: u32, span: Span) -> LoopLocals {
        let mut local = |what: &str| {
            let handle = fun.local_variables.append(
                LocalVariable {
                    name: Some(format!("wgstress_{what}{id}")),
                    ty: self.watchdog.u32_type,
                    init: None,
                },
                span,
            );
            self.ours.push(handle);
            handle
        };
        LoopLocals {
            counter: local("loop"),
            previous: local("state"),
            reads: local("reads"),
            exited: local("exited"),
        }
    }

    /// `counter = 0u; previous = 0u; reads = 0u; exited = 0u;` before the loop, so a loop
    /// nested in another starts afresh each time.
    fn reset(&self, fun: &mut Function, locals: LoopLocals, span: Span) -> Block {
        let mut b = BlockBuilder::new(fun, span);
        let zero = b.u32(0);
        for local in [locals.counter, locals.previous, locals.reads, locals.exited] {
            let pointer = b.expr(Expression::LocalVariable(local));
            b.statement(Statement::Store {
                pointer,
                value: zero,
            });
        }
        b.finish()
    }

    /// `wgstress_step(id, counter, hash(reads, state...), &previous); reads = 0u;`: the
    /// scheduler's look at this iteration, from what the one before left.
    fn step(
        &self,
        fun: &mut Function,
        locals: LoopLocals,
        state: &[Handle<LocalVariable>],
        id: u32,
        span: Span,
    ) -> Block {
        let mut b = BlockBuilder::new(fun, span);
        let site = b.u32(id);
        let counter = b.expr(Expression::LocalVariable(locals.counter));
        let count = b.expr(Expression::Load { pointer: counter });
        let reads = b.expr(Expression::LocalVariable(locals.reads));
        let mut hash = b.expr(Expression::Load { pointer: reads });
        for local in state {
            hash = self.types.mix_local(&mut b, hash, *local);
        }
        let previous = b.expr(Expression::LocalVariable(locals.previous));
        b.call(self.watchdog.step, vec![site, count, hash, previous], false);
        let zero = b.u32(0);
        b.statement(Statement::Store {
            pointer: reads,
            value: zero,
        });
        b.finish()
    }
    /// `if (counter & 63u) == 0u { if wgstress_stopped() { break; } }`, with the uniform
    /// check in loops that hold barriers (and so run in uniform control flow), and none in
    /// loops with subgroup operations, which a non-uniform branch would break.
    fn stop_early(
        &self,
        fun: &mut Function,
        counter: Handle<LocalVariable>,
        needs: Needs,
        span: Span,
    ) -> Block {
        let check = match needs {
            Needs::Nothing => self.watchdog.stopped,
            Needs::Workgroup => self.watchdog.stopped_uniform,
            Needs::Subgroup => return Block::new(),
        };
        let mut inner = BlockBuilder::new(fun, span);
        let stop = inner
            .call(check, Vec::new(), true)
            .expect("call with result");
        inner.if_then(stop, Statement::Break);
        let accept = inner.finish();
        let mut b = BlockBuilder::new(fun, span);
        let mask = b.u32(STOP_EVERY - 1);
        let zero = b.u32(0);
        let counter = b.expr(Expression::LocalVariable(counter));
        let count = b.expr(Expression::Load { pointer: counter });
        let low = b.expr(Expression::Binary {
            op: BinaryOperator::And,
            left: count,
            right: mask,
        });
        let due = b.expr(Expression::Binary {
            op: BinaryOperator::Equal,
            left: low,
            right: zero,
        });
        b.statement(Statement::If {
            condition: due,
            accept,
            reject: Block::new(),
        });
        b.finish()
    }

    /// `counter += 1u; if wgstress_watchdog(counter, id) { break; }` at the top of the body.
    fn guard(&self, fun: &mut Function, locals: LoopLocals, id: u32, span: Span) -> Block {
        let mut b = BlockBuilder::new(fun, span);
        let counter = b.expr(Expression::LocalVariable(locals.counter));
        let one = b.u32(1);
        let site = b.u32(id);
        let count = b.expr(Expression::Load { pointer: counter });
        let next = b.expr(Expression::Binary {
            op: BinaryOperator::Add,
            left: count,
            right: one,
        });
        b.statement(Statement::Store {
            pointer: counter,
            value: next,
        });
        let stop = b
            .call(self.watchdog.check, vec![next, site], true)
            .expect("call with result");
        b.if_then(stop, Statement::Break);
        b.finish()
    }
}

/// `block` with `exited = 1u;` before each `break` that leaves this loop: not those inside a
/// nested loop or switch, which leave that.
fn mark_exits(
    block: Block,
    fun: &mut Function,
    exited: Handle<LocalVariable>,
    span: Span,
) -> Block {
    let mut out = Block::with_capacity(block.len());
    for (statement, at) in block.span_into_iter() {
        match statement {
            Statement::Break => {
                let mut b = BlockBuilder::new(fun, span);
                let one = b.u32(1);
                let pointer = b.expr(Expression::LocalVariable(exited));
                b.statement(Statement::Store {
                    pointer,
                    value: one,
                });
                out.extend_block(b.finish());
                out.push(Statement::Break, at);
            }
            Statement::Block(inner) => {
                out.push(Statement::Block(mark_exits(inner, fun, exited, span)), at);
            }
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let accept = mark_exits(accept, fun, exited, span);
                let reject = mark_exits(reject, fun, exited, span);
                out.push(
                    Statement::If {
                        condition,
                        accept,
                        reject,
                    },
                    at,
                );
            }
            other => out.push(other, at),
        }
    }
    out
}
