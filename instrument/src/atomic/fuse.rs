//! Read-modify-writes made one atomic operation: `v[i] += x`, or `let s = v[i]; v[i] = s + x;`
//! with nothing else between, becomes `atomicAdd(&v[i], x)` once `v` is atomic.
//!
//! An atomic load and an atomic store still let another invocation's update fall between
//! them (a lost update); one atomic read-modify-write does not. Within the invocation the
//! meaning is the same: the loaded value is used only by the operation whose result is
//! stored, and only evaluations (no access, call or barrier) lie between the load and the
//! store, so moving the read to the store changes what the invocation computes in no way.

use crate::ir::operands;
use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, Function, GlobalVariable, Handle, Span,
    Statement,
};

/// Fuses the read-modify-writes of `var` in `function`; returns where each fused store was.
pub(crate) fn fuse(function: &mut Function, var: Handle<GlobalVariable>) -> Vec<Span> {
    let uses = use_counts(function);
    let mut fused = Vec::new();
    let mut body = std::mem::take(&mut function.body);
    fuse_block(&mut body, function, var, &uses, &mut fused);
    function.body = body;
    for (load, value, _) in &fused {
        function.named_expressions.shift_remove(load);
        function.named_expressions.shift_remove(value);
    }
    fused.into_iter().map(|(_, _, span)| span).collect()
}

/// How many expressions and statements use each expression.
fn use_counts(function: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; function.expressions.len()];
    for (_, expr) in function.expressions.iter() {
        operands::of_expression(&mut expr.clone(), &mut |h| uses[h.index()] += 1);
    }
    count_block(&function.body, &mut uses);
    uses
}

fn count_block(block: &Block, uses: &mut [u32]) {
    crate::ir::walk::each_statement(block, &mut |statement| {
        operands::of_statement_ref(statement, &mut |h| uses[h.index()] += 1)
    });
}

/// A fused read-modify-write: its load, its operation, and the store's span.
type Fused = (Handle<Expression>, Handle<Expression>, Span);

fn fuse_block(
    block: &mut Block,
    function: &Function,
    var: Handle<GlobalVariable>,
    uses: &[u32],
    fused: &mut Vec<Fused>,
) {
    let old = std::mem::take(block);
    let mut out: Vec<(Statement, Span)> = Vec::new();
    for (mut statement, span) in old.span_into_iter() {
        crate::ir::walk::nested_blocks(&mut statement, |inner| {
            fuse_block(inner, function, var, uses, fused)
        });
        if let Some((atomic, load, value)) = fusion(&statement, &out, function, var, uses) {
            unemit(&mut out, &[load, value]);
            fused.push((load, value, span));
            out.push((atomic, span));
        } else {
            out.push((statement, span));
        }
    }
    for (statement, span) in out {
        block.push(statement, span);
    }
}

/// The atomic operation `statement` becomes, with the load and operation it replaces, when it
/// stores `load op x` back where `load` read, and only evaluations without loads followed
/// the load in `before` (the statements so far of the same block).
fn fusion(
    statement: &Statement,
    before: &[(Statement, Span)],
    function: &Function,
    var: Handle<GlobalVariable>,
    uses: &[u32],
) -> Option<(Statement, Handle<Expression>, Handle<Expression>)> {
    let Statement::Store { pointer, value } = *statement else {
        return None;
    };
    let expressions = &function.expressions;
    if !reaches(expressions, pointer, var) || uses[value.index()] != 1 {
        return None;
    }
    let Expression::Binary { op, left, right } = expressions[value] else {
        return None;
    };
    let same_index = |a, b| same_local_load(expressions, before, a, b);
    let is_load = |h: Handle<Expression>| {
        matches!(expressions[h], Expression::Load { pointer: p } if same_place(expressions, p, pointer, &same_index))
            && uses[h.index()] == 1
    };
    let (load, operand) = if is_load(left) {
        (left, right)
    } else if is_load(right) && op != BinaryOperator::Subtract {
        (right, left)
    } else {
        return None;
    };
    let fun = match op {
        BinaryOperator::Add => AtomicFunction::Add,
        BinaryOperator::Subtract => AtomicFunction::Subtract,
        BinaryOperator::And => AtomicFunction::And,
        BinaryOperator::InclusiveOr => AtomicFunction::InclusiveOr,
        BinaryOperator::ExclusiveOr => AtomicFunction::ExclusiveOr,
        _ => return None,
    };
    only_evaluations_since(before, expressions, load)?;
    let atomic = Statement::Atomic {
        pointer,
        fun,
        value: operand,
        result: None,
    };
    Some((atomic, load, value))
}

/// Some when `load` was emitted in `before` and only `Emit`s without loads follow it there.
fn only_evaluations_since(
    before: &[(Statement, Span)],
    expressions: &naga::Arena<Expression>,
    load: Handle<Expression>,
) -> Option<()> {
    for (statement, _) in before.iter().rev() {
        let Statement::Emit(range) = statement else {
            return None;
        };
        // Handles grow in evaluation order: what follows the load has larger ones.
        let loads_after = range
            .clone()
            .filter(|h| h.index() > load.index())
            .any(|h| matches!(expressions[h], Expression::Load { .. }));
        if loads_after {
            return None;
        }
        if range.clone().any(|h| h == load) {
            return Some(());
        }
    }
    None
}

/// Whether `pointer` is `var` or an access chain into it.
fn reaches(
    expressions: &naga::Arena<Expression>,
    pointer: Handle<Expression>,
    var: Handle<GlobalVariable>,
) -> bool {
    match expressions[pointer] {
        Expression::GlobalVariable(g) => g == var,
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
            reaches(expressions, base, var)
        }
        _ => false,
    }
}

/// Whether `a` and `b` are loads of the same local variable with nothing but evaluations
/// emitted in `before` since the first of them: the same value. `v[i] = v[i] + 1u;` with a
/// local `i` loads `i` twice, once for each side.
fn same_local_load(
    expressions: &naga::Arena<Expression>,
    before: &[(Statement, Span)],
    a: Handle<Expression>,
    b: Handle<Expression>,
) -> bool {
    let local = |h: Handle<Expression>| match expressions[h] {
        Expression::Load { pointer } => match expressions[pointer] {
            Expression::LocalVariable(v) => Some(v),
            _ => None,
        },
        _ => None,
    };
    if !matches!((local(a), local(b)), (Some(x), Some(y)) if x == y) {
        return false;
    }
    let first = a.min(b);
    for (statement, _) in before.iter().rev() {
        let Statement::Emit(range) = statement else {
            return false;
        };
        if range.clone().any(|h| h == first) {
            return true;
        }
    }
    false
}

/// Whether two access chains name the same place: the same expression, or the same steps
/// (by the same index expressions, or indices `same_index` says are equal) from the same
/// variable.
fn same_place(
    expressions: &naga::Arena<Expression>,
    a: Handle<Expression>,
    b: Handle<Expression>,
    same_index: &dyn Fn(Handle<Expression>, Handle<Expression>) -> bool,
) -> bool {
    if a == b {
        return true;
    }
    match (&expressions[a], &expressions[b]) {
        (Expression::GlobalVariable(x), Expression::GlobalVariable(y)) => x == y,
        (
            &Expression::Access {
                base: ba,
                index: ia,
            },
            &Expression::Access {
                base: bb,
                index: ib,
            },
        ) => (ia == ib || same_index(ia, ib)) && same_place(expressions, ba, bb, same_index),
        (
            &Expression::AccessIndex {
                base: ba,
                index: ia,
            },
            &Expression::AccessIndex {
                base: bb,
                index: ib,
            },
        ) => ia == ib && same_place(expressions, ba, bb, same_index),
        _ => false,
    }
}

/// Takes `gone` out of the `Emit` ranges of `statements`: they are no longer evaluated.
fn unemit(statements: &mut Vec<(Statement, Span)>, gone: &[Handle<Expression>]) {
    let old = std::mem::take(statements);
    for (statement, span) in old {
        let Statement::Emit(range) = statement else {
            statements.push((statement, span));
            continue;
        };
        let mut run: Vec<Handle<Expression>> = Vec::new();
        let flush = |run: &mut Vec<Handle<Expression>>, out: &mut Vec<(Statement, Span)>| {
            if let (Some(first), Some(last)) = (run.first(), run.last()) {
                out.push((
                    Statement::Emit(naga::Range::new_from_bounds(*first, *last)),
                    span,
                ));
            }
            run.clear();
        };
        for h in range {
            if gone.contains(&h) {
                flush(&mut run, statements);
            } else {
                run.push(h);
            }
        }
        flush(&mut run, statements);
    }
}
