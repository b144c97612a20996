//! WGSL spellings of the types a split declares as variables.

use naga::{ArraySize, Handle, Module, Scalar, ScalarKind, Type, TypeInner, VectorSize};

/// `ty` as WGSL source, if it is a type a function-scope `var` can hold and has a name here.
pub(crate) fn wgsl_type(module: &Module, ty: Handle<Type>) -> Option<String> {
    match (&module.types[ty].name, &module.types[ty].inner) {
        (Some(name), TypeInner::Struct { .. }) => Some(name.clone()),
        (_, inner) => wgsl_inner(module, inner),
    }
}

pub(crate) fn wgsl_inner(module: &Module, inner: &TypeInner) -> Option<String> {
    Some(match *inner {
        TypeInner::Scalar(scalar) => scalar_name(scalar)?.to_string(),
        TypeInner::Vector { size, scalar } => {
            format!("vec{}<{}>", size_number(size), scalar_name(scalar)?)
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => format!(
            "mat{}x{}<{}>",
            size_number(columns),
            size_number(rows),
            scalar_name(scalar)?
        ),
        TypeInner::Array {
            base,
            size: ArraySize::Constant(n),
            ..
        } => format!("array<{}, {n}>", wgsl_type(module, base)?),
        _ => return None,
    })
}

fn scalar_name(scalar: Scalar) -> Option<&'static str> {
    Some(match (scalar.kind, scalar.width) {
        (ScalarKind::Uint, 4) => "u32",
        (ScalarKind::Sint, 4) => "i32",
        (ScalarKind::Float, 4) => "f32",
        (ScalarKind::Float, 2) => "f16",
        (ScalarKind::Bool, _) => "bool",
        _ => return None,
    })
}

fn size_number(size: VectorSize) -> u8 {
    size as u8
}
