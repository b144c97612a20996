//! Counters: locals a loop only counts with and tests. A bounded spin (`for (var k = 0u; k <
//! bound && atomicLoad(&flag) == 0u; k++) {}`, or a test thread's step count) changes its
//! counter every iteration while it waits, so a state that held the counter would call every
//! such wait progress and the scheduler would never see it stall. A counter is a local of
//! integer type whose value goes nowhere but into comparisons and into its own increment by a
//! constant; a local that indexes memory, is passed on, or is stored anywhere else is state.

use crate::ir::operands;
use naga::{
    BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Module, ScalarKind,
    Statement, TypeInner,
};

/// Which of `function`'s locals are counters, by local index.
pub(crate) fn counters(module: &Module, function: &Function) -> Vec<bool> {
    let mut counter: Vec<bool> = function
        .local_variables
        .iter()
        .map(|(_, l)| {
            matches!(
                module.types[l.ty].inner,
                TypeInner::Scalar(s) if matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint)
            )
        })
        .collect();
    // Who uses each expression: other expressions, and statements.
    let mut users: Vec<Vec<User>> = vec![Vec::new(); function.expressions.len()];
    for (handle, expression) in function.expressions.iter() {
        operands::of_expression(&mut expression.clone(), &mut |operand| {
            users[operand.index()].push(User::Expression(handle))
        });
    }
    statement_users(&function.body, &mut users);
    let local_of = |h: Handle<Expression>| match function.expressions[h] {
        Expression::LocalVariable(l) => Some(l),
        _ => None,
    };
    for (handle, expression) in function.expressions.iter() {
        let Expression::LocalVariable(local) = *expression else {
            continue;
        };
        if !counter[local.index()] {
            continue;
        }
        let fine = users[handle.index()].iter().all(|user| match *user {
            User::Expression(load) => {
                matches!(function.expressions[load], Expression::Load { .. })
                    && loaded_as_counter(function, &users, load, local, &local_of)
            }
            User::Store { pointer, value } => {
                pointer == handle
                    && (constant(function, value)
                        || increment_of(function, &users, value, local, &local_of))
            }
            User::Other => false,
        });
        counter[local.index()] = fine;
    }
    counter
}

#[derive(Clone, Copy)]
enum User {
    Expression(Handle<Expression>),
    /// A store of `value` through `pointer`.
    Store {
        pointer: Handle<Expression>,
        value: Handle<Expression>,
    },
    /// Any other statement: a call's argument, a condition, an atomic's operand, a return.
    Other,
}

/// Whether every use of `load` (a load of `local`) is a comparison or an increment stored back.
fn loaded_as_counter(
    function: &Function,
    users: &[Vec<User>],
    load: Handle<Expression>,
    local: Handle<LocalVariable>,
    local_of: &impl Fn(Handle<Expression>) -> Option<Handle<LocalVariable>>,
) -> bool {
    users[load.index()].iter().all(|user| match *user {
        User::Expression(e) => match function.expressions[e] {
            Expression::Binary { op, .. } if comparison(op) => true,
            Expression::Binary { .. } => increment_of(function, users, e, local, local_of),
            _ => false,
        },
        User::Store { .. } | User::Other => false,
    })
}

/// Whether `value` is `local ± constant` and is only stored back into `local`.
fn increment_of(
    function: &Function,
    users: &[Vec<User>],
    value: Handle<Expression>,
    local: Handle<LocalVariable>,
    local_of: &impl Fn(Handle<Expression>) -> Option<Handle<LocalVariable>>,
) -> bool {
    let Expression::Binary { op, left, right } = function.expressions[value] else {
        return false;
    };
    let of_local = |h: Handle<Expression>| match function.expressions[h] {
        Expression::Load { pointer } => local_of(pointer) == Some(local),
        _ => false,
    };
    let shape = match op {
        BinaryOperator::Add => {
            (of_local(left) && constant(function, right))
                || (of_local(right) && constant(function, left))
        }
        BinaryOperator::Subtract => of_local(left) && constant(function, right),
        _ => false,
    };
    shape
        && users[value.index()].iter().all(|user| match *user {
            User::Store { pointer, .. } => local_of(pointer) == Some(local),
            _ => false,
        })
}

fn constant(function: &Function, h: Handle<Expression>) -> bool {
    matches!(
        function.expressions[h],
        Expression::Literal(_) | Expression::Constant(_) | Expression::ZeroValue(_)
    )
}

fn comparison(op: BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Less
            | BinaryOperator::LessEqual
            | BinaryOperator::Greater
            | BinaryOperator::GreaterEqual
            | BinaryOperator::Equal
            | BinaryOperator::NotEqual
    )
}

/// Records which statements of `block` use which expressions.
fn statement_users(block: &Block, users: &mut [Vec<User>]) {
    for statement in block.iter() {
        match *statement {
            Statement::Block(ref inner) => statement_users(inner, users),
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => {
                users[condition.index()].push(User::Other);
                statement_users(accept, users);
                statement_users(reject, users);
            }
            Statement::Switch {
                selector,
                ref cases,
            } => {
                users[selector.index()].push(User::Other);
                for case in cases {
                    statement_users(&case.body, users);
                }
            }
            Statement::Loop {
                ref body,
                ref continuing,
                break_if,
            } => {
                if let Some(condition) = break_if {
                    users[condition.index()].push(User::Other);
                }
                statement_users(body, users);
                statement_users(continuing, users);
            }
            Statement::Store { pointer, value } => {
                users[pointer.index()].push(User::Store { pointer, value });
                users[value.index()].push(User::Store { pointer, value });
            }
            // The rest hold no blocks: every operand is a use of another kind.
            _ => operands::of_statement_ref(statement, &mut |operand| {
                users[operand.index()].push(User::Other)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters_of(source: &str) -> Vec<(String, bool)> {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let function = &module.entry_points[0].function;
        let counted = counters(&module, function);
        function
            .local_variables
            .iter()
            .map(|(h, l)| (l.name.clone().unwrap_or_default(), counted[h.index()]))
            .collect()
    }

    #[test]
    fn a_bounded_spins_count_is_a_counter_and_an_index_is_state() {
        let found = counters_of(
            "@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
             @group(0) @binding(1) var<storage, read_write> data: array<atomic<u32>, 8>;
             @compute @workgroup_size(1) fn main() {
                 var k = 0u;
                 loop {
                     if k >= 1000u || atomicLoad(&flag) != 0u { break; }
                     k += 1u;
                 }
                 for (var i = 0u; i < 8u; i++) { atomicAdd(&data[i], 1u); }
                 var pc = 0u;
                 var seen = 0u;
                 loop {
                     if pc >= 2u { break; }
                     seen = atomicLoad(&flag);
                     pc = select(0u, 1u, seen == 1u) + pc;
                 }
             }",
        );
        let of = |name: &str| found.iter().find(|(n, _)| n == name).unwrap().1;
        assert!(of("k"), "{found:?}");
        assert!(!of("i"), "an index into memory is state: {found:?}");
        assert!(!of("seen"), "a value read is state: {found:?}");
        assert!(
            !of("pc"),
            "a local set from what was read is state: {found:?}"
        );
    }
}
