//! What each value of a function depends on (uniformity/function.rs has the rules): an
//! expression is judged when its statement evaluates it, from its operands, the memory it
//! loads and the locals as they are at that point.

use super::dep::Dep;
use crate::ir::memory::{argument_space, root, Root};
use naga::{AddressSpace, Binding, BuiltIn, Expression, Function, Handle, Module, TypeInner};

/// What each local holds, by its handle's index, then what each `ptr<function, T>` parameter
/// points to, after the locals (the function may store through it; a load reads it).
pub(crate) type Locals = Vec<Dep>;

/// The locals as the function starts: its variables with their (constant) initial values,
/// its pointer parameters' pointees as the call passes them.
pub(crate) fn initial(function: &Function) -> Locals {
    let locals = (0..function.local_variables.len()).map(|_| Dep::uniform());
    let pointees = (0..function.arguments.len() as u32).map(Dep::contents);
    locals.chain(pointees).collect()
}

/// Where the memory `root` names is followed in `Locals`: a local, or what a
/// `ptr<function, T>` parameter points to.
pub(crate) fn slot(module: &Module, function: &Function, root: Root) -> Option<usize> {
    match root {
        Root::Local(local) => Some(local.index()),
        Root::Argument(index) => (argument_space(module, function, index)
            == Some(AddressSpace::Function))
        .then(|| function.local_variables.len() + index as usize),
        Root::Global(_) | Root::Other => None,
    }
}

pub(crate) struct Values<'a> {
    module: &'a Module,
    function: &'a Function,
    /// The function is an entry point: its arguments are builtins.
    entry: bool,
    /// What each expression evaluated so far depends on.
    known: Vec<Option<Dep>>,
}

impl<'a> Values<'a> {
    pub(crate) fn new(module: &'a Module, function: &'a Function, entry: bool) -> Self {
        Values {
            module,
            function,
            entry,
            known: vec![None; function.expressions.len()],
        }
    }

    /// Records what `expr` depends on, as its statement evaluates it.
    pub(crate) fn set(&mut self, expr: Handle<Expression>, dep: Dep) {
        self.known[expr.index()] = Some(dep);
    }

    /// What an expression already evaluated depends on; one never evaluated (naga leaves
    /// constants and the like out of `Emit`s) is judged by what it is built of.
    pub(crate) fn get(&self, expr: Handle<Expression>) -> Dep {
        match &self.known[expr.index()] {
            Some(value) => value.clone(),
            None => self.of_operands(expr, None),
        }
    }

    /// What `expr` depends on, evaluated now with `locals`, apart from the flow.
    pub(crate) fn evaluate(&self, expr: Handle<Expression>, locals: &Locals) -> Dep {
        self.of_operands(expr, Some(locals))
    }

    fn of_operands(&self, expr: Handle<Expression>, locals: Option<&Locals>) -> Dep {
        let all = |handles: &[Handle<Expression>]| {
            handles
                .iter()
                .fold(Dep::uniform(), |d, h| d.join(&self.get(*h)))
        };
        let opt = |h: &Option<Handle<Expression>>| h.map_or(Dep::uniform(), |h| self.get(h));
        match &self.function.expressions[expr] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
            // As pointers: the same variable in every invocation.
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_) => Dep::uniform(),
            Expression::Compose { components, .. } => all(components),
            Expression::Access { base, index } => all(&[*base, *index]),
            Expression::AccessIndex { base, .. }
            | Expression::Splat { value: base, .. }
            | Expression::Swizzle { vector: base, .. }
            | Expression::Unary { expr: base, .. }
            | Expression::Relational { argument: base, .. }
            | Expression::As { expr: base, .. }
            | Expression::ArrayLength(base) => self.get(*base),
            Expression::Binary { left, right, .. } => all(&[*left, *right]),
            Expression::Select {
                condition,
                accept,
                reject,
            } => all(&[*condition, *accept, *reject]),
            Expression::Math {
                arg,
                arg1,
                arg2,
                arg3,
                ..
            } => self
                .get(*arg)
                .join(&opt(arg1))
                .join(&opt(arg2))
                .join(&opt(arg3)),
            Expression::FunctionArgument(index) => self.argument(*index),
            Expression::Load { pointer } => match locals {
                Some(locals) => self.load(*pointer, locals),
                None => Dep::NonUniform,
            },
            Expression::ImageQuery { image, query } => {
                let level = match query {
                    naga::ImageQuery::Size { level } => opt(level),
                    _ => Dep::uniform(),
                };
                self.get(*image).join(&level)
            }
            // Defined by the statements that produce them; unreached ones count as
            // non-uniform.
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
            | Expression::RayQueryProceedResult
            // Results that differ between invocations, or that this analysis does not follow.
            | Expression::ImageSample { .. }
            | Expression::ImageLoad { .. }
            | Expression::Derivative { .. }
            | Expression::RayQueryVertexPositions { .. }
            | Expression::RayQueryGetIntersection { .. }
            | Expression::CooperativeLoad { .. }
            | Expression::CooperativeMultiplyAdd { .. } => Dep::NonUniform,
        }
    }

    /// A load through `pointer`: uniform memory (uniform buffers, read-only storage, textures'
    /// handles, a local or a pointee holding a uniform value) read at a uniform place is
    /// uniform.
    fn load(&self, pointer: Handle<Expression>, locals: &Locals) -> Dep {
        let place = self.get(pointer);
        let at = root(self.function, pointer);
        let contents = match (slot(self.module, self.function, at), at) {
            (Some(slot), _) => locals[slot].clone(),
            (None, Root::Global(global)) => {
                if immutable(self.module.global_variables[global].space) {
                    Dep::uniform()
                } else {
                    Dep::NonUniform
                }
            }
            // Private and workgroup memory is written by any invocation.
            (None, Root::Argument(index)) => {
                match argument_space(self.module, self.function, index) {
                    Some(space) if immutable(space) => Dep::uniform(),
                    _ => Dep::NonUniform,
                }
            }
            (None, Root::Local(_) | Root::Other) => Dep::NonUniform,
        };
        place.join(&contents)
    }

    /// Entry-point arguments: the per-workgroup builtins are uniform (a struct of builtins
    /// when all of its members are). Other functions' arguments: as the call passes them.
    fn argument(&self, index: u32) -> Dep {
        if !self.entry {
            return Dep::parameter(index);
        }
        let argument = &self.function.arguments[index as usize];
        let uniform = match &argument.binding {
            Some(binding) => uniform_builtin(binding),
            None => match &self.module.types[argument.ty].inner {
                TypeInner::Struct { members, .. } => members
                    .iter()
                    .all(|m| m.binding.as_ref().is_some_and(uniform_builtin)),
                _ => false,
            },
        };
        if uniform {
            Dep::uniform()
        } else {
            Dep::NonUniform
        }
    }
}

/// Memory every invocation reads alike and nothing writes during the dispatch.
fn immutable(space: AddressSpace) -> bool {
    match space {
        AddressSpace::Uniform | AddressSpace::Handle | AddressSpace::Immediate => true,
        AddressSpace::Storage { access } => !access.contains(naga::StorageAccess::STORE),
        AddressSpace::Function
        | AddressSpace::Private
        | AddressSpace::WorkGroup
        | AddressSpace::TaskPayload
        | AddressSpace::RayPayload
        | AddressSpace::IncomingRayPayload => false,
    }
}

/// `workgroup_id`, `num_workgroups` and, in compute shaders, `subgroup_size`.
fn uniform_builtin(binding: &Binding) -> bool {
    matches!(
        binding,
        Binding::BuiltIn(BuiltIn::WorkGroupId | BuiltIn::NumWorkGroups | BuiltIn::SubgroupSize)
    )
}
