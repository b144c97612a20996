//! Where a pointer points, and which memory the fence site analysis orders and the hold
//! points follow: storage that the dispatch can write. A `var<storage, read>` buffer is
//! read-only for the whole dispatch (WebGPU refuses a writable binding of the same memory
//! beside it), so no barrier can change what its loads see; its loads are no accesses to
//! order (and are uniform values, placement/uniformity/function.rs).

use crate::ir::statement::Memory;
use naga::{AddressSpace, Expression, Function, GlobalVariable, Handle, LocalVariable, Module};

/// The variable a pointer expression points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    Local(Handle<LocalVariable>),
    Global(Handle<GlobalVariable>),
    /// A pointer parameter of the function.
    Argument(u32),
    /// Anything the analysis does not follow.
    Other,
}

/// The variable `pointer` points into, through any chain of indexing.
pub(crate) fn root(function: &Function, pointer: Handle<Expression>) -> Root {
    match function.expressions[pointer] {
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
            root(function, base)
        }
        Expression::LocalVariable(local) => Root::Local(local),
        Expression::GlobalVariable(global) => Root::Global(global),
        Expression::FunctionArgument(index) => Root::Argument(index),
        _ => Root::Other,
    }
}

/// Whether `space` is storage the dispatch may write.
pub(crate) fn writable_storage(space: AddressSpace) -> bool {
    matches!(space, AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
}

/// Whether `pointer` points into storage the dispatch may write.
pub(crate) fn into_writable_storage(
    module: &Module,
    function: &Function,
    pointer: Handle<Expression>,
) -> bool {
    match root(function, pointer) {
        Root::Global(global) => writable_storage(module.global_variables[global].space),
        Root::Argument(index) => {
            argument_space(module, function, index).is_some_and(writable_storage)
        }
        Root::Local(_) | Root::Other => false,
    }
}

/// Whether `access` stores into, or updates atomically, storage the dispatch may write:
/// through a pointer into it, or a storage texture's texel (storage textures are storage
/// memory too). A `workgroupUniformLoad` loads workgroup memory.
pub(crate) fn writes_storage(module: &Module, function: &Function, access: &Memory) -> bool {
    match access {
        Memory::Store { pointer, .. } | Memory::Atomic { pointer, .. } => {
            into_writable_storage(module, function, **pointer)
        }
        Memory::Texel { .. } => true,
        Memory::UniformLoad { .. } => false,
    }
}

/// The address space argument `index` of `function` points into, if it is a pointer.
pub(crate) fn argument_space(
    module: &Module,
    function: &Function,
    index: u32,
) -> Option<AddressSpace> {
    let argument = function.arguments.get(index as usize)?;
    match module.types[argument.ty].inner {
        naga::TypeInner::Pointer { space, .. } | naga::TypeInner::ValuePointer { space, .. } => {
            Some(space)
        }
        _ => None,
    }
}
