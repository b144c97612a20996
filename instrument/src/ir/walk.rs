//! The walk over the statement tree of a naga function that only reaches nested blocks:
//! every pass that looks for something anywhere in a body (calls, returns, loops, assertion
//! hooks, site markers) recurses through it. Passes that treat each kind of statement
//! differently match the view of statement.rs (`Step`) themselves (operands.rs, barriers.rs,
//! behaviors.rs, ...); this walk reaches the blocks of its `Nested` kind.

use crate::ir::statement::{Step, StepMut};
use naga::{Block, Statement};

/// Calls `visit` on every block nested directly inside `statement`, to rewrite it, in order:
/// a block's own, an `if`'s accept then reject, a `switch`'s case bodies, a loop's body then
/// continuing.
pub(crate) fn nested_blocks<'a>(statement: &'a mut Statement, visit: impl FnMut(&'a mut Block)) {
    if let StepMut::Nested(nested) = StepMut::of(statement) {
        nested.blocks(visit);
    }
}

/// Calls `visit` on every block nested directly inside `statement`, in the same order.
pub(crate) fn nested_blocks_ref<'a>(statement: &'a Statement, visit: impl FnMut(&'a Block)) {
    if let Step::Nested(nested) = Step::of(statement) {
        nested.blocks(visit);
    }
}

/// Whether `found` holds for some statement of `block`, at any depth.
pub(crate) fn any_statement(block: &Block, found: &impl Fn(&Statement) -> bool) -> bool {
    block.iter().any(|statement| {
        let mut nested = false;
        nested_blocks_ref(statement, |inner| {
            nested = nested || any_statement(inner, found)
        });
        nested || found(statement)
    })
}

/// Calls `visit` on every statement of `block`, at any depth, outer ones first.
pub(crate) fn each_statement(block: &Block, visit: &mut impl FnMut(&Statement)) {
    for statement in block.iter() {
        visit(statement);
        nested_blocks_ref(statement, |inner| each_statement(inner, visit));
    }
}
