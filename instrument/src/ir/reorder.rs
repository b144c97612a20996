//! Putting new expressions before old ones in a function's arena. naga's validator wants
//! every expression after the expressions it uses, so a pass that must give an existing
//! expression a new operand (a conversion, a pointer's access chain) appends the new
//! expressions and then moves them, as a group, just before the expression that uses them;
//! every handle in the function is renumbered.

use crate::ir::operands;
use crate::ir::statement::StepMut;
use naga::{Arena, Block, Expression, Function, Handle, Range, Statement};
use std::collections::HashMap;

/// A group of expressions appended to the arena (a range of indices at its end), to go just
/// before the expression `before`.
pub(crate) struct Move {
    pub group: std::ops::Range<usize>,
    pub before: Handle<Expression>,
}

/// Moves each group before its expression, in the order given where several go before the
/// same one, and renumbers every expression handle of `function`. An `Emit` of a range whose
/// first expression gets a group emits the group too; a group before an expression that no
/// `Emit` covers is the caller's to emit. Returns where each old expression went.
pub(crate) fn place_before(function: &mut Function, moves: &[Move]) -> Vec<Handle<Expression>> {
    let count = function.expressions.len();
    let mut moved = vec![false; count];
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for m in moves {
        for index in m.group.clone() {
            moved[index] = true;
        }
        groups
            .entry(m.before.index())
            .or_default()
            .extend(m.group.clone());
    }
    let mut order = Vec::with_capacity(count);
    // Where the first expression placed for an old one (its group's first, or itself) went.
    let mut first = vec![0; count];
    for index in (0..count).filter(|i| !moved[*i]) {
        first[index] = order.len();
        order.extend(groups.get(&index).into_iter().flatten());
        order.push(index);
    }
    assert_eq!(
        order.len(),
        count,
        "every moved group goes before an unmoved expression"
    );
    let mut position_of = vec![0; count];
    for (position, &old) in order.iter().enumerate() {
        position_of[old] = position;
    }
    let old = std::mem::take(&mut function.expressions);
    let spans: Vec<naga::Span> = old.iter().map(|(h, _)| old.get_span(h)).collect();
    let exprs = old.into_inner();
    let mut arena = Arena::new();
    // Operands come earlier in the new order too, so their new handles are known.
    let mut handles: Vec<Handle<Expression>> = Vec::with_capacity(count);
    for &index in &order {
        let mut expr = exprs[index].clone();
        operands::of_expression(&mut expr, &mut |h| *h = handles[position_of[h.index()]]);
        handles.push(arena.append(expr, spans[index]));
    }
    let new_of: Vec<Handle<Expression>> = (0..count).map(|i| handles[position_of[i]]).collect();
    let remap = |h: &mut Handle<Expression>| *h = new_of[h.index()];
    function.expressions = arena;
    function.named_expressions = std::mem::take(&mut function.named_expressions)
        .into_iter()
        .map(|(h, name)| (new_of[h.index()], name))
        .collect();
    for (_, local) in function.local_variables.iter_mut() {
        if let Some(init) = &mut local.init {
            remap(init);
        }
    }
    let first_of = |h: Handle<Expression>| handles[first[h.index()]];
    renumber_block(&mut function.body, &new_of, &first_of);
    new_of
}

fn renumber_block(
    block: &mut Block,
    new_of: &[Handle<Expression>],
    first_of: &dyn Fn(Handle<Expression>) -> Handle<Expression>,
) {
    for statement in block.iter_mut() {
        match statement {
            Statement::Emit(range) => {
                if let Some((start, last)) = range.first_and_last() {
                    *range = Range::new_from_bounds(first_of(start), new_of[last.index()]);
                }
            }
            other => {
                operands::of_statement(other, &mut |h| *h = new_of[h.index()]);
                if let Some(result) = StepMut::of(other).result() {
                    *result = new_of[result.index()];
                }
                crate::ir::walk::nested_blocks(other, |inner| {
                    renumber_block(inner, new_of, first_of)
                });
            }
        }
    }
}
