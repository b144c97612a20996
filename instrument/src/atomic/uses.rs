//! Where a function uses the variable make-atomic rewrites, and whether every use survives
//! the change of type. naga reads `atomicLoad(&p)` as `Load { pointer: p }` and
//! `atomicStore(&p, v)` as `Store { pointer: p, value: v }` once `p` points at an atomic, so
//! loads and stores of one integer through any access chain need no rewriting of their own:
//! only the uses that would no longer validate, or mean something else, are refused.

use super::shape;
use crate::ir::operands;
use crate::ir::walk;
use naga::{
    Block, Expression, Function, GlobalVariable, Handle, Span, Statement, Type, UniqueArena,
};

/// A use that make-atomic cannot rewrite: what it is, and where.
pub(crate) struct Refused {
    pub what: String,
    pub span: Span,
}

/// The variable and what make-atomic needs to know about the module around it.
pub(crate) struct TargetVariable<'a> {
    pub var: Handle<GlobalVariable>,
    pub ty: Handle<Type>,
    pub types: &'a UniqueArena<Type>,
    pub callee_names: &'a dyn Fn(Handle<Function>) -> String,
}

/// Checks every use of the target variable in `function`.
pub(crate) fn check(function: &mut Function, target: &TargetVariable) -> Result<(), Refused> {
    let derived = derived_pointers(function, target);
    let at_integer: Vec<Option<bool>> = derived
        .iter()
        .map(|d| d.map(|ty| shape::is_integer(target.types, ty)))
        .collect();
    check_expressions(function, &at_integer)?;
    let context = Context {
        at_integer: &at_integer,
        callee_names: target.callee_names,
    };
    check_block(&mut function.body, &context)
}

/// For each expression that is a pointer into the variable, the type it points at.
fn derived_pointers(function: &Function, target: &TargetVariable) -> Vec<Option<Handle<Type>>> {
    let mut derived = vec![None; function.expressions.len()];
    // Operands precede their users in the arena, so one pass in order sees every chain.
    for (handle, expr) in function.expressions.iter() {
        derived[handle.index()] = match *expr {
            // Only accesses extend a chain; whatever else takes the pointer is checked by
            // its use below.
            Expression::GlobalVariable(g) if g == target.var => Some(target.ty),
            Expression::Access { base, .. } => {
                derived[base.index()].map(|ty| shape::element(target.types, ty, None))
            }
            Expression::AccessIndex { base, index } => {
                derived[base.index()].map(|ty| shape::element(target.types, ty, Some(index)))
            }
            _ => None,
        };
    }
    derived
}

/// Expressions may use a pointer into the variable to reach further in, to load one integer,
/// or to take a runtime array's length.
fn check_expressions(function: &mut Function, at_integer: &[Option<bool>]) -> Result<(), Refused> {
    let mut refusal = None;
    for (handle, expr) in function.expressions.iter_mut() {
        let users_derivation = at_integer[handle.index()];
        let kind = UseKind::of(expr);
        operands::of_expression(expr, &mut |operand| {
            let Some(integer) = at_integer[operand.index()] else {
                return;
            };
            let allowed = match kind {
                UseKind::Reach => users_derivation.is_some(),
                UseKind::Load => integer,
                UseKind::Length => true,
                UseKind::Other => false,
            };
            if !allowed && refusal.is_none() {
                refusal = Some((handle, kind.refusal(integer)));
            }
        });
    }
    match refusal {
        Some((handle, what)) => Err(Refused {
            what,
            span: function.expressions.get_span(handle),
        }),
        None => Ok(()),
    }
}

/// How an expression uses its operands, as far as make-atomic cares.
#[derive(Clone, Copy)]
enum UseKind {
    /// `Access` and `AccessIndex`: a pointer base goes one step further in.
    Reach,
    Load,
    /// `arrayLength(&v)` is as valid on `array<atomic<u32>>`.
    Length,
    Other,
}

impl UseKind {
    fn of(expr: &Expression) -> UseKind {
        // The catch-all is the conservative answer: a pointer operand of any other
        // expression, including one a later naga adds, is refused.
        match *expr {
            Expression::Access { .. } | Expression::AccessIndex { .. } => UseKind::Reach,
            Expression::Load { .. } => UseKind::Load,
            Expression::ArrayLength(_) => UseKind::Length,
            _ => UseKind::Other,
        }
    }

    fn refusal(self, at_integer: bool) -> String {
        match self {
            UseKind::Load if !at_integer => "a whole array or struct of it is loaded at once".into(),
            UseKind::Reach | UseKind::Load | UseKind::Length | UseKind::Other => {
                "a pointer into it is used in an expression other than a load, an access or arrayLength"
                    .into()
            }
        }
    }
}

struct Context<'a> {
    /// For each pointer into the variable, whether it points at one integer.
    at_integer: &'a [Option<bool>],
    callee_names: &'a dyn Fn(Handle<Function>) -> String,
}

impl Context<'_> {
    fn at_integer(&self, handle: Handle<Expression>) -> Option<bool> {
        self.at_integer[handle.index()]
    }
}

/// Statements may store one integer through a pointer into the variable, nothing else.
fn check_block(block: &mut Block, context: &Context) -> Result<(), Refused> {
    for (statement, span) in block.span_iter_mut() {
        let span = span.map_or(Span::UNDEFINED, |s| *s);
        if let Some(what) = refusal(statement, context) {
            return Err(Refused { what, span });
        }
        let mut nested = Ok(());
        walk::nested_blocks(statement, |inner| {
            if nested.is_ok() {
                nested = check_block(inner, context);
            }
        });
        nested?;
    }
    Ok(())
}

/// Why `statement` itself (not its nested blocks) cannot keep its meaning, if it cannot.
fn refusal(statement: &mut Statement, context: &Context) -> Option<String> {
    match *statement {
        Statement::Store { pointer, value } => match context.at_integer(pointer) {
            Some(false) => Some("a whole array or struct of it is stored at once".into()),
            _ if context.at_integer(value).is_some() => Some("a pointer into it is stored".into()),
            _ => None,
        },
        Statement::Call {
            function,
            ref arguments,
            ..
        } => arguments
            .iter()
            .any(|&a| context.at_integer(a).is_some())
            .then(|| {
                format!(
                    "a pointer into it is passed to function `{}`",
                    (context.callee_names)(function)
                )
            }),
        _ => {
            let mut uses = false;
            operands::of_statement(statement, &mut |operand| {
                uses |= context.at_integer(*operand).is_some();
            });
            uses.then(|| "a pointer into it is used by a statement other than a store".into())
        }
    }
}
