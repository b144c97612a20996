//! Entry-point wrapping. The user's entry function becomes an ordinary function, called by a
//! new entry point of the same name and workgroup size that decides the workgroup's role.
//!
//! For the application entry point, the wrapper asks the library (`wgstress_role`) whether
//! this dispatched workgroup stresses or runs the application, and under which (possibly
//! shuffled) workgroup id. The application function then receives exactly the builtins it
//! would see uninstrumented: its workgroup id, its own `num_workgroups` and the matching
//! global invocation id.
//!
//! The role is computed from `workgroup_id`, `num_workgroups` and the uniform params only, and
//! the wrapper branches on nothing else before the call: the application's barriers stay in
//! uniform control flow as Tint's uniformity analysis sees it, not only as naga's does. The postcondition wrapper only marks the phase, so its assertions
//! count as postcondition failures, and passes every builtin through.

use crate::error::{InstrumentError, Result};
use crate::ir::builder::BlockBuilder;
use crate::wgsl::locate::Locator;
use naga::{
    BinaryOperator, Binding, BuiltIn, Expression, Function, FunctionArgument, Handle, Module,
    Scalar, Span, Statement, SwizzleComponent, Type, TypeInner, VectorSize,
};

/// What a wrapped entry point does before it calls the user's function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryRole {
    /// The application kernel: stress workgroups are split off, workgroup ids remapped.
    Application,
    /// The postcondition kernel: dispatched on its own, builtins passed through.
    Postcondition,
}

/// Library items a wrapper calls or reads.
pub(crate) struct Library {
    /// `wgstress_role(group, groups) -> vec4<u32>`: w = 0 idle, 1 application, 2 stress.
    pub role: Handle<Function>,
    pub stress: Handle<Function>,
    pub enter_app: Handle<Function>,
    /// `wgstress_in_start_order(group, local) -> vec3<u32>`: the application id the role's
    /// `group` runs as, the next in start order where the params ask for it.
    pub start_order: Handle<Function>,
    /// `wgstress_start()`: the scheduler's admission, in uniform control flow before the call;
    /// `wgstress_start_alone(threads)` where the application has no barrier.
    pub start: Handle<Function>,
    pub start_alone: Handle<Function>,
    /// `wgstress_leave_alone()`, where the application has no barrier.
    pub leave_alone: Handle<Function>,
    /// Whether the application's entry point holds a barrier (so the wrapper may add one).
    pub has_barriers: bool,
    /// `wgstress_leave_app()`, after the application function returns.
    pub leave_app: Handle<Function>,
    pub enter_check: Handle<Function>,
    pub params: Handle<naga::GlobalVariable>,
}

/// Index of `app_groups` inside `WgstressParams`.
const APP_GROUPS_FIELD: u32 = 0;

pub(crate) fn wrap(
    module: &mut Module,
    index: usize,
    role: EntryRole,
    lib: &Library,
    at: &Locator,
) -> Result<()> {
    let entry = &module.entry_points[index];
    if let Some(sizes) = entry.workgroup_size_overrides {
        // The first override-sized dimension; its expression's span is the `@workgroup_size`
        // argument in the source.
        let span = sizes
            .iter()
            .flatten()
            .next()
            .map_or(Span::UNDEFINED, |e| module.global_expressions.get_span(*e));
        let at = if span.is_defined() {
            at.at(span)
        } else {
            at.entry(&entry.function)
        };
        return Err(InstrumentError::OverrideWorkgroupSize {
            entry: entry.name.clone(),
            at,
        });
    }
    let name = entry.name.clone();
    let size = entry.workgroup_size;
    let inputs = inputs_of(module, index, at)?;
    let span = module.entry_points[index]
        .function
        .body
        .span_iter()
        .next()
        .map_or(Span::UNDEFINED, |(_, s)| *s);

    let mut user = std::mem::take(&mut module.entry_points[index].function);
    for argument in &mut user.arguments {
        argument.binding = None;
    }
    let prefix = match role {
        EntryRole::Application => "app",
        EntryRole::Postcondition => "post",
    };
    user.name = Some(format!("wgstress_{prefix}_{name}"));
    let user_args: Vec<_> = user.arguments.iter().map(|a| a.ty).collect();
    let user_fn = module.functions.append(user, span);

    let vec3 = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Vector {
                size: VectorSize::Tri,
                scalar: Scalar::U32,
            },
        },
        Span::UNDEFINED,
    );
    let u32_ty = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Scalar(Scalar::U32),
        },
        Span::UNDEFINED,
    );
    let mut wrapper = Wrapper::new(span, vec3, u32_ty);
    wrapper.declare(&inputs, role);
    wrapper.build(role, size, lib, user_fn, &user_args, &inputs);
    module.entry_points[index].function = wrapper.function;
    Ok(())
}

/// One input of the user's entry function: a builtin, or a struct of builtins.
enum Input {
    Builtin(BuiltIn, Handle<Type>),
    Struct(Handle<Type>, Vec<(BuiltIn, Handle<Type>)>),
}

fn inputs_of(module: &Module, index: usize, at: &Locator) -> Result<Vec<Input>> {
    let entry = &module.entry_points[index];
    let unsupported = |what: String, argument: usize| InstrumentError::UnsupportedInput {
        entry: entry.name.clone(),
        what,
        at: at.argument(&entry.function, argument as u32),
    };
    let builtin = |binding: &Option<Binding>, what: &str, argument: usize| match binding {
        Some(Binding::BuiltIn(b)) if passthrough_ok(*b) => Ok(*b),
        _ => Err(unsupported(what.to_string(), argument)),
    };
    let mut inputs = Vec::new();
    for (i, argument) in entry.function.arguments.iter().enumerate() {
        let what = argument
            .name
            .clone()
            .unwrap_or_else(|| format!("argument {i}"));
        match (&argument.binding, &module.types[argument.ty].inner) {
            (None, TypeInner::Struct { members, .. }) => {
                let members = members
                    .iter()
                    .map(|m| Ok((builtin(&m.binding, &what, i)?, m.ty)))
                    .collect::<Result<Vec<_>>>()?;
                inputs.push(Input::Struct(argument.ty, members));
            }
            (binding, _) => inputs.push(Input::Builtin(builtin(binding, &what, i)?, argument.ty)),
        }
    }
    Ok(inputs)
}

fn passthrough_ok(builtin: BuiltIn) -> bool {
    matches!(
        builtin,
        BuiltIn::GlobalInvocationId
            | BuiltIn::LocalInvocationId
            | BuiltIn::LocalInvocationIndex
            | BuiltIn::WorkGroupId
            | BuiltIn::NumWorkGroups
            | BuiltIn::NumSubgroups
            | BuiltIn::SubgroupId
            | BuiltIn::SubgroupSize
            | BuiltIn::SubgroupInvocationId
    )
}

struct Wrapper {
    function: Function,
    span: Span,
    vec3: Handle<Type>,
    u32_ty: Handle<Type>,
    /// The wrapper's own builtin arguments, in order.
    builtins: Vec<BuiltIn>,
}

impl Wrapper {
    fn new(span: Span, vec3: Handle<Type>, u32_ty: Handle<Type>) -> Self {
        Wrapper {
            function: Function::default(),
            span,
            vec3,
            u32_ty,
            builtins: Vec::new(),
        }
    }

    /// The wrapper takes the builtins it needs itself plus every builtin the user's takes.
    fn declare(&mut self, inputs: &[Input], role: EntryRole) {
        let mut wanted = vec![
            (BuiltIn::WorkGroupId, self.vec3),
            (BuiltIn::LocalInvocationId, self.vec3),
        ];
        if role == EntryRole::Application {
            wanted.push((BuiltIn::NumWorkGroups, self.vec3));
            wanted.push((BuiltIn::LocalInvocationIndex, self.u32_ty));
        }
        for input in inputs {
            match input {
                Input::Builtin(b, ty) => wanted.push((*b, *ty)),
                Input::Struct(_, members) => wanted.extend(members.iter().copied()),
            }
        }
        for (builtin, ty) in wanted {
            // The application's global id is computed from its remapped workgroup id.
            let computed = role == EntryRole::Application && builtin == BuiltIn::GlobalInvocationId;
            if !computed && !self.builtins.contains(&builtin) {
                self.builtins.push(builtin);
                self.function.arguments.push(FunctionArgument {
                    name: Some(builtin_name(builtin).to_string()),
                    ty,
                    binding: Some(Binding::BuiltIn(builtin)),
                });
            }
        }
    }

    fn argument(&self, builtin: BuiltIn) -> Expression {
        let index = self
            .builtins
            .iter()
            .position(|b| *b == builtin)
            .expect("declared builtin");
        Expression::FunctionArgument(index as u32)
    }

    fn build(
        &mut self,
        role: EntryRole,
        size: [u32; 3],
        lib: &Library,
        user_fn: Handle<Function>,
        user_args: &[Handle<Type>],
        inputs: &[Input],
    ) {
        let group_arg = self.argument(BuiltIn::WorkGroupId);
        let local_arg = self.argument(BuiltIn::LocalInvocationId);
        let (vec3, span) = (self.vec3, self.span);
        let remapped = match role {
            EntryRole::Application => Some((
                self.argument(BuiltIn::NumWorkGroups),
                self.argument(BuiltIn::LocalInvocationIndex),
            )),
            EntryRole::Postcondition => None,
        };
        let passthrough: Vec<(BuiltIn, Expression)> = self
            .builtins
            .iter()
            .map(|b| (*b, self.argument(*b)))
            .collect();
        let mut b = BlockBuilder::new(&mut self.function, span);
        let group = b.expr(group_arg);
        let local = b.expr(local_arg);
        let mut values: Vec<(BuiltIn, Handle<Expression>)> = Vec::new();
        match remapped {
            Some((groups_arg, index_arg)) => {
                let groups = b.expr(groups_arg);
                let index = b.expr(index_arg);
                let role = b
                    .call(lib.role, vec![group, groups], true)
                    .expect("call with result");
                let kind = b.expr(Expression::AccessIndex {
                    base: role,
                    index: 3,
                });
                let two = b.u32(2);
                let stress = b.expr(binary(BinaryOperator::Equal, kind, two));
                let threads = b.u32(size.iter().product());
                b.if_with(stress, |b| {
                    let stress_group = b.expr(Expression::AccessIndex {
                        base: role,
                        index: 0,
                    });
                    b.call(lib.stress, vec![stress_group, index, threads], false);
                    b.statement(Statement::Return { value: None });
                });
                let zero = b.u32(0);
                let idle = b.expr(binary(BinaryOperator::Equal, kind, zero));
                b.if_then(idle, Statement::Return { value: None });
                let role_group = b.expr(Expression::Swizzle {
                    size: VectorSize::Tri,
                    vector: role,
                    pattern: [
                        SwizzleComponent::X,
                        SwizzleComponent::Y,
                        SwizzleComponent::Z,
                        SwizzleComponent::X,
                    ],
                });
                let app_group = b
                    .call(lib.start_order, vec![role_group, local], true)
                    .expect("call with result");
                b.call(lib.enter_app, vec![app_group, local], false);
                if lib.has_barriers {
                    b.call(lib.start, Vec::new(), false);
                } else {
                    b.call(lib.start_alone, vec![threads], false);
                }
                let params = b.expr(Expression::GlobalVariable(lib.params));
                let field = b.expr(Expression::AccessIndex {
                    base: params,
                    index: APP_GROUPS_FIELD,
                });
                let app_groups = b.expr(Expression::Load { pointer: field });
                let dims: Vec<_> = size.iter().map(|s| b.u32(*s)).collect();
                let size_vec = b.expr(Expression::Compose {
                    ty: vec3,
                    components: dims,
                });
                let base = b.expr(binary(BinaryOperator::Multiply, app_group, size_vec));
                let global = b.expr(binary(BinaryOperator::Add, base, local));
                values.push((BuiltIn::WorkGroupId, app_group));
                values.push((BuiltIn::NumWorkGroups, app_groups));
                values.push((BuiltIn::GlobalInvocationId, global));
            }
            None => {
                b.call(lib.enter_check, vec![group, local], false);
            }
        }
        for (builtin, expr) in passthrough {
            if !values.iter().any(|(v, _)| *v == builtin) {
                let handle = b.expr(expr);
                values.push((builtin, handle));
            }
        }
        let value = |builtin: BuiltIn| values.iter().find(|(v, _)| *v == builtin).expect("value").1;
        let mut arguments = Vec::new();
        for (input, _ty) in inputs.iter().zip(user_args) {
            let handle = match input {
                Input::Builtin(builtin, _) => value(*builtin),
                Input::Struct(ty, members) => {
                    let components = members.iter().map(|(m, _)| value(*m)).collect();
                    b.expr(Expression::Compose {
                        ty: *ty,
                        components,
                    })
                }
            };
            arguments.push(handle);
        }
        b.call(user_fn, arguments, false);
        if role == EntryRole::Application {
            let leave = if lib.has_barriers {
                lib.leave_app
            } else {
                lib.leave_alone
            };
            b.call(leave, Vec::new(), false);
        }
        self.function.body = b.finish();
    }
}

fn binary(op: BinaryOperator, left: Handle<Expression>, right: Handle<Expression>) -> Expression {
    Expression::Binary { op, left, right }
}

fn builtin_name(builtin: BuiltIn) -> &'static str {
    match builtin {
        BuiltIn::GlobalInvocationId => "global_invocation_id",
        BuiltIn::LocalInvocationId => "local_invocation_id",
        BuiltIn::LocalInvocationIndex => "local_invocation_index",
        BuiltIn::WorkGroupId => "workgroup_id",
        BuiltIn::NumWorkGroups => "num_workgroups",
        BuiltIn::NumSubgroups => "num_subgroups",
        BuiltIn::SubgroupId => "subgroup_id",
        BuiltIn::SubgroupSize => "subgroup_size",
        BuiltIn::SubgroupInvocationId => "subgroup_invocation_id",
        _ => "builtin",
    }
}
