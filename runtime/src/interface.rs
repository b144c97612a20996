//! Matching an app spec's bindings against the shader's declarations, before anything runs.

use crate::error::{Error, Result};
use crate::spec::{App, BindingKind};
use naga::{AddressSpace, ArraySize, StorageAccess, TypeInner};
use wgstress_instrument::Instrumented;

/// What the shader says about one binding the spec declares.
pub struct Slot {
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    pub read_only: bool,
    pub words: u32,
    pub name: String,
}

/// Checks every binding the instrumented entry points use against the spec, and the spec's
/// bindings against the shader; returns the slots in spec order.
pub fn match_bindings(app: &App, inst: &Instrumented) -> Result<Vec<Slot>> {
    let module = &inst.module;
    let own_group = inst.manifest.bind_group;
    let used_by_entries = |handle: naga::Handle<naga::GlobalVariable>| {
        module.entry_points.iter().enumerate().any(|(i, ep)| {
            let wanted = ep.name == inst.manifest.entry_point.name
                || inst
                    .manifest
                    .postcondition
                    .as_ref()
                    .is_some_and(|p| p.name == ep.name);
            wanted && !inst.info.get_entry_point(i)[handle].is_empty()
        })
    };
    for (handle, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        if rb.group == own_group || !used_by_entries(handle) {
            continue;
        }
        if app.binding(rb.group, rb.binding).is_none() {
            return Err(Error::Input(format!(
                "the shader uses @group({}) @binding({}) `{}` but the spec declares no buffer for it",
                rb.group,
                rb.binding,
                var.name.as_deref().unwrap_or("?")
            )));
        }
    }
    app.bindings.iter().map(|b| slot(app, inst, b)).collect()
}

fn slot(app: &App, inst: &Instrumented, b: &crate::spec::Binding) -> Result<Slot> {
    let module = &inst.module;
    let (_, var) = module
        .global_variables
        .iter()
        .find(|(_, v)| {
            v.binding
                .as_ref()
                .is_some_and(|r| r.group == b.group && r.binding == b.binding)
        })
        .ok_or_else(|| {
            Error::Input(format!(
                "{}: the spec declares binding {}:{}, which {} does not declare",
                app.name, b.group, b.binding, app.shader_path
            ))
        })?;
    let name = b
        .name
        .clone()
        .or_else(|| var.name.clone())
        .unwrap_or_default();
    let (kind, read_only) = match var.space {
        AddressSpace::Storage { access } => {
            (BindingKind::Storage, !access.contains(StorageAccess::STORE))
        }
        AddressSpace::Uniform => (BindingKind::Uniform, true),
        other => {
            return Err(Error::Input(format!(
                "binding {}:{} `{name}` is in the {other:?} space, which wgstress cannot fill",
                b.group, b.binding
            )))
        }
    };
    if kind != b.kind {
        return Err(Error::Input(format!(
            "binding {}:{} `{name}`: the spec says {:?} but the shader declares {:?}",
            b.group, b.binding, b.kind, kind
        )));
    }
    let bytes = u64::from(b.words) * 4;
    let ty = &module.types[var.ty].inner;
    let size_ok = match ty {
        TypeInner::Array {
            size: ArraySize::Dynamic,
            stride,
            ..
        } => bytes >= u64::from(*stride) && bytes % u64::from(*stride) == 0,
        TypeInner::Struct { members, .. } if is_runtime_sized(module, members) => {
            let last = members.last().expect("member");
            let stride = match module.types[last.ty].inner {
                TypeInner::Array { stride, .. } => u64::from(stride),
                _ => 4,
            };
            bytes >= u64::from(last.offset) + stride
        }
        _ => bytes == u64::from(ty.size(module.to_ctx())),
    };
    if !size_ok || b.words == 0 {
        return Err(Error::Input(format!(
            "binding {}:{} `{name}`: {} words ({bytes} bytes) do not fit its type in the shader ({} bytes{})",
            b.group,
            b.binding,
            b.words,
            ty.size(module.to_ctx()),
            if matches!(ty, TypeInner::Array { size: ArraySize::Dynamic, .. }) { " per element" } else { "" }
        )));
    }
    Ok(Slot {
        group: b.group,
        binding: b.binding,
        kind,
        read_only,
        words: b.words,
        name,
    })
}

fn is_runtime_sized(module: &naga::Module, members: &[naga::StructMember]) -> bool {
    members.last().is_some_and(|m| {
        matches!(
            module.types[m.ty].inner,
            TypeInner::Array {
                size: ArraySize::Dynamic,
                ..
            }
        )
    })
}
