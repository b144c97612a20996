//! The storage types make-atomic rewrites, and their atomic counterparts: `u32` and `i32`,
//! and arrays (fixed or runtime-sized) and structs built of them, to any depth.

use naga::{Handle, Module, Scalar, ScalarKind, StructMember, Type, TypeInner, UniqueArena};

/// Why `ty` cannot be made atomic, if it cannot.
pub(crate) fn check(types: &UniqueArena<Type>, ty: Handle<Type>) -> Result<(), &'static str> {
    match types[ty].inner {
        TypeInner::Scalar(scalar) if is_atomic_scalar(scalar) => Ok(()),
        TypeInner::Scalar(_) => Err("of a scalar type other than u32 or i32"),
        TypeInner::Array { base, .. } => check(types, base),
        TypeInner::Struct { ref members, .. } => {
            members.iter().try_for_each(|m| check(types, m.ty))
        }
        TypeInner::Atomic(_) => Err("atomic already, in whole or in part"),
        _ => Err("of a type that is not u32, i32, or an array or struct of them"),
    }
}

/// Whether a pointer to `ty` points at one integer: what a load or store may reach.
pub(crate) fn is_integer(types: &UniqueArena<Type>, ty: Handle<Type>) -> bool {
    matches!(types[ty].inner, TypeInner::Scalar(scalar) if is_atomic_scalar(scalar))
}

/// The type a pointer to `ty` reaches through one access (`index` for a struct member).
pub(crate) fn element(
    types: &UniqueArena<Type>,
    ty: Handle<Type>,
    index: Option<u32>,
) -> Handle<Type> {
    match (&types[ty].inner, index) {
        (&TypeInner::Array { base, .. }, _) => base,
        (TypeInner::Struct { members, .. }, Some(i)) => members[i as usize].ty,
        // A valid module accesses only arrays and struct members of the types `check` passes.
        _ => ty,
    }
}

/// `ty` (which `check` passed) with `atomic<...>` in place of every integer, added to the
/// module's types. atomic<u32> and atomic<i32> have u32's size and alignment, so strides and
/// member offsets stay.
pub(crate) fn atomic_type(module: &mut Module, ty: Handle<Type>) -> Handle<Type> {
    let Type { name, inner } = module.types[ty].clone();
    let inner = match inner {
        TypeInner::Scalar(scalar) => TypeInner::Atomic(scalar),
        TypeInner::Array { base, size, stride } => TypeInner::Array {
            base: atomic_type(module, base),
            size,
            stride,
        },
        // Keeps the struct's name: naga's WGSL writer renames the second of two structs so
        // named, and the original may still type other variables.
        TypeInner::Struct { members, span } => TypeInner::Struct {
            members: members
                .into_iter()
                .map(|m| StructMember {
                    ty: atomic_type(module, m.ty),
                    ..m
                })
                .collect(),
            span,
        },
        other => other,
    };
    module
        .types
        .insert(Type { name, inner }, naga::Span::UNDEFINED)
}

/// WGSL atomics hold u32 or i32 only.
fn is_atomic_scalar(scalar: Scalar) -> bool {
    matches!(scalar.kind, ScalarKind::Uint | ScalarKind::Sint) && scalar.width == 4
}
