//! The adapter's limits an application's shaders must fit, checked once the device is open
//! and before anything is made on it: a workgroup too large, too much workgroup memory, too
//! many buffers for one pipeline, a binding number or bind group past the adapter's range.
//! Each refusal names the shader, its entry point and the limit, as wgpu calls it (wgpu itself
//! would refuse the pipeline later, with less to go on). Buffer sizes and workgroup counts
//! are `check_sizes`'s.

use crate::app::spec::{App, BindAt, BindingKind};
use crate::error::{Result, RuntimeError};
use crate::gpu::interface::Binds;
use crate::gpu::program::{Program, Unit};
use naga::AddressSpace;

/// Bindings of wgstress's own in every pipeline: the params block (uniform), the results
/// block and the stress scratchpad (storage).
const OWN_UNIFORMS: u32 = 1;
const OWN_STORAGE: u32 = 2;

/// Checks every pipeline of `program` (each dispatch, and the postcondition) against
/// `limits`.
pub(crate) fn check(app: &App, program: &Program, limits: &wgpu::Limits) -> Result<()> {
    for (unit, dispatch) in program.units.iter().zip(&program.dispatches) {
        let entry = &unit.inst.manifest.entry_point;
        check_pipeline(app, unit, &entry.name, &dispatch.bind, limits)?;
    }
    if let Some((unit, _)) = program.postcondition() {
        if let Some(post) = &unit.inst.manifest.postcondition {
            check_pipeline(app, unit, &post.name, &[], limits)?;
        }
    }
    Ok(())
}

fn check_pipeline(
    app: &App,
    unit: &Unit,
    entry: &str,
    bind: &[BindAt],
    limits: &wgpu::Limits,
) -> Result<()> {
    let refuse = |what: String, limit: u32, name: &str| {
        Err(RuntimeError::Input(format!(
            "{}: entry point `{entry}`: {what}, beyond this adapter's limit of {limit} ({name})",
            unit.path
        )))
    };
    let module = &unit.inst.module;
    let Some(index) = module.entry_points.iter().position(|e| e.name == entry) else {
        return Ok(());
    };
    let [x, y, z] = module.entry_points[index].workgroup_size;
    let sizes = format!("@workgroup_size({x}, {y}, {z})");
    for (size, limit, name) in [
        (
            x,
            limits.max_compute_workgroup_size_x,
            "max_compute_workgroup_size_x",
        ),
        (
            y,
            limits.max_compute_workgroup_size_y,
            "max_compute_workgroup_size_y",
        ),
        (
            z,
            limits.max_compute_workgroup_size_z,
            "max_compute_workgroup_size_z",
        ),
    ] {
        if size > limit {
            return refuse(sizes, limit, name);
        }
    }
    let invocations = u64::from(x) * u64::from(y) * u64::from(z);
    let most = limits.max_compute_invocations_per_workgroup;
    if invocations > u64::from(most) {
        let what = format!("{sizes} is {invocations} invocations");
        return refuse(what, most, "max_compute_invocations_per_workgroup");
    }
    let bytes = workgroup_bytes(unit, index);
    let most = limits.max_compute_workgroup_storage_size;
    if bytes > u64::from(most) {
        let what = format!("{bytes} bytes of var<workgroup> (wgstress's included)");
        return refuse(what, most, "max_compute_workgroup_storage_size");
    }
    check_bindings(app, bind, unit.inst.manifest.bind_group, limits)
        .or_else(|(what, limit, name)| refuse(what, limit, name))
}

/// The workgroup memory entry point `index` of the unit's instrumented module uses: each
/// variable's size rounded up to 16 bytes, as WebGPU counts it.
fn workgroup_bytes(unit: &Unit, index: usize) -> u64 {
    let module = &unit.inst.module;
    let info = unit.inst.info.get_entry_point(index);
    module
        .global_variables
        .iter()
        .filter(|(h, v)| v.space == AddressSpace::WorkGroup && !info[*h].is_empty())
        .map(|(_, v)| {
            u64::from(module.types[v.ty].inner.size(module.to_ctx())).next_multiple_of(16)
        })
        .sum()
}

/// What the pipeline binds (every binding of the spec at its slot, and wgstress's own three)
/// against the limits on buffers per stage, binding numbers and bind groups: `Err` with what
/// is past which limit.
fn check_bindings(
    app: &App,
    bind: &[BindAt],
    own_group: u32,
    limits: &wgpu::Limits,
) -> std::result::Result<(), (String, u32, &'static str)> {
    let binds = Binds(bind);
    let mut storage = OWN_STORAGE;
    let mut uniforms = OWN_UNIFORMS;
    let mut highest_group = own_group;
    for b in &app.bindings {
        let Some(slot) = binds.slot_of(b.group, b.binding) else {
            continue;
        };
        match b.kind {
            BindingKind::Storage => storage += 1,
            BindingKind::Uniform => uniforms += 1,
        }
        highest_group = highest_group.max(b.group);
        if slot >= limits.max_bindings_per_bind_group {
            let what = format!("@group({}) @binding({slot})", b.group);
            return Err((
                what,
                limits.max_bindings_per_bind_group,
                "max_bindings_per_bind_group",
            ));
        }
    }
    let per_stage = [
        (
            storage,
            limits.max_storage_buffers_per_shader_stage,
            "storage",
            "max_storage_buffers_per_shader_stage",
        ),
        (
            uniforms,
            limits.max_uniform_buffers_per_shader_stage,
            "uniform",
            "max_uniform_buffers_per_shader_stage",
        ),
    ];
    for (count, limit, kind, name) in per_stage {
        if count > limit {
            let what = format!("{count} {kind} buffers (wgstress's included)");
            return Err((what, limit, name));
        }
    }
    if highest_group >= limits.max_bind_groups {
        let what = format!("bind group {highest_group} (wgstress's: {own_group})");
        return Err((what, limits.max_bind_groups, "max_bind_groups"));
    }
    Ok(())
}

/// Checks that each dispatch fits the adapter dimension by dimension, as a raw run
/// dispatches it as given (an instrumented run spreads its workgroups over two dimensions,
/// which `check_sizes` bounds).
pub(crate) fn check_dimensions(app: &App, limits: &wgpu::Limits) -> Result<()> {
    let max_dim = limits.max_compute_workgroups_per_dimension;
    for dispatch in app.dispatches() {
        if let Some(&g) = dispatch.workgroups.iter().find(|&&g| g > max_dim) {
            return Err(RuntimeError::Input(format!(
                "{}: workgroups {:?} has {g} in one dimension, beyond this adapter's limit of {max_dim} (max_compute_workgroups_per_dimension): --raw dispatches the workgroups as given; spread them over more dimensions",
                app.name, dispatch.workgroups
            )));
        }
    }
    Ok(())
}

/// Checks the application against the adapter's limits, before any buffer is made.
pub(crate) fn check_sizes(app: &App, limits: &wgpu::Limits) -> Result<()> {
    let max_dim = u64::from(limits.max_compute_workgroups_per_dimension);
    for dispatch in app.dispatches() {
        let groups: u128 = dispatch.workgroups.iter().map(|&g| u128::from(g)).product();
        if groups > u128::from(max_dim * max_dim) {
            return Err(RuntimeError::Input(format!(
                "{}: {groups} workgroups are beyond this adapter's limit of {} (max_compute_workgroups_per_dimension squared)",
                app.name,
                max_dim * max_dim
            )));
        }
    }
    if let Some(d) = app
        .postcondition_workgroups
        .iter()
        .find(|&&d| u64::from(d) > max_dim)
    {
        return Err(RuntimeError::Input(format!(
            "{}: postcondition_workgroups has {d}, beyond this adapter's limit of {max_dim} per dimension",
            app.name
        )));
    }
    for b in &app.bindings {
        let bytes = u64::from(b.words) * 4;
        let (limit, name) = match b.kind {
            BindingKind::Storage => (
                limits.max_storage_buffer_binding_size,
                "max_storage_buffer_binding_size",
            ),
            BindingKind::Uniform => (
                limits.max_uniform_buffer_binding_size,
                "max_uniform_buffer_binding_size",
            ),
        };
        if bytes > limit {
            return Err(RuntimeError::Input(format!(
                "{}: binding {}:{} of {bytes} bytes is beyond this adapter's limit of {limit} bytes ({name})",
                app.name, b.group, b.binding
            )));
        }
    }
    Ok(())
}
