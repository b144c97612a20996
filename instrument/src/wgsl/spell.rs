//! Types WGSL cannot spell. `atomicCompareExchangeWeak`, `modf` and `frexp` return values
//! of predeclared structs (`__atomic_compare_exchange_result<i32>`, ...) that no WGSL source
//! may name; naga's writer names them anyway wherever a type must be written (`var r:
//! _atomic_compare_exchange_result_Sint_4_;`), which neither naga nor Tint then reads.
//!
//! Before rendering, each such type that a declaration mentions becomes a module struct of
//! the same members: the predeclared type's slot in the arena takes the struct (so variables,
//! arguments, results, and arrays and structs holding it, name the struct, with no type
//! reordered), the predeclared type moves to the end for the calls that produce it, and each
//! produced value that goes anywhere but a member access is converted, member by member
//! (`S(r.old_value, r.exchanged)`).

use crate::ir::operands;
use crate::ir::reorder::{self, Move};
use naga::common::wgsl::TryToWgsl;
use naga::proc::TypeResolution;
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{
    Block, Expression, Function, Handle, MathFunction, Module, PredeclaredType, Range, Scalar,
    Statement, Type, TypeInner, VectorSize,
};
use std::collections::HashMap;

/// `module` (validated as `info`) rewritten so that naga's writer names no predeclared type
/// in a declaration; `None` when it names none already.
pub(crate) fn respelled(module: &Module, info: &ModuleInfo) -> Option<Module> {
    let named: Vec<(PredeclaredType, Handle<Type>)> = module
        .special_types
        .predeclared_types
        .iter()
        .map(|(kind, ty)| (kind.clone(), *ty))
        .filter(|(_, ty)| mentioned(module, *ty))
        .collect();
    if named.is_empty() {
        return None;
    }
    let mut module = module.clone();
    let spelled: Vec<Handle<Type>> = named.iter().map(|(_, ty)| *ty).collect();
    let mut produced: Vec<HashMap<Handle<Expression>, Handle<Type>>> = module
        .functions
        .iter()
        .map(|(handle, f)| producers(f, &info[handle], &spelled))
        .collect();
    let entry_produced: Vec<_> = module
        .entry_points
        .iter()
        .enumerate()
        .map(|(i, e)| producers(&e.function, info.get_entry_point(i), &spelled))
        .collect();
    let mut moved_to = HashMap::new();
    for (kind, ty) in named {
        let original = module.types[ty].clone();
        let span = module.types.get_span(ty);
        let name = unique_name(&module, &struct_name(&kind), &original.inner);
        module.types.replace(
            ty,
            Type {
                name: Some(name),
                inner: original.inner.clone(),
            },
        );
        let predeclared = module.types.insert(original, span);
        module
            .special_types
            .predeclared_types
            .insert(kind, predeclared);
        moved_to.insert(ty, predeclared);
    }
    let types = &module.types;
    for ((_, function), produced) in module.functions.iter_mut().zip(&mut produced) {
        convert(function, produced, &moved_to, types);
    }
    for (entry, produced) in module.entry_points.iter_mut().zip(&entry_produced) {
        convert(&mut entry.function, produced, &moved_to, types);
    }
    Some(module)
}

/// The expressions of `function` that produce a value of one of `spelled` (calls of
/// `atomicCompareExchangeWeak`, `modf`, `frexp`), with its type.
fn producers(
    function: &Function,
    info: &FunctionInfo,
    spelled: &[Handle<Type>],
) -> HashMap<Handle<Expression>, Handle<Type>> {
    function
        .expressions
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                Expression::AtomicResult {
                    comparison: true,
                    ..
                } | Expression::Math {
                    fun: MathFunction::Modf | MathFunction::Frexp,
                    ..
                }
            )
        })
        .filter_map(|(h, _)| match info[h].ty {
            TypeResolution::Handle(ty) if spelled.contains(&ty) => Some((h, ty)),
            _ => None,
        })
        .collect()
}

/// Points the produced values at the predeclared types' new handles, and converts each use
/// of one that is not a member access into the struct.
fn convert(
    function: &mut Function,
    produced: &HashMap<Handle<Expression>, Handle<Type>>,
    moved_to: &HashMap<Handle<Type>, Handle<Type>>,
    types: &naga::UniqueArena<Type>,
) {
    if produced.is_empty() {
        return;
    }
    for (_, expr) in function.expressions.iter_mut() {
        if let Expression::AtomicResult { ty, .. } = expr {
            if let Some(moved) = moved_to.get(ty) {
                *ty = *moved;
            }
        }
    }
    // Uses inside expressions (an array of results): the conversion goes before the user.
    let mut moves = Vec::new();
    let users: Vec<Handle<Expression>> = function.expressions.iter().map(|(h, _)| h).collect();
    for user in users {
        if matches!(function.expressions[user], Expression::AccessIndex { .. }) {
            continue;
        }
        let mut expr = function.expressions[user].clone();
        let mut groups = Vec::new();
        operands::of_expression(&mut expr, &mut |operand| {
            if let Some(&ty) = produced.get(operand) {
                let (group, converted) = conversion(function, *operand, ty, types);
                groups.push(group);
                *operand = converted;
            }
        });
        if !groups.is_empty() {
            function.expressions[user] = expr;
            moves.extend(groups.into_iter().map(|group| Move {
                group,
                before: user,
            }));
        }
    }
    let mut produced = produced.clone();
    if !moves.is_empty() {
        let new_of = reorder::place_before(function, &moves);
        produced = produced
            .into_iter()
            .map(|(h, ty)| (new_of[h.index()], ty))
            .collect();
    }
    // Uses by statements (a store, a call's argument, a return): converted just before.
    let mut body = std::mem::take(&mut function.body);
    convert_block(&mut body, function, &produced, types);
    function.body = body;
}

fn convert_block(
    block: &mut Block,
    function: &mut Function,
    produced: &HashMap<Handle<Expression>, Handle<Type>>,
    types: &naga::UniqueArena<Type>,
) {
    let old = std::mem::take(block);
    for (mut statement, span) in old.span_into_iter() {
        let mut emits = Vec::new();
        if !matches!(statement, Statement::Emit(_)) {
            operands::of_statement(&mut statement, &mut |operand| {
                if let Some(&ty) = produced.get(operand) {
                    let (group, converted) = conversion(function, *operand, ty, types);
                    emits.push(group);
                    *operand = converted;
                }
            });
        }
        crate::ir::walk::nested_blocks(&mut statement, |inner| {
            convert_block(inner, function, produced, types)
        });
        for group in emits {
            let handles: Vec<Handle<Expression>> = function
                .expressions
                .iter()
                .skip(group.start)
                .take(group.len())
                .map(|(h, _)| h)
                .collect();
            let range = Range::new_from_bounds(handles[0], handles[handles.len() - 1]);
            block.push(Statement::Emit(range), span);
        }
        block.push(statement, span);
    }
}

/// Appends `ty { value.0, value.1, ... }` for `value`, a produced value whose type `ty` now
/// holds the struct: the indices of the appended expressions, and the struct's.
fn conversion(
    function: &mut Function,
    value: Handle<Expression>,
    ty: Handle<Type>,
    types: &naga::UniqueArena<Type>,
) -> (std::ops::Range<usize>, Handle<Expression>) {
    let TypeInner::Struct { members, .. } = &types[ty].inner else {
        unreachable!("predeclared result types are structs")
    };
    let span = function.expressions.get_span(value);
    let start = function.expressions.len();
    let components = (0..members.len() as u32)
        .map(|index| {
            function
                .expressions
                .append(Expression::AccessIndex { base: value, index }, span)
        })
        .collect();
    let converted = function
        .expressions
        .append(Expression::Compose { ty, components }, span);
    (start..function.expressions.len(), converted)
}

/// Whether any declaration, type, constant or constructor of `module` names `ty`.
fn mentioned(module: &Module, ty: Handle<Type>) -> bool {
    let in_types = module.types.iter().any(|(_, t)| match &t.inner {
        TypeInner::Pointer { base, .. }
        | TypeInner::Array { base, .. }
        | TypeInner::BindingArray { base, .. } => *base == ty,
        TypeInner::Struct { members, .. } => members.iter().any(|m| m.ty == ty),
        _ => false,
    });
    let in_globals = module.global_variables.iter().any(|(_, g)| g.ty == ty)
        || module.constants.iter().any(|(_, c)| c.ty == ty)
        || module.overrides.iter().any(|(_, o)| o.ty == ty)
        || names_in(&module.global_expressions, ty);
    let in_function = |f: &Function| {
        f.arguments.iter().any(|a| a.ty == ty)
            || f.result.as_ref().is_some_and(|r| r.ty == ty)
            || f.local_variables.iter().any(|(_, l)| l.ty == ty)
            || names_in(&f.expressions, ty)
    };
    in_types
        || in_globals
        || module.functions.iter().any(|(_, f)| in_function(f))
        || module.entry_points.iter().any(|e| in_function(&e.function))
}

/// Whether a constructor or zero value in `expressions` is of type `ty`.
fn names_in(expressions: &naga::Arena<Expression>, ty: Handle<Type>) -> bool {
    expressions.iter().any(|(_, e)| match e {
        Expression::ZeroValue(t) | Expression::Compose { ty: t, .. } => *t == ty,
        _ => false,
    })
}

/// `AtomicCompareExchangeResult_i32`, `ModfResult_vec2_f32`, `FrexpResult_f32`.
fn struct_name(kind: &PredeclaredType) -> String {
    let scalar = |s: Scalar| {
        s.try_to_wgsl()
            .map_or_else(|| format!("{:?}{}", s.kind, s.width * 8), str::to_string)
    };
    let shape = |size: Option<VectorSize>, s: Scalar| match size {
        Some(size) => format!("vec{}_{}", size as u8, scalar(s)),
        None => scalar(s),
    };
    match kind {
        PredeclaredType::AtomicCompareExchangeWeakResult(s) => {
            format!("AtomicCompareExchangeResult_{}", scalar(*s))
        }
        PredeclaredType::ModfResult { size, scalar: s } => {
            format!("ModfResult_{}", shape(*size, *s))
        }
        PredeclaredType::FrexpResult { size, scalar: s } => {
            format!("FrexpResult_{}", shape(*size, *s))
        }
    }
}

/// `base`, or `base_N`, whichever names no identical type yet (the arena holds each type once).
fn unique_name(module: &Module, base: &str, inner: &TypeInner) -> String {
    let taken = |name: &str| {
        module
            .types
            .get(&Type {
                name: Some(name.to_string()),
                inner: inner.clone(),
            })
            .is_some()
    };
    (0..)
        .map(|n| match n {
            0 => base.to_string(),
            n => format!("{base}_{n}"),
        })
        .find(|name| !taken(name))
        .expect("some name is free")
}
