//! Hold points after accesses: where a progress model lets the scheduler hold a workgroup
//! back, a workgroup can be stopped after any of its steps, not only at its start and at loop
//! iterations. A producer that takes a ticket and then raises a flag, with no loop between,
//! can be held between the two; an unfair scheduler that does so starves its consumer. After
//! each statement that does an atomic or a storage access (the storage the dispatch writes),
//! this puts a call of the library's `wgstress_park_at_step(WGSTRESS_ACCESS + id)`, `id` the
//! access's place in the manifest's `holds`. Only in shaders that can park (a model other
//! than fair): elsewhere the calls would cost every access and hold nothing.

use crate::ir::builder::BlockBuilder;
use crate::ir::memory::into_writable_storage;
use crate::ir::walk::nested_blocks;
use crate::passes::sites::Sites;
use naga::{Block, Expression, Function, Handle, Module, Span, Statement};

/// The place number of the first access's hold point (library.wgsl's `WGSTRESS_ACCESS`,
/// written from it).
pub(crate) use wgstress_model::run::holds::HOLD_PLACE as ACCESS_PLACE;

pub(crate) struct Holds {
    /// The library's `wgstress_park_at_step(place)`.
    pub park: Handle<Function>,
}

impl Holds {
    /// Puts a hold point after every statement of `function` that accesses storage, each
    /// registered in `sites` at the access.
    pub(crate) fn mark(
        &self,
        module: &Module,
        function: &mut Function,
        name: &str,
        sites: &mut Sites,
    ) {
        let body = std::mem::take(&mut function.body);
        function.body = self.mark_block(body, module, function, name, sites);
    }

    fn mark_block(
        &self,
        block: Block,
        module: &Module,
        function: &mut Function,
        name: &str,
        sites: &mut Sites,
    ) -> Block {
        let mut out = Block::with_capacity(block.len());
        for (mut statement, span) in block.span_into_iter() {
            nested_blocks(&mut statement, |inner| {
                *inner = self.mark_block(std::mem::take(inner), module, function, name, sites);
            });
            let access = accesses(module, function, &statement, span);
            out.push(statement, span);
            if let Some(at) = access {
                let id = sites.add(name, at);
                let mut b = BlockBuilder::new(function, at);
                let place = b.u32(ACCESS_PLACE + id);
                b.call(self.park, vec![place], false);
                out.extend_block(b.finish());
            }
        }
        out
    }
}

/// Where `statement` itself (not a block nested in it) accesses the storage the dispatch
/// writes: a load among the expressions it evaluates, a store or an atomic. A call's accesses
/// are the callee's hold points.
fn accesses(
    module: &Module,
    function: &Function,
    statement: &Statement,
    span: Span,
) -> Option<Span> {
    let storage = |pointer: Handle<Expression>| into_writable_storage(module, function, pointer);
    match statement {
        Statement::Emit(range) => range
            .clone()
            .find(|e| matches!(function.expressions[*e], Expression::Load { pointer } if storage(pointer)))
            .map(|e| function.expressions.get_span(e)),
        Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => {
            storage(*pointer).then_some(span)
        }
        Statement::ImageStore { .. } | Statement::ImageAtomic { .. } => Some(span),
        Statement::Block(_)
        | Statement::If { .. }
        | Statement::Switch { .. }
        | Statement::Loop { .. }
        | Statement::Break
        | Statement::Continue
        | Statement::Return { .. }
        | Statement::Kill
        | Statement::ControlBarrier(_)
        | Statement::MemoryBarrier(_)
        | Statement::WorkGroupUniformLoad { .. }
        | Statement::Call { .. }
        | Statement::RayQuery { .. }
        | Statement::RayPipelineFunction(_)
        | Statement::SubgroupBallot { .. }
        | Statement::SubgroupGather { .. }
        | Statement::SubgroupCollectiveOperation { .. }
        | Statement::CooperativeStore { .. } => None,
    }
}
