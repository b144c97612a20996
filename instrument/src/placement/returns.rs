//! naga's WGSL front end gives a function that ends in an `if` one `return` at the end of
//! each branch. To the uniformity walk those are early exits in non-uniform flow, which would
//! keep every site away from the end of an entry point like `if lid == 0u { ... }`. For a
//! function that returns nothing, the branches may as well fall through to one `return`
//! after the `if`: the same program, whose branches reconverge.

use naga::{Block, Span, Statement};

/// Moves the trailing `return`s of a trailing `if`'s branches (nested ones too) after it.
pub(crate) fn hoist(body: &mut Block) {
    let Some(Statement::If { accept, reject, .. }) = body.last_mut() else {
        return;
    };
    hoist(accept);
    hoist(reject);
    let (a, r) = (strip(accept), strip(reject));
    if a.is_some() || r.is_some() {
        let span = a.or(r).unwrap_or(Span::UNDEFINED);
        body.push(Statement::Return { value: None }, span);
    }
}

/// Removes a final `return;` from `block`; its span if there was one.
fn strip(block: &mut Block) -> Option<Span> {
    let last = block.len().checked_sub(1)?;
    let is_return = matches!(block.last(), Some(Statement::Return { value: None }));
    if !is_return {
        return None;
    }
    let span = block.span_iter().nth(last).map(|(_, s)| *s);
    let mut kept = Block::with_capacity(last);
    for (statement, span) in std::mem::take(block).span_into_iter().take(last) {
        kept.push(statement, span);
    }
    *block = kept;
    span
}
