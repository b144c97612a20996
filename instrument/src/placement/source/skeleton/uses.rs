//! What a function's expressions and locals are used for, as the skeleton needs it.

use naga::{Block, Expression, Function, Handle, LocalVariable, Statement};
use std::collections::{HashMap, HashSet};

pub(crate) fn count_statement_uses(block: &Block, uses: &mut [u32]) {
    for statement in block.iter() {
        if !matches!(statement, Statement::Emit(_)) {
            crate::ir::operands::of_statement_ref(statement, &mut |h| uses[h.index()] += 1);
        }
        crate::ir::walk::nested_blocks_ref(statement, |inner| count_statement_uses(inner, uses));
    }
}

/// Locals without an initializer stored exactly once, directly, and otherwise only loaded.
pub(crate) fn transparent_locals(
    function: &Function,
) -> HashMap<Handle<LocalVariable>, Handle<Expression>> {
    let mut stores: HashMap<Handle<LocalVariable>, Vec<Handle<Expression>>> = HashMap::new();
    let mut opaque = HashSet::new();
    for (_, expr) in function.expressions.iter() {
        match *expr {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                if let Expression::LocalVariable(l) = function.expressions[base] {
                    opaque.insert(l);
                }
            }
            Expression::Load { .. } => {}
            _ => {
                crate::ir::operands::of_expression(&mut expr.clone(), &mut |h| {
                    if let Expression::LocalVariable(l) = function.expressions[*h] {
                        opaque.insert(l);
                    }
                });
            }
        }
    }
    fn visit(
        block: &Block,
        function: &Function,
        stores: &mut HashMap<Handle<LocalVariable>, Vec<Handle<Expression>>>,
        opaque: &mut HashSet<Handle<LocalVariable>>,
    ) {
        for statement in block.iter() {
            match *statement {
                Statement::Store { pointer, value } => {
                    let zero = matches!(function.expressions[value], Expression::ZeroValue(_));
                    if let (Expression::LocalVariable(l), false) =
                        (&function.expressions[pointer], zero)
                    {
                        stores.entry(*l).or_default().push(value);
                    }
                }
                Statement::Emit(_) => {}
                _ => {
                    crate::ir::operands::of_statement_ref(statement, &mut |h| {
                        if let Expression::LocalVariable(l) = function.expressions[*h] {
                            opaque.insert(l);
                        }
                    });
                }
            }
            crate::ir::walk::nested_blocks_ref(statement, |inner| {
                visit(inner, function, stores, opaque)
            });
        }
    }
    visit(&function.body, function, &mut stores, &mut opaque);
    stores
        .into_iter()
        .filter(|(l, values)| {
            values.len() == 1 && !opaque.contains(l) && function.local_variables[*l].init.is_none()
        })
        .map(|(l, values)| (l, values[0]))
        .collect()
}
