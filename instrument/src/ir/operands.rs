//! The expression operands of naga expressions and statements, for rewriting. Every variant
//! of `Expression`, and of the statement view (statement.rs), is named, with no catch-all: a
//! naga upgrade that adds an expression fails to compile here.

use crate::ir::statement::{Jump, JumpMut, Memory, MemoryMut, Nested, NestedMut, Step, StepMut};
use naga::{AtomicFunction, Expression, Handle, ImageQuery, SampleLevel, Statement};

type Visit<'a> = &'a mut dyn FnMut(&mut Handle<Expression>);

fn opt(handle: &mut Option<Handle<Expression>>, f: Visit) {
    if let Some(h) = handle {
        f(h);
    }
}

/// Calls `f` on every expression handle `expr` refers to.
pub(crate) fn of_expression(expr: &mut Expression, f: Visit) {
    match expr {
        Expression::Literal(_)
        | Expression::Constant(_)
        | Expression::Override(_)
        | Expression::ZeroValue(_)
        | Expression::FunctionArgument(_)
        | Expression::GlobalVariable(_)
        | Expression::LocalVariable(_)
        | Expression::CallResult(_)
        | Expression::AtomicResult { .. }
        | Expression::WorkGroupUniformLoadResult { .. }
        | Expression::RayQueryProceedResult
        | Expression::SubgroupBallotResult
        | Expression::SubgroupOperationResult { .. } => {}
        Expression::Compose { components, .. } => components.iter_mut().for_each(f),
        Expression::Access { base, index } => {
            f(base);
            f(index);
        }
        Expression::AccessIndex { base, .. } => f(base),
        Expression::Splat { value, .. } => f(value),
        Expression::Swizzle { vector, .. } => f(vector),
        Expression::Load { pointer } => f(pointer),
        Expression::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            ..
        } => {
            f(image);
            f(sampler);
            f(coordinate);
            opt(array_index, f);
            opt(offset, f);
            match level {
                SampleLevel::Auto | SampleLevel::Zero => {}
                SampleLevel::Exact(h) | SampleLevel::Bias(h) => f(h),
                SampleLevel::Gradient { x, y } => {
                    f(x);
                    f(y);
                }
            }
            opt(depth_ref, f);
        }
        Expression::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => {
            f(image);
            f(coordinate);
            opt(array_index, f);
            opt(sample, f);
            opt(level, f);
        }
        Expression::ImageQuery { image, query } => {
            f(image);
            match query {
                ImageQuery::Size { level } => opt(level, f),
                ImageQuery::NumLevels | ImageQuery::NumLayers | ImageQuery::NumSamples => {}
            }
        }
        Expression::Unary { expr, .. } => f(expr),
        Expression::Binary { left, right, .. } => {
            f(left);
            f(right);
        }
        Expression::Select {
            condition,
            accept,
            reject,
        } => {
            f(condition);
            f(accept);
            f(reject);
        }
        Expression::Derivative { expr, .. } => f(expr),
        Expression::Relational { argument, .. } => f(argument),
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => {
            f(arg);
            opt(arg1, f);
            opt(arg2, f);
            opt(arg3, f);
        }
        Expression::As { expr, .. } => f(expr),
        Expression::ArrayLength(array) => f(array),
        Expression::RayQueryVertexPositions { query, .. }
        | Expression::RayQueryGetIntersection { query, .. } => f(query),
        Expression::CooperativeLoad { data, .. } => {
            f(&mut data.pointer);
            f(&mut data.stride);
        }
        Expression::CooperativeMultiplyAdd { a, b, c } => {
            f(a);
            f(b);
            f(c);
        }
    }
}

/// Calls `f` on every expression handle a statement itself uses (not those of the statements
/// nested in it, nor the expressions an `Emit` evaluates, nor results it defines), in naga's
/// field order: written once, for rewriting and for reading.
macro_rules! statement_operands {
    ($(#[$doc:meta])* $name:ident, $Step:ident, $Nested:ident, $Jump:ident, $Memory:ident, $($m:tt)?) => {
        $(#[$doc])*
        pub(crate) fn $name(
            statement: &$($m)? Statement,
            f: &mut dyn FnMut(&$($m)? Handle<Expression>),
        ) {
            type Visit<'f> = &'f mut dyn FnMut(&$($m)? Handle<Expression>);
            fn opt(handle: Option<&$($m)? Handle<Expression>>, f: Visit) {
                if let Some(h) = handle {
                    f(h);
                }
            }
            fn atomic(fun: &$($m)? AtomicFunction, f: Visit) {
                match fun {
                    AtomicFunction::Exchange { compare } => opt(compare.into(), f),
                    AtomicFunction::Add
                    | AtomicFunction::Subtract
                    | AtomicFunction::And
                    | AtomicFunction::ExclusiveOr
                    | AtomicFunction::InclusiveOr
                    | AtomicFunction::Min
                    | AtomicFunction::Max => {}
                }
            }
            match $Step::of(statement) {
                $Step::Emit(_)
                | $Step::Barrier { .. }
                | $Step::Jump($Jump::Break | $Jump::Continue | $Jump::Kill) => {}
                $Step::Jump($Jump::Return { value }) => opt(value, f),
                $Step::Nested(nested) => match nested {
                    $Nested::Block(_) => {}
                    $Nested::If { condition, .. } => f(condition),
                    $Nested::Switch { selector, .. } => f(selector),
                    $Nested::Loop { break_if, .. } => opt(break_if, f),
                },
                $Step::Memory(memory) => match memory {
                    $Memory::Store { pointer, value } => {
                        f(pointer);
                        f(value);
                    }
                    $Memory::Atomic {
                        pointer,
                        fun,
                        value,
                        ..
                    } => {
                        f(pointer);
                        atomic(fun, f);
                        f(value);
                    }
                    $Memory::Texel {
                        image,
                        coordinate,
                        array_index,
                        fun,
                        value,
                    } => {
                        f(image);
                        f(coordinate);
                        opt(array_index, f);
                        if let Some(fun) = fun {
                            atomic(fun, f);
                        }
                        f(value);
                    }
                    $Memory::UniformLoad { pointer, .. } => f(pointer),
                },
                $Step::Call { arguments, .. } => {
                    for argument in arguments {
                        f(argument);
                    }
                }
                $Step::Subgroup { operands, .. } | $Step::Other { operands, .. } => {
                    for operand in operands {
                        f(operand);
                    }
                }
            }
        }
    };
}

statement_operands!(
    /// Calls `f` on every expression handle `statement` itself uses, to rewrite it.
    of_statement, StepMut, NestedMut, JumpMut, MemoryMut, mut
);
statement_operands!(
    /// Calls `f` on every expression handle `statement` itself uses.
    of_statement_ref, Step, Nested, Jump, Memory,
);
