//! Walking the statement tree of a naga function.

use naga::{Block, Statement};

/// Calls `visit` on every block nested directly inside `statement`.
pub fn nested_blocks(statement: &mut Statement, mut visit: impl FnMut(&mut Block)) {
    match statement {
        Statement::Block(block) => visit(block),
        Statement::If { accept, reject, .. } => {
            visit(accept);
            visit(reject);
        }
        Statement::Switch { cases, .. } => {
            for case in cases {
                visit(&mut case.body);
            }
        }
        Statement::Loop {
            body, continuing, ..
        } => {
            visit(body);
            visit(continuing);
        }
        // No nested blocks; named one by one so that a new naga statement is looked at.
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
}

/// Calls `visit` on every block nested directly inside `statement`, read-only.
pub fn nested_blocks_ref(statement: &Statement, mut visit: impl FnMut(&Block)) {
    match statement {
        Statement::Block(block) => visit(block),
        Statement::If { accept, reject, .. } => {
            visit(accept);
            visit(reject);
        }
        Statement::Switch { cases, .. } => {
            for case in cases {
                visit(&case.body);
            }
        }
        Statement::Loop {
            body, continuing, ..
        } => {
            visit(body);
            visit(continuing);
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
}
