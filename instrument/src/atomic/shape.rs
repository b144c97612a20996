//! The storage types make-atomic rewrites, and their atomic counterparts.

use naga::{ArraySize, Handle, Module, Scalar, ScalarKind, Type, TypeInner};

/// A rewritable store type: a 32-bit integer, or an array of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Scalar(Scalar),
    Array {
        element: Scalar,
        size: ArraySize,
        stride: u32,
    },
}

impl Shape {
    /// `ty` as a rewritable shape, or why it is not one.
    pub fn of(module: &Module, ty: Handle<Type>) -> Result<Shape, &'static str> {
        match module.types[ty].inner {
            TypeInner::Scalar(scalar) => integer(scalar).map(Shape::Scalar),
            TypeInner::Array { base, size, stride } => match module.types[base].inner {
                TypeInner::Scalar(scalar) => integer(scalar).map(|element| Shape::Array {
                    element,
                    size,
                    stride,
                }),
                TypeInner::Atomic(_) => Err("an array of atomics already"),
                _ => Err("an array whose elements are not u32 or i32"),
            },
            TypeInner::Atomic(_) => Err("atomic already"),
            TypeInner::Struct { .. } => {
                Err("a struct (make-atomic rewrites u32, i32 and arrays of them)")
            }
            _ => Err("neither u32, i32 nor an array of them"),
        }
    }

    /// How many accesses lead from the variable to one integer: 0, or 1 through an array.
    pub fn depth(self) -> u32 {
        match self {
            Shape::Scalar(_) => 0,
            Shape::Array { .. } => 1,
        }
    }

    /// The same shape with `atomic<...>` in place of the integer, added to the module's types.
    pub fn atomic_type(self, module: &mut Module) -> Handle<Type> {
        let (element, wrap) = match self {
            Shape::Scalar(scalar) => (scalar, None),
            Shape::Array {
                element,
                size,
                stride,
            } => (element, Some((size, stride))),
        };
        let atomic = insert(module, TypeInner::Atomic(element));
        match wrap {
            None => atomic,
            // atomic<u32> and atomic<i32> have u32's size and alignment: the stride stays.
            Some((size, stride)) => insert(
                module,
                TypeInner::Array {
                    base: atomic,
                    size,
                    stride,
                },
            ),
        }
    }
}

/// WGSL atomics hold u32 or i32 only.
fn integer(scalar: Scalar) -> Result<Scalar, &'static str> {
    match (scalar.kind, scalar.width) {
        (ScalarKind::Uint | ScalarKind::Sint, 4) => Ok(scalar),
        _ => Err("a scalar other than u32 or i32"),
    }
}

fn insert(module: &mut Module, inner: TypeInner) -> Handle<Type> {
    module
        .types
        .insert(Type { name: None, inner }, naga::Span::UNDEFINED)
}
