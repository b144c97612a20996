//! The loop watchdog: every loop gets an iteration counter, reset where the loop starts; past
//! the limit in the params block the library records the loop's id and the loop is left. A
//! spin-wait that never ends becomes a reported outcome instead of a hung GPU.

use crate::barriers::{FunctionNeeds, Needs};
use crate::builder::BlockBuilder;
use crate::sites::Sites;
use crate::walk::nested_blocks;
use naga::{
    BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Span, Statement, Type,
};

pub struct Watchdog {
    /// The library's `wgstress_watchdog(iterations, loop_id) -> bool`.
    pub check: Handle<Function>,
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

impl Watchdog {
    pub fn guard_loops(&self, function: &mut Function, name: &str, sites: &mut Sites) {
        let body = std::mem::take(&mut function.body);
        function.body = self.guard_block(body, function, name, sites);
    }

    fn guard_block(
        &self,
        block: Block,
        fun: &mut Function,
        name: &str,
        sites: &mut Sites,
    ) -> Block {
        let mut out = Block::with_capacity(block.len());
        for (mut statement, span) in block.span_into_iter() {
            nested_blocks(&mut statement, |inner| {
                *inner = self.guard_block(std::mem::take(inner), fun, name, sites);
            });
            if let Statement::Loop {
                body, continuing, ..
            } = &mut statement
            {
                let id = sites.add(name, span);
                let counter = self.counter(fun, id, span);
                let needs = self
                    .needs
                    .of_block(body)
                    .max(self.needs.of_block(continuing));
                out.extend_block(self.reset(fun, counter, span));
                let mut guarded = self.guard(fun, counter, id, span);
                guarded.append(&mut self.stop_early(fun, counter, needs, span));
                guarded.append(body);
                *body = guarded;
            }
            out.push(statement, span);
        }
        out
    }

    fn counter(&self, fun: &mut Function, id: u32, span: Span) -> Handle<Expression> {
        let local = fun.local_variables.append(
            LocalVariable {
                name: Some(format!("wgstress_loop{id}")),
                ty: self.u32_type,
                init: None,
            },
            span,
        );
        fun.expressions
            .append(Expression::LocalVariable(local), span)
    }

    /// `counter = 0u;` before the loop, so a loop nested in another starts from zero each time.
    fn reset(&self, fun: &mut Function, counter: Handle<Expression>, span: Span) -> Block {
        let mut b = BlockBuilder::new(fun, span);
        let zero = b.u32(0);
        b.statement(Statement::Store {
            pointer: counter,
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
        counter: Handle<Expression>,
        needs: Needs,
        span: Span,
    ) -> Block {
        let check = match needs {
            Needs::Nothing => self.stopped,
            Needs::Workgroup => self.stopped_uniform,
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
    fn guard(&self, fun: &mut Function, counter: Handle<Expression>, id: u32, span: Span) -> Block {
        let mut b = BlockBuilder::new(fun, span);
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
            .call(self.check, vec![next, site], true)
            .expect("call with result");
        b.if_then(stop, Statement::Break);
        b.finish()
    }
}
