//! The expression operands of naga expressions and statements, for rewriting. Every variant
//! is named, with no catch-all: a naga upgrade that adds one fails to compile here.

use naga::{
    AtomicFunction, Expression, GatherMode, Handle, ImageQuery, RayPipelineFunction,
    RayQueryFunction, SampleLevel, Statement,
};

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

/// Calls `f` on every expression handle `statement` itself uses (not those of the statements
/// nested in it, nor the expressions an `Emit` evaluates, nor results it defines).
pub(crate) fn of_statement(statement: &mut Statement, f: Visit) {
    match statement {
        Statement::Emit(_)
        | Statement::Block(_)
        | Statement::Break
        | Statement::Continue
        | Statement::Kill
        | Statement::ControlBarrier(_)
        | Statement::MemoryBarrier(_) => {}
        Statement::If { condition, .. } => f(condition),
        Statement::Switch { selector, .. } => f(selector),
        Statement::Loop { break_if, .. } => opt(break_if, f),
        Statement::Return { value } => opt(value, f),
        Statement::Store { pointer, value } => {
            f(pointer);
            f(value);
        }
        Statement::ImageStore {
            image,
            coordinate,
            array_index,
            value,
        } => {
            f(image);
            f(coordinate);
            opt(array_index, f);
            f(value);
        }
        Statement::Atomic {
            pointer,
            fun,
            value,
            ..
        } => {
            f(pointer);
            atomic_function(fun, f);
            f(value);
        }
        Statement::ImageAtomic {
            image,
            coordinate,
            array_index,
            fun,
            value,
        } => {
            f(image);
            f(coordinate);
            opt(array_index, f);
            atomic_function(fun, f);
            f(value);
        }
        Statement::WorkGroupUniformLoad { pointer, .. } => f(pointer),
        Statement::Call { arguments, .. } => arguments.iter_mut().for_each(f),
        Statement::RayQuery { query, fun } => {
            f(query);
            match fun {
                RayQueryFunction::Initialize {
                    acceleration_structure,
                    descriptor,
                } => {
                    f(acceleration_structure);
                    f(descriptor);
                }
                RayQueryFunction::GenerateIntersection { hit_t } => f(hit_t),
                RayQueryFunction::Proceed { .. }
                | RayQueryFunction::ConfirmIntersection
                | RayQueryFunction::Terminate => {}
            }
        }
        Statement::RayPipelineFunction(fun) => match fun {
            RayPipelineFunction::TraceRay {
                acceleration_structure,
                descriptor,
                payload,
            } => {
                f(acceleration_structure);
                f(descriptor);
                f(payload);
            }
        },
        Statement::SubgroupBallot { predicate, .. } => opt(predicate, f),
        Statement::SubgroupGather { mode, argument, .. } => {
            match mode {
                GatherMode::BroadcastFirst | GatherMode::QuadSwap(_) => {}
                GatherMode::Broadcast(h)
                | GatherMode::Shuffle(h)
                | GatherMode::ShuffleDown(h)
                | GatherMode::ShuffleUp(h)
                | GatherMode::ShuffleXor(h)
                | GatherMode::QuadBroadcast(h) => f(h),
            }
            f(argument);
        }
        Statement::SubgroupCollectiveOperation { argument, .. } => f(argument),
        Statement::CooperativeStore { target, data } => {
            f(target);
            f(&mut data.pointer);
            f(&mut data.stride);
        }
    }
}

fn atomic_function(fun: &mut AtomicFunction, f: Visit) {
    match fun {
        AtomicFunction::Exchange { compare } => opt(compare, f),
        AtomicFunction::Add
        | AtomicFunction::Subtract
        | AtomicFunction::And
        | AtomicFunction::ExclusiveOr
        | AtomicFunction::InclusiveOr
        | AtomicFunction::Min
        | AtomicFunction::Max => {}
    }
}

/// The result expression `statement` defines (a call's, an atomic's, ...), if any.
pub(crate) fn result(statement: &Statement) -> Option<Handle<Expression>> {
    result_mut(&mut statement.clone()).copied()
}

/// The result expression `statement` defines, for rewriting.
pub(crate) fn result_mut(statement: &mut Statement) -> Option<&mut Handle<Expression>> {
    match statement {
        Statement::Call { result, .. } | Statement::Atomic { result, .. } => result.as_mut(),
        Statement::WorkGroupUniformLoad { result, .. }
        | Statement::SubgroupBallot { result, .. }
        | Statement::SubgroupGather { result, .. }
        | Statement::SubgroupCollectiveOperation { result, .. } => Some(result),
        Statement::RayQuery {
            fun: RayQueryFunction::Proceed { result },
            ..
        } => Some(result),
        Statement::Emit(_)
        | Statement::Block(_)
        | Statement::If { .. }
        | Statement::Switch { .. }
        | Statement::Loop { .. }
        | Statement::Break
        | Statement::Continue
        | Statement::Return { .. }
        | Statement::Kill
        | Statement::ControlBarrier(_)
        | Statement::MemoryBarrier(_)
        | Statement::Store { .. }
        | Statement::ImageStore { .. }
        | Statement::ImageAtomic { .. }
        | Statement::RayQuery { .. }
        | Statement::RayPipelineFunction(_)
        | Statement::CooperativeStore { .. } => None,
    }
}
