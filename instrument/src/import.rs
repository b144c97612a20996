//! Importing one naga module into another.
//!
//! The instrumented module is built fresh: first the runtime library (library.wgsl, parsed on
//! its own), then the user's module, every handle remapped. The order matters: naga's
//! validator wants a function's callees before it in the arena, and user functions will call
//! the library. Expression handles inside a function stay valid as they are, because each
//! function's expression arena is copied whole and in order; only handles into module-level
//! arenas need remapping.

use naga::{
    ArraySize, Block, Constant, EntryPoint, Expression, Function, GlobalVariable, Handle, Module,
    Override, Statement, StructMember, Type, TypeInner,
};
use std::collections::HashMap;

/// Where the imported items landed in the target module.
#[derive(Default)]
pub struct ImportMap {
    types: HashMap<Handle<Type>, Handle<Type>>,
    constants: HashMap<Handle<Constant>, Handle<Constant>>,
    overrides: HashMap<Handle<Override>, Handle<Override>>,
    global_expressions: HashMap<Handle<Expression>, Handle<Expression>>,
    globals: HashMap<Handle<GlobalVariable>, Handle<GlobalVariable>>,
    functions: HashMap<Handle<Function>, Handle<Function>>,
    global_names: HashMap<String, Handle<GlobalVariable>>,
    function_names: HashMap<String, Handle<Function>>,
}

impl ImportMap {
    /// The imported global named `name`. Used for the library, which is ours: a missing
    /// name is a bug.
    pub fn global(&self, name: &str) -> Handle<GlobalVariable> {
        *self
            .global_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no global {name}"))
    }

    /// The imported function named `name` (library functions).
    pub fn function(&self, name: &str) -> Handle<Function> {
        *self
            .function_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no function {name}"))
    }

    /// Where the source module's function `handle` went.
    pub fn function_handle(&self, handle: Handle<Function>) -> Handle<Function> {
        self.functions[&handle]
    }

    /// The imported functions, in their new arena order.
    pub fn imported_functions(&self) -> Vec<Handle<Function>> {
        let mut all: Vec<_> = self.functions.values().copied().collect();
        all.sort_by_key(|h| h.index());
        all
    }
}

/// Whether `module` uses something the importer cannot carry over.
pub fn unsupported(module: &Module) -> Option<&'static str> {
    let pending = module.types.iter().any(|(_, t)| {
        matches!(
            t.inner,
            TypeInner::Array {
                size: ArraySize::Pending(_),
                ..
            } | TypeInner::BindingArray {
                size: ArraySize::Pending(_),
                ..
            }
        )
    });
    if pending {
        return Some("arrays sized by an override");
    }
    let special = &module.special_types;
    let exotic = special.ray_desc.is_some()
        || special.ray_intersection.is_some()
        || special.ray_vertex_return.is_some()
        || special.external_texture_params.is_some();
    if exotic
        || module.entry_points.iter().any(|e| {
            e.mesh_info.is_some() || e.task_payload.is_some() || e.incoming_ray_payload.is_some()
        })
    {
        return Some("ray tracing, mesh shaders or external textures");
    }
    None
}

/// Appends everything `source` defines to `target`, entry points too.
/// `unsupported(source)` must be `None`.
pub fn import_module(target: &mut Module, source: &Module) -> ImportMap {
    let mut map = ImportMap::default();
    for (handle, ty) in source.types.iter() {
        let inner = remap_type(&ty.inner, &map.types);
        let new = target.types.insert(
            Type {
                name: ty.name.clone(),
                inner,
            },
            source.types.get_span(handle),
        );
        map.types.insert(handle, new);
    }
    // The validator does not look at these handles, so a module may carry dangling ones.
    for (kind, ty) in &source.special_types.predeclared_types {
        if let Some(new) = map.types.get(ty) {
            target
                .special_types
                .predeclared_types
                .insert(kind.clone(), *new);
        }
    }
    // A constant's (or override's) init comes before it in the global expressions, and
    // expressions that name it come after, so each is imported when first named.
    for (handle, expr) in source.global_expressions.iter() {
        match expr {
            Expression::Constant(c) => import_constant(*c, source, target, &mut map),
            Expression::Override(o) => import_override(*o, source, target, &mut map),
            _ => {}
        }
        let new_expr = remap_handles(expr, &map, &map.global_expressions);
        let new = target
            .global_expressions
            .append(new_expr, source.global_expressions.get_span(handle));
        map.global_expressions.insert(handle, new);
    }
    for (handle, _) in source.constants.iter() {
        import_constant(handle, source, target, &mut map);
    }
    for (handle, _) in source.overrides.iter() {
        import_override(handle, source, target, &mut map);
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
    for entry in &source.entry_points {
        target.entry_points.push(EntryPoint {
            function: remap_function(&entry.function, &map),
            workgroup_size_overrides: entry
                .workgroup_size_overrides
                .map(|sizes| sizes.map(|s| s.map(|e| map.global_expressions[&e]))),
            ..entry.clone()
        });
    }
    map
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

fn import_override(
    handle: Handle<Override>,
    source: &Module,
    target: &mut Module,
    map: &mut ImportMap,
) {
    if map.overrides.contains_key(&handle) {
        return;
    }
    let o = &source.overrides[handle];
    let new = target.overrides.append(
        Override {
            name: o.name.clone(),
            id: o.id,
            ty: map.types[&o.ty],
            init: o.init.map(|e| map.global_expressions[&e]),
        },
        source.overrides.get_span(handle),
    );
    map.overrides.insert(handle, new);
}

fn remap_type(inner: &TypeInner, types: &HashMap<Handle<Type>, Handle<Type>>) -> TypeInner {
    match inner {
        TypeInner::Pointer { base, space } => TypeInner::Pointer {
            base: types[base],
            space: *space,
        },
        TypeInner::Array { base, size, stride } => TypeInner::Array {
            base: types[base],
            size: *size,
            stride: *stride,
        },
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

/// Rewrites the module-level handles inside `expr`; `exprs` maps expression handles (empty
/// inside a function, where they stay; the global-expression map for constant expressions).
fn remap_handles(
    expr: &Expression,
    map: &ImportMap,
    exprs: &HashMap<Handle<Expression>, Handle<Expression>>,
) -> Expression {
    let e = |h: &Handle<Expression>| *exprs.get(h).unwrap_or(h);
    match expr {
        Expression::Constant(c) => Expression::Constant(map.constants[c]),
        Expression::Override(o) => Expression::Override(map.overrides[o]),
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
        // Constant expressions may use these too; their operands need the global map.
        Expression::Access { base, index } => Expression::Access {
            base: e(base),
            index: e(index),
        },
        Expression::AccessIndex { base, index } => Expression::AccessIndex {
            base: e(base),
            index: *index,
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
            arg1: arg1.as_ref().map(e),
            arg2: arg2.as_ref().map(e),
            arg3: arg3.as_ref().map(e),
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
        other => other.clone(),
    }
}

fn remap_function(function: &Function, map: &ImportMap) -> Function {
    let same = HashMap::new();
    let mut expressions = naga::Arena::new();
    for (handle, expr) in function.expressions.iter() {
        expressions.append(
            remap_handles(expr, map, &same),
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
        if let Statement::Call { function, .. } = statement {
            *function = map.functions[function];
        }
        crate::walk::nested_blocks(statement, |inner| remap_calls(inner, map));
    }
}
