//! Rewriting the module-level handles inside naga IR for the importer (import.rs).
//!
//! Every match here names each variant of naga's `Expression`, `TypeInner`, `SampleLevel`
//! and `ImageQuery`, and of the statement view (statement.rs), with no catch-all arm: a naga
//! upgrade that adds a variant fails to compile rather than carrying a handle of the source
//! module over unmapped. Expressions are rebuilt whole here, field by field, so their match
//! is this file's own; statements are renumbered in place and hold only expression handles,
//! blocks and a call's function, which the view reaches.

use crate::ir::import_map::ImportMap;
use crate::ir::statement::StepMut;
use crate::ir::walk;
use naga::{
    Block, Expression, Handle, ImageQuery, SampleLevel, Statement, StructMember, TypeInner,
};
use std::collections::HashMap;

/// How expression handles map: inside a function they stay (its expression arena is copied
/// whole and in order); in the module's global expressions they go through the import map.
#[derive(Clone, Copy)]
pub(crate) enum Exprs<'a> {
    Same,
    Mapped(&'a HashMap<Handle<Expression>, Handle<Expression>>),
}

pub(crate) struct Remap<'a> {
    pub map: &'a ImportMap,
    pub exprs: Exprs<'a>,
}

impl Remap<'_> {
    fn e(&self, handle: Handle<Expression>) -> Handle<Expression> {
        match self.exprs {
            Exprs::Same => handle,
            Exprs::Mapped(map) => map[&handle],
        }
    }

    fn opt(&self, handle: Option<Handle<Expression>>) -> Option<Handle<Expression>> {
        handle.map(|h| self.e(h))
    }

    pub(crate) fn expression(&self, expr: &Expression) -> Expression {
        let map = self.map;
        let e = |h: &Handle<Expression>| self.e(*h);
        match expr {
            Expression::Literal(l) => Expression::Literal(*l),
            Expression::Constant(c) => Expression::Constant(map.constant(*c)),
            Expression::Override(o) => Expression::Override(map.override_(*o)),
            Expression::ZeroValue(ty) => Expression::ZeroValue(map.ty(*ty)),
            Expression::Compose { ty, components } => Expression::Compose {
                ty: map.ty(*ty),
                components: components.iter().map(e).collect(),
            },
            Expression::Access { base, index } => Expression::Access {
                base: e(base),
                index: e(index),
            },
            Expression::AccessIndex { base, index } => Expression::AccessIndex {
                base: e(base),
                index: *index,
            },
            Expression::Splat { size, value } => Expression::Splat {
                size: *size,
                value: e(value),
            },
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => Expression::Swizzle {
                size: *size,
                vector: e(vector),
                pattern: *pattern,
            },
            Expression::FunctionArgument(i) => Expression::FunctionArgument(*i),
            Expression::GlobalVariable(g) => Expression::GlobalVariable(map.global_handle(*g)),
            // Local variables belong to the function, whose arena is copied in order.
            Expression::LocalVariable(l) => Expression::LocalVariable(*l),
            Expression::Load { pointer } => Expression::Load {
                pointer: e(pointer),
            },
            Expression::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            } => Expression::ImageSample {
                image: e(image),
                sampler: e(sampler),
                gather: *gather,
                coordinate: e(coordinate),
                array_index: self.opt(*array_index),
                offset: self.opt(*offset),
                level: self.sample_level(level),
                depth_ref: self.opt(*depth_ref),
                clamp_to_edge: *clamp_to_edge,
            },
            Expression::ImageLoad {
                image,
                coordinate,
                array_index,
                sample,
                level,
            } => Expression::ImageLoad {
                image: e(image),
                coordinate: e(coordinate),
                array_index: self.opt(*array_index),
                sample: self.opt(*sample),
                level: self.opt(*level),
            },
            Expression::ImageQuery { image, query } => Expression::ImageQuery {
                image: e(image),
                query: self.image_query(query),
            },
            Expression::Unary { op, expr } => Expression::Unary {
                op: *op,
                expr: e(expr),
            },
            Expression::Binary { op, left, right } => Expression::Binary {
                op: *op,
                left: e(left),
                right: e(right),
            },
            Expression::Select {
                condition,
                accept,
                reject,
            } => Expression::Select {
                condition: e(condition),
                accept: e(accept),
                reject: e(reject),
            },
            Expression::Derivative { axis, ctrl, expr } => Expression::Derivative {
                axis: *axis,
                ctrl: *ctrl,
                expr: e(expr),
            },
            Expression::Relational { fun, argument } => Expression::Relational {
                fun: *fun,
                argument: e(argument),
            },
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => Expression::Math {
                fun: *fun,
                arg: e(arg),
                arg1: self.opt(*arg1),
                arg2: self.opt(*arg2),
                arg3: self.opt(*arg3),
            },
            Expression::As {
                expr,
                kind,
                convert,
            } => Expression::As {
                expr: e(expr),
                kind: *kind,
                convert: *convert,
            },
            Expression::CallResult(f) => Expression::CallResult(map.function_handle(*f)),
            Expression::AtomicResult { ty, comparison } => Expression::AtomicResult {
                ty: map.ty(*ty),
                comparison: *comparison,
            },
            Expression::WorkGroupUniformLoadResult { ty } => {
                Expression::WorkGroupUniformLoadResult { ty: map.ty(*ty) }
            }
            Expression::ArrayLength(array) => Expression::ArrayLength(e(array)),
            Expression::RayQueryVertexPositions { query, committed } => {
                Expression::RayQueryVertexPositions {
                    query: e(query),
                    committed: *committed,
                }
            }
            Expression::RayQueryProceedResult => Expression::RayQueryProceedResult,
            Expression::RayQueryGetIntersection { query, committed } => {
                Expression::RayQueryGetIntersection {
                    query: e(query),
                    committed: *committed,
                }
            }
            Expression::SubgroupBallotResult => Expression::SubgroupBallotResult,
            Expression::SubgroupOperationResult { ty } => {
                Expression::SubgroupOperationResult { ty: map.ty(*ty) }
            }
            Expression::CooperativeLoad {
                columns,
                rows,
                role,
                data,
            } => Expression::CooperativeLoad {
                columns: *columns,
                rows: *rows,
                role: *role,
                data: naga::CooperativeData {
                    pointer: e(&data.pointer),
                    stride: e(&data.stride),
                    row_major: data.row_major,
                },
            },
            Expression::CooperativeMultiplyAdd { a, b, c } => Expression::CooperativeMultiplyAdd {
                a: e(a),
                b: e(b),
                c: e(c),
            },
        }
    }

    fn sample_level(&self, level: &SampleLevel) -> SampleLevel {
        match level {
            SampleLevel::Auto => SampleLevel::Auto,
            SampleLevel::Zero => SampleLevel::Zero,
            SampleLevel::Exact(h) => SampleLevel::Exact(self.e(*h)),
            SampleLevel::Bias(h) => SampleLevel::Bias(self.e(*h)),
            SampleLevel::Gradient { x, y } => SampleLevel::Gradient {
                x: self.e(*x),
                y: self.e(*y),
            },
        }
    }

    fn image_query(&self, query: &ImageQuery) -> ImageQuery {
        match query {
            ImageQuery::Size { level } => ImageQuery::Size {
                level: self.opt(*level),
            },
            ImageQuery::NumLevels => ImageQuery::NumLevels,
            ImageQuery::NumLayers => ImageQuery::NumLayers,
            ImageQuery::NumSamples => ImageQuery::NumSamples,
        }
    }
}

pub(crate) fn type_inner(inner: &TypeInner, map: &ImportMap) -> TypeInner {
    match inner {
        TypeInner::Pointer { base, space } => TypeInner::Pointer {
            base: map.ty(*base),
            space: *space,
        },
        TypeInner::Array { base, size, stride } => TypeInner::Array {
            base: map.ty(*base),
            size: *size,
            stride: *stride,
        },
        TypeInner::BindingArray { base, size } => TypeInner::BindingArray {
            base: map.ty(*base),
            size: *size,
        },
        TypeInner::Struct { members, span } => TypeInner::Struct {
            members: members
                .iter()
                .map(|m| StructMember {
                    name: m.name.clone(),
                    ty: map.ty(m.ty),
                    binding: m.binding.clone(),
                    offset: m.offset,
                })
                .collect(),
            span: *span,
        },
        // No handles inside.
        TypeInner::Scalar(_)
        | TypeInner::Vector { .. }
        | TypeInner::Matrix { .. }
        | TypeInner::CooperativeMatrix { .. }
        | TypeInner::Atomic(_)
        | TypeInner::ValuePointer { .. }
        | TypeInner::Image { .. }
        | TypeInner::Sampler { .. }
        | TypeInner::AccelerationStructure { .. }
        | TypeInner::RayQuery { .. } => inner.clone(),
    }
}

/// Rewrites the module-level handles in a function body, at any depth.
pub(crate) fn block(block: &mut Block, map: &ImportMap) {
    for statement in block.iter_mut() {
        statement_handles(statement, map);
        walk::nested_blocks(statement, |inner| self::block(inner, map));
    }
}

/// Rewrites the module-level handles `statement` itself holds. Statements hold expression
/// handles (which stay, see `Exprs::Same`) and nested blocks; only a call names a
/// module-level item (statement.rs sorts every statement into a kind of its view).
fn statement_handles(statement: &mut Statement, map: &ImportMap) {
    match StepMut::of(statement) {
        StepMut::Call { function, .. } => *function = map.function_handle(*function),
        StepMut::Emit(_)
        | StepMut::Nested(_)
        | StepMut::Jump(_)
        | StepMut::Barrier { .. }
        | StepMut::Memory(_)
        | StepMut::Subgroup { .. }
        | StepMut::Other { .. } => {}
    }
}
