//! The one walk over the statement tree of a naga function that only reaches nested blocks:
//! every pass that looks for something anywhere in a body (calls, returns, loops, assertion
//! hooks, site markers) recurses through it. Passes that treat each kind of statement
//! differently match `Statement` themselves (place.rs, operands.rs, barriers.rs, ...).
//!
//! The match is written once, for shared and for mutable borrows alike, and names every
//! variant with no catch-all: a naga upgrade that adds a statement fails to compile here.

use naga::{Block, Statement};

/// The blocks nested directly inside a statement, in order: a block's own, an `if`'s accept
/// then reject, a `switch`'s case bodies, a loop's body then continuing.
macro_rules! nested_blocks {
    ($statement:expr, $visit:expr, $($mutability:tt)?) => {
        match $statement {
            Statement::Block(block) => $visit(block),
            Statement::If { accept, reject, .. } => {
                $visit(accept);
                $visit(reject);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    $visit(& $($mutability)? case.body);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                $visit(body);
                $visit(continuing);
            }
            Statement::Emit(_)
            | Statement::Break
            | Statement::Continue
            | Statement::Return { .. }
            | Statement::Kill
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_)
            | Statement::Store { .. }
            | Statement::ImageStore { .. }
            | Statement::Atomic { .. }
            | Statement::ImageAtomic { .. }
            | Statement::WorkGroupUniformLoad { .. }
            | Statement::Call { .. }
            | Statement::RayQuery { .. }
            | Statement::RayPipelineFunction(_)
            | Statement::SubgroupBallot { .. }
            | Statement::SubgroupGather { .. }
            | Statement::SubgroupCollectiveOperation { .. }
            | Statement::CooperativeStore { .. } => {}
        }
    };
}

/// Calls `visit` on every block nested directly inside `statement`, to rewrite it.
pub(crate) fn nested_blocks<'a>(
    statement: &'a mut Statement,
    mut visit: impl FnMut(&'a mut Block),
) {
    nested_blocks!(statement, visit, mut)
}

/// Calls `visit` on every block nested directly inside `statement`.
pub(crate) fn nested_blocks_ref<'a>(statement: &'a Statement, mut visit: impl FnMut(&'a Block)) {
    nested_blocks!(statement, visit,)
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
