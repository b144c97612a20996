//! Importing one naga module into another.
//!
//! The runtime library (library.wgsl) is parsed on its own and its types, constants, globals
//! and functions are appended to the user's module, every handle remapped. Expression handles
//! inside a function stay valid as they are, because each function's expression arena is copied
//! whole and in order; only handles into module-level arenas need remapping.

use naga::{
    ArraySize, Block, Constant, Expression, Function, GlobalVariable, Handle, Module, Statement,
    StructMember, Type, TypeInner,
};
use std::collections::HashMap;

/// Where the imported items landed in the target module.
#[derive(Default)]
pub struct ImportMap {
    types: HashMap<Handle<Type>, Handle<Type>>,
    constants: HashMap<Handle<Constant>, Handle<Constant>>,
    global_expressions: HashMap<Handle<Expression>, Handle<Expression>>,
    globals: HashMap<Handle<GlobalVariable>, Handle<GlobalVariable>>,
    functions: HashMap<Handle<Function>, Handle<Function>>,
    global_names: HashMap<String, Handle<GlobalVariable>>,
    function_names: HashMap<String, Handle<Function>>,
}

impl ImportMap {
    /// The imported global named `name`. The library is ours, so a missing name is a bug.
    pub fn global(&self, name: &str) -> Handle<GlobalVariable> {
        *self
            .global_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no global {name}"))
    }

    /// The imported function named `name`.
    pub fn function(&self, name: &str) -> Handle<Function> {
        *self
            .function_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no function {name}"))
    }
}

/// Appends everything `source` defines to `target`. Entry points are not imported.
pub fn import_module(target: &mut Module, source: &Module) -> ImportMap {
    let mut map = ImportMap::default();
    for (handle, ty) in source.types.iter() {
        let inner = remap_type(&ty.inner, &map.types);
        let span = source.types.get_span(handle);
        let new = target.types.insert(
            Type {
                name: ty.name.clone(),
                inner,
            },
            span,
        );
        map.types.insert(handle, new);
    }
    // A constant's init comes before it in the global expressions, and expressions that name
    // the constant come after, so constants are imported the first time an expression names one.
    for (handle, expr) in source.global_expressions.iter() {
        if let Expression::Constant(c) = expr {
            import_constant(*c, source, target, &mut map);
        }
        let new_expr = remap_handles(expr, &map, &map.global_expressions);
        let span = source.global_expressions.get_span(handle);
        let new = target.global_expressions.append(new_expr, span);
        map.global_expressions.insert(handle, new);
    }
    for (handle, _) in source.constants.iter() {
        import_constant(handle, source, target, &mut map);
    }
    for (handle, var) in source.global_variables.iter() {
        let new = target.global_variables.append(
            GlobalVariable {
                name: var.name.clone(),
                space: var.space,
                binding: var.binding,
                ty: map.types[&var.ty],
                init: var.init.map(|e| map.global_expressions[&e]),
                memory_decorations: var.memory_decorations,
            },
            source.global_variables.get_span(handle),
        );
        map.globals.insert(handle, new);
        if let Some(name) = &var.name {
            map.global_names.insert(name.clone(), new);
        }
    }
    for (handle, function) in source.functions.iter() {
        let new_function = remap_function(function, &map);
        let new = target
            .functions
            .append(new_function, source.functions.get_span(handle));
        map.functions.insert(handle, new);
        if let Some(name) = &function.name {
            map.function_names.insert(name.clone(), new);
        }
    }
    map
}

fn remap_type(inner: &TypeInner, types: &HashMap<Handle<Type>, Handle<Type>>) -> TypeInner {
    match inner {
        TypeInner::Pointer { base, space } => TypeInner::Pointer {
            base: types[base],
            space: *space,
        },
        TypeInner::Array { base, size, stride } => {
            assert!(
                !matches!(size, ArraySize::Pending(_)),
                "library arrays are not override-sized"
            );
            TypeInner::Array {
                base: types[base],
                size: *size,
                stride: *stride,
            }
        }
        TypeInner::BindingArray { base, size } => TypeInner::BindingArray {
            base: types[base],
            size: *size,
        },
        TypeInner::Struct { members, span } => TypeInner::Struct {
            members: members
                .iter()
                .map(|m| StructMember {
                    name: m.name.clone(),
                    ty: types[&m.ty],
                    binding: m.binding.clone(),
                    offset: m.offset,
                })
                .collect(),
            span: *span,
        },
        other => other.clone(),
    }
}

fn import_constant(
    handle: Handle<Constant>,
    source: &Module,
    target: &mut Module,
    map: &mut ImportMap,
) {
    if map.constants.contains_key(&handle) {
        return;
    }
    let constant = &source.constants[handle];
    let new = target.constants.append(
        Constant {
            name: constant.name.clone(),
            ty: map.types[&constant.ty],
            init: map.global_expressions[&constant.init],
        },
        source.constants.get_span(handle),
    );
    map.constants.insert(handle, new);
}

/// Rewrites the module-level handles inside `expr`; `exprs` maps expression handles (identity
/// inside a function, the global-expression map for constant expressions).
fn remap_handles(
    expr: &Expression,
    map: &ImportMap,
    exprs: &HashMap<Handle<Expression>, Handle<Expression>>,
) -> Expression {
    let e = |h: &Handle<Expression>| *exprs.get(h).unwrap_or(h);
    match expr {
        Expression::Constant(c) => Expression::Constant(map.constants[c]),
        Expression::ZeroValue(ty) => Expression::ZeroValue(map.types[ty]),
        Expression::Compose { ty, components } => Expression::Compose {
            ty: map.types[ty],
            components: components.iter().map(e).collect(),
        },
        Expression::Splat { size, value } => Expression::Splat {
            size: *size,
            value: e(value),
        },
        Expression::GlobalVariable(g) => Expression::GlobalVariable(map.globals[g]),
        Expression::CallResult(f) => Expression::CallResult(map.functions[f]),
        Expression::AtomicResult { ty, comparison } => Expression::AtomicResult {
            ty: map.types[ty],
            comparison: *comparison,
        },
        Expression::WorkGroupUniformLoadResult { ty } => {
            Expression::WorkGroupUniformLoadResult { ty: map.types[ty] }
        }
        Expression::SubgroupOperationResult { ty } => {
            Expression::SubgroupOperationResult { ty: map.types[ty] }
        }
        Expression::Override(_) => panic!("the wgstress library declares no overrides"),
        other => other.clone(),
    }
}

fn remap_function(function: &Function, map: &ImportMap) -> Function {
    let identity = HashMap::new();
    let mut expressions = naga::Arena::new();
    for (handle, expr) in function.expressions.iter() {
        expressions.append(
            remap_handles(expr, map, &identity),
            function.expressions.get_span(handle),
        );
    }
    let mut local_variables = naga::Arena::new();
    for (handle, local) in function.local_variables.iter() {
        let mut local = local.clone();
        local.ty = map.types[&local.ty];
        local_variables.append(local, function.local_variables.get_span(handle));
    }
    let mut body = function.body.clone();
    remap_calls(&mut body, map);
    Function {
        name: function.name.clone(),
        arguments: function
            .arguments
            .iter()
            .map(|a| naga::FunctionArgument {
                name: a.name.clone(),
                ty: map.types[&a.ty],
                binding: a.binding.clone(),
            })
            .collect(),
        result: function.result.as_ref().map(|r| naga::FunctionResult {
            ty: map.types[&r.ty],
            binding: r.binding.clone(),
        }),
        local_variables,
        expressions,
        named_expressions: function.named_expressions.clone(),
        body,
        diagnostic_filter_leaf: None,
    }
}

fn remap_calls(block: &mut Block, map: &ImportMap) {
    for statement in block.iter_mut() {
        match statement {
            Statement::Call { function, .. } => *function = map.functions[function],
            Statement::Block(inner) => remap_calls(inner, map),
            Statement::If { accept, reject, .. } => {
                remap_calls(accept, map);
                remap_calls(reject, map);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    remap_calls(&mut case.body, map);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                remap_calls(body, map);
                remap_calls(continuing, map);
            }
            _ => {}
        }
    }
}
