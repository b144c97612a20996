//! Hold points after writes: where a progress model lets the scheduler hold a workgroup
//! back, a workgroup can be stopped after any of its steps, not only at its start and at loop
//! iterations. A producer that takes a ticket and then raises a flag, with no loop between,
//! can be held between the two; an unfair scheduler that does so starves its consumer. After
//! each statement that writes storage the dispatch writes (a store, an atomic: every atomic
//! operation but a load writes), this puts a call of the library's
//! `wgstress_hold_write(WGSTRESS_ACCESS + id)`, `id` the write's place in the manifest's
//! `holds` (a hold point only in a run that holds its victim at a place). Other workgroups see only a workgroup's writes, so a hold after a read is a hold
//! after the write before it, as they can tell: writes are every place that matters, and
//! each costs a copy of the parking code (llvmpipe inlines every call). Only in shaders that
//! can park (a model other than fair): elsewhere the calls would cost every write and hold
//! nothing.

use crate::ir::builder::BlockBuilder;
use crate::ir::memory::writes_storage;
use crate::ir::statement::Step;
use crate::ir::walk::nested_blocks;
use crate::passes::sites::Sites;
use naga::{Block, Function, Handle, Module, Span, Statement};

/// The place number of the first access's hold point (library.wgsl's `WGSTRESS_ACCESS`,
/// written from it).
pub(crate) use wgstress_model::run::holds::HOLD_PLACE as ACCESS_PLACE;

pub(crate) struct Holds {
    /// The library's `wgstress_hold_write(place)`.
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

/// Where `statement` itself (not a block nested in it) writes the storage the dispatch
/// writes: a store or an atomic, through a pointer or of a storage texture's texel. A call's
/// writes are the callee's hold points.
fn accesses(
    module: &Module,
    function: &Function,
    statement: &Statement,
    span: Span,
) -> Option<Span> {
    // Other statements write nothing themselves.
    let Step::Memory(access) = Step::of(statement) else {
        return None;
    };
    writes_storage(module, function, &access).then_some(span)
}
