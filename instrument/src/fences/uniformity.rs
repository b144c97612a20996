//! Which values of the application's entry point are the same in every invocation of a
//! workgroup. Conservative by construction: a value is uniform only if it derives from
//! constants, overrides, the uniform buffer, `workgroup_id`, `num_workgroups`,
//! `workgroupUniformLoad` results, results of functions whose return value is uniform when
//! the arguments it depends on are (results.rs), or local variables that only ever hold such
//! values and are only written in uniform control flow. Everything else (loads of storage,
//! workgroup or private memory, local ids, atomic results, textures) is non-uniform.
//!
//! naga's own `FunctionInfo` uniformity is no help for local variables (it takes every local
//! as non-uniform, so every `for` loop would be non-uniform); Tint tracks locals flow by flow.
//! The set of uniform locals here is the greatest fixed point of "every store into it is a
//! uniform value in uniform control flow", which Tint's flow-sensitive analysis accepts too.

use super::calls::{Calls, Results};
use naga::{AddressSpace, Binding, BuiltIn, Expression, Function, Handle, LocalVariable, Module};
use std::collections::HashSet;

pub struct Uniformity<'a> {
    module: &'a Module,
    function: &'a Function,
    /// Locals that may hold a non-uniform value.
    pub non_uniform_locals: HashSet<Handle<LocalVariable>>,
    /// Which of a non-entry function's arguments count as uniform (none when walking a
    /// callee for sites; some when summarising what its result depends on).
    pub uniform_arguments: Vec<bool>,
    /// What each call result of the function is the result of.
    calls: Calls,
    /// Functions whose result is uniform when given arguments are.
    results: &'a Results,
}

impl<'a> Uniformity<'a> {
    pub fn new(module: &'a Module, function: &'a Function, results: &'a Results) -> Self {
        Uniformity {
            module,
            function,
            non_uniform_locals: HashSet::new(),
            uniform_arguments: Vec::new(),
            calls: Calls::of(function),
            results,
        }
    }

    /// Whether `expr` has the same value in every invocation of the workgroup.
    pub fn is_uniform(&self, expr: Handle<Expression>) -> bool {
        let all = |handles: &[Handle<Expression>]| handles.iter().all(|h| self.is_uniform(*h));
        let opt = |h: &Option<Handle<Expression>>| h.is_none_or(|h| self.is_uniform(h));
        match &self.function.expressions[expr] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_) => true,
            Expression::Compose { components, .. } => all(components),
            Expression::Access { base, index } => all(&[*base, *index]),
            Expression::AccessIndex { base, .. } => self.is_uniform(*base),
            Expression::Splat { value, .. } => self.is_uniform(*value),
            Expression::Swizzle { vector, .. } => self.is_uniform(*vector),
            Expression::FunctionArgument(index) => self.uniform_argument(*index),
            // As pointers: the same variable in every invocation; what a load reads is decided
            // by `Load`.
            Expression::GlobalVariable(_) | Expression::LocalVariable(_) => true,
            Expression::Load { pointer } => {
                self.is_uniform(*pointer) && self.uniform_memory(*pointer)
            }
            Expression::Unary { expr, .. } => self.is_uniform(*expr),
            Expression::Binary { left, right, .. } => all(&[*left, *right]),
            Expression::Select {
                condition,
                accept,
                reject,
            } => all(&[*condition, *accept, *reject]),
            Expression::Relational { argument, .. } => self.is_uniform(*argument),
            Expression::Math {
                arg,
                arg1,
                arg2,
                arg3,
                ..
            } => self.is_uniform(*arg) && opt(arg1) && opt(arg2) && opt(arg3),
            Expression::As { expr, .. } => self.is_uniform(*expr),
            Expression::ArrayLength(array) => self.is_uniform(*array),
            Expression::WorkGroupUniformLoadResult { .. } => true,
            Expression::CallResult(function) => {
                let arguments = self.calls.arguments(expr);
                match (self.results.get(function), arguments) {
                    (Some(depends_on), Some(arguments)) => depends_on
                        .iter()
                        .all(|&i| arguments.get(i).is_some_and(|a| self.is_uniform(*a))),
                    _ => false,
                }
            }
            // Results that differ between invocations, or that this analysis does not follow.
            Expression::ImageSample { .. }
            | Expression::ImageLoad { .. }
            | Expression::ImageQuery { .. }
            | Expression::Derivative { .. }
            | Expression::AtomicResult { .. }
            | Expression::RayQueryVertexPositions { .. }
            | Expression::RayQueryProceedResult
            | Expression::RayQueryGetIntersection { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
            | Expression::CooperativeLoad { .. }
            | Expression::CooperativeMultiplyAdd { .. } => false,
        }
    }

    /// Entry-point arguments: only the per-workgroup builtins are uniform. Other functions'
    /// arguments: as `uniform_arguments` says.
    fn uniform_argument(&self, index: u32) -> bool {
        let argument = &self.function.arguments[index as usize];
        match argument.binding {
            Some(Binding::BuiltIn(BuiltIn::WorkGroupId | BuiltIn::NumWorkGroups)) => true,
            Some(_) => false,
            None => self
                .uniform_arguments
                .get(index as usize)
                .copied()
                .unwrap_or(false),
        }
    }

    /// Whether the memory `pointer` points into holds the same value for every invocation.
    fn uniform_memory(&self, pointer: Handle<Expression>) -> bool {
        match self.root(pointer) {
            Root::Local(local) => !self.non_uniform_locals.contains(&local),
            Root::Global(space) => matches!(space, AddressSpace::Uniform | AddressSpace::Handle),
            Root::Other => false,
        }
    }

    /// The variable a pointer expression points into.
    pub fn root(&self, pointer: Handle<Expression>) -> Root {
        match &self.function.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                self.root(*base)
            }
            Expression::LocalVariable(local) => Root::Local(*local),
            Expression::GlobalVariable(global) => {
                Root::Global(self.module.global_variables[*global].space)
            }
            _ => Root::Other,
        }
    }
}

/// Where a pointer points.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Root {
    Local(Handle<LocalVariable>),
    Global(AddressSpace),
    /// A pointer argument, or anything this analysis does not follow.
    Other,
}
