//! Where a function uses the variable make-atomic rewrites, and whether every use survives
//! the change of type. naga reads `atomicLoad(&p)` as `Load { pointer: p }` and
//! `atomicStore(&p, v)` as `Store { pointer: p, value: v }` once `p` points at an atomic, so
//! loads and stores of one integer through any access chain need no rewriting of their own:
//! only the uses that would no longer validate, or mean something else, are refused.

use crate::fences::operands;
use crate::walk;
use naga::{Block, Expression, Function, GlobalVariable, Handle, Span, Statement};

/// A use that make-atomic cannot rewrite: what it is, and where.
pub struct Refused {
    pub what: String,
    pub span: Span,
}

/// Checks every use of `var` in `function`, where `depth` accesses reach one integer.
pub fn check(
    function: &mut Function,
    var: Handle<GlobalVariable>,
    depth: u32,
    callee_names: &dyn Fn(Handle<Function>) -> String,
) -> Result<(), Refused> {
    let derived = derived_pointers(function, var);
    check_expressions(function, &derived, depth)?;
    let context = Context {
        derived: &derived,
        depth,
        callee_names,
    };
    check_block(&mut function.body, &context)
}

/// For each expression, how many accesses it is from `var`, where it is a pointer into it.
fn derived_pointers(function: &Function, var: Handle<GlobalVariable>) -> Vec<Option<u32>> {
    let mut derived = vec![None; function.expressions.len()];
    // Operands precede their users in the arena, so one pass in order sees every chain.
    for (handle, expr) in function.expressions.iter() {
        derived[handle.index()] = match *expr {
            // Only accesses extend a chain; whatever else takes the pointer is checked by
            // its use below.
            Expression::GlobalVariable(g) if g == var => Some(0),
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                derived[base.index()].map(|d| d + 1)
            }
            _ => None,
        };
    }
    derived
}

/// Expressions may use a pointer into the variable to reach further in, to load one integer,
/// or to take a runtime array's length.
fn check_expressions(
    function: &mut Function,
    derived: &[Option<u32>],
    depth: u32,
) -> Result<(), Refused> {
    let mut refusal = None;
    for (handle, expr) in function.expressions.iter_mut() {
        let users_derivation = derived[handle.index()];
        let kind = UseKind::of(expr);
        operands::of_expression(expr, &mut |operand| {
            let Some(d) = derived[operand.index()] else {
                return;
            };
            let allowed = match kind {
                UseKind::Reach => users_derivation.is_some(),
                UseKind::Load => d == depth,
                UseKind::Length => true,
                UseKind::Other => false,
            };
            if !allowed && refusal.is_none() {
                refusal = Some((handle, kind.refusal(d, depth)));
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

    fn refusal(self, d: u32, depth: u32) -> String {
        match self {
            UseKind::Load if d < depth => "it is loaded as a whole array".into(),
            UseKind::Reach | UseKind::Load | UseKind::Length | UseKind::Other => {
                "a pointer into it is used in an expression other than a load, an access or arrayLength"
                    .into()
            }
        }
    }
}

struct Context<'a> {
    derived: &'a [Option<u32>],
    depth: u32,
    callee_names: &'a dyn Fn(Handle<Function>) -> String,
}

impl Context<'_> {
    fn derived(&self, handle: Handle<Expression>) -> Option<u32> {
        self.derived[handle.index()]
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
        Statement::Store { pointer, value } => match context.derived(pointer) {
            Some(d) if d < context.depth => Some("it is stored as a whole array".into()),
            _ if context.derived(value).is_some() => Some("a pointer into it is stored".into()),
            _ => None,
        },
        Statement::Call {
            function,
            ref arguments,
            ..
        } => arguments
            .iter()
            .any(|&a| context.derived(a).is_some())
            .then(|| {
                format!(
                    "a pointer into it is passed to function `{}`",
                    (context.callee_names)(function)
                )
            }),
        _ => {
            let mut uses = false;
            operands::of_statement(statement, &mut |operand| {
                uses |= context.derived(*operand).is_some();
            });
            uses.then(|| "a pointer into it is used by a statement other than a store".into())
        }
    }
}
