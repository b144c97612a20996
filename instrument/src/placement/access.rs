//! Where a statement touches storage the dispatch writes (memory.rs), for the site rule:
//! loads in its evaluations, stores, atomics, storage textures, calls of functions that
//! touch storage, and anything nested in it.

use super::place::Walker;
use crate::ir::memory::{into_writable_storage, writes_storage};
use crate::ir::statement::Step;
use naga::{Block, Expression, Handle, Span, Statement};

impl Walker<'_> {
    /// Where `statement` first touches storage memory, if it does.
    pub(super) fn access(&self, statement: &Statement, span: Span) -> Option<Span> {
        self.access_at(statement, span, false)
    }

    /// Where `statement` last touches storage memory, if it does.
    pub(super) fn last_access_of(&self, statement: &Statement, span: Span) -> Option<Span> {
        self.access_at(statement, span, true)
    }

    fn access_at(&self, statement: &Statement, span: Span, last: bool) -> Option<Span> {
        let storage = |pointer: Handle<Expression>| {
            into_writable_storage(self.module, self.function, pointer)
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
        match Step::of(statement) {
            Step::Emit(range) => {
                let loads: Vec<Handle<Expression>> = range
                    .clone()
                    .filter(|expr| {
                        matches!(self.function.expressions[*expr],
                            Expression::Load { pointer } if storage(pointer))
                    })
                    .collect();
                let found = if last { loads.last() } else { loads.first() };
                found.map(|expr| self.function.expressions.get_span(*expr))
            }
            Step::Memory(access) => {
                writes_storage(self.module, self.function, &access).then_some(span)
            }
            Step::Call { function, .. } => {
                self.storage_functions.contains(function).then_some(span)
            }
            Step::Nested(nested) => {
                let mut blocks = Vec::new();
                nested.blocks(|block| blocks.push(block));
                first(&blocks)
            }
            Step::Jump(_) | Step::Barrier { .. } | Step::Subgroup { .. } | Step::Other { .. } => {
                None
            }
        }
    }
}
