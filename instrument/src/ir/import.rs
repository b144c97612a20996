//! Importing one naga module into another.
//!
//! The instrumented module is built fresh: first the runtime library (library.wgsl, parsed on
//! its own), then the user's module, every handle remapped. The order matters: naga's
//! validator wants a function's callees before it in the arena, and user functions will call
//! the library. Expression handles inside a function stay valid as they are, because each
//! function's expression arena is copied whole and in order; only handles into module-level
//! arenas need remapping.

use crate::ir::import_map::ImportMap;
use crate::ir::remap::{self, Exprs, Remap};
use naga::{
    ArraySize, Constant, EntryPoint, Expression, Function, GlobalVariable, Handle, Module,
    Override, Span, Type, TypeInner,
};

/// Whether `module` uses something the importer cannot carry over, and where.
pub(crate) fn unsupported(module: &Module) -> Option<(&'static str, Span)> {
    let pending = module.types.iter().find(|(_, t)| {
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
    if let Some((handle, _)) = pending {
        return Some(("arrays sized by an override", module.types.get_span(handle)));
    }
    let special = &module.special_types;
    let exotic = [
        special.ray_desc,
        special.ray_intersection,
        special.ray_vertex_return,
        special.external_texture_params,
    ]
    .into_iter()
    .flatten()
    .map(|ty| module.types.get_span(ty));
    let stages = module
        .entry_points
        .iter()
        .filter(|e| {
            e.mesh_info.is_some() || e.task_payload.is_some() || e.incoming_ray_payload.is_some()
        })
        .map(|e| {
            e.function
                .body
                .span_iter()
                .next()
                .map_or(Span::UNDEFINED, |(_, s)| *s)
        });
    let mut found = exotic.chain(stages);
    found
        .next()
        .map(|span| ("ray tracing, mesh shaders or external textures", span))
}

/// Appends everything `source` defines to `target`, entry points too.
/// `unsupported(source)` must be `None`.
pub(crate) fn import_module(target: &mut Module, source: &Module) -> ImportMap {
    let mut map = ImportMap::default();
    for (handle, ty) in source.types.iter() {
        let inner = remap::type_inner(&ty.inner, &map);
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
        let new_expr = Remap {
            map: &map,
            exprs: Exprs::Mapped(&map.global_expressions),
        }
        .expression(expr);
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
        // Destructured, so that a field naga adds is looked at here.
        let EntryPoint {
            name,
            stage,
            early_depth_test,
            workgroup_size,
            workgroup_size_overrides,
            function,
            mesh_info,
            task_payload,
            incoming_ray_payload,
        } = entry;
        target.entry_points.push(EntryPoint {
            name: name.clone(),
            stage: *stage,
            early_depth_test: *early_depth_test,
            workgroup_size: *workgroup_size,
            workgroup_size_overrides: workgroup_size_overrides
                .map(|sizes| sizes.map(|s| s.map(|e| map.global_expressions[&e]))),
            function: remap_function(function, &map),
            // `unsupported` refuses mesh shaders, so there is no mesh info to remap.
            mesh_info: mesh_info.clone(),
            task_payload: task_payload.map(|g| map.globals[&g]),
            incoming_ray_payload: incoming_ray_payload.map(|g| map.globals[&g]),
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

fn remap_function(function: &Function, map: &ImportMap) -> Function {
    let remap = Remap {
        map,
        exprs: Exprs::Same,
    };
    let mut expressions = naga::Arena::new();
    for (handle, expr) in function.expressions.iter() {
        expressions.append(
            remap.expression(expr),
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
    remap::block(&mut body, map);
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
