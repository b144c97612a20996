//! Matching an app spec's bindings against the shaders' declarations, before anything runs.
//! A pipeline's shaders share bindings by (group, binding): each binding the spec declares
//! must be declared by at least one shader, with the same kind (storage or uniform) and a type
//! its words fit wherever it is declared; each shader may read it or write it.

use crate::error::{Error, Result};
use crate::spec::{App, BindingKind};
use naga::{AddressSpace, ArraySize, StorageAccess, TypeInner};
use wgstress_instrument::Instrumented;

/// What the shaders say about one binding the spec declares.
pub struct Slot {
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    /// For each shader (unit) in order: whether it declares the binding read-only. A shader
    /// that does not declare it binds it read-write.
    pub read_only: Vec<bool>,
    pub words: u32,
    pub name: String,
}

/// What one shader declares about one binding.
struct Declared {
    kind: BindingKind,
    read_only: bool,
    name: String,
}

/// Checks every binding the instrumented entry points use against the spec, and the spec's
/// bindings against the shaders; returns the slots in spec order.
pub fn match_bindings(app: &App, units: &[&Instrumented]) -> Result<Vec<Slot>> {
    for inst in units {
        used_are_declared(app, inst)?;
    }
    app.bindings
        .iter()
        .map(|b| {
            let declared = units
                .iter()
                .map(|inst| declared(inst, b))
                .collect::<Result<Vec<_>>>()?;
            let Some(first) = declared.iter().flatten().next() else {
                let files: Vec<&str> = units.iter().map(|u| u.manifest.source.as_str()).collect();
                return Err(Error::Input(format!(
                    "{}: the spec declares binding {}:{}, which {} does not declare",
                    app.name,
                    b.group,
                    b.binding,
                    files.join(", ")
                )));
            };
            if first.kind != b.kind {
                return Err(Error::Input(format!(
                    "binding {}:{} `{}`: the spec says {:?} but the shader declares {:?}",
                    b.group, b.binding, first.name, b.kind, first.kind
                )));
            }
            if let Some(other) = declared.iter().flatten().find(|d| d.kind != first.kind) {
                return Err(Error::Input(format!(
                    "binding {}:{}: one shader declares it {:?} (`{}`), another {:?} (`{}`)",
                    b.group, b.binding, first.kind, first.name, other.kind, other.name
                )));
            }
            Ok(Slot {
                group: b.group,
                binding: b.binding,
                kind: first.kind,
                read_only: declared
                    .iter()
                    .map(|d| d.as_ref().is_some_and(|d| d.read_only))
                    .collect(),
                words: b.words,
                name: b.name.clone().unwrap_or_else(|| first.name.clone()),
            })
        })
        .collect()
}

/// Every binding the instrumented entry points of `inst` use has a spec binding.
fn used_are_declared(app: &App, inst: &Instrumented) -> Result<()> {
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
                "{}: the shader uses @group({}) @binding({}) `{}` but the spec declares no buffer for it",
                inst.manifest.source,
                rb.group,
                rb.binding,
                var.name.as_deref().unwrap_or("?")
            )));
        }
    }
    Ok(())
}

/// What `inst` declares for spec binding `b`, if it declares it; `Err` if the declaration
/// cannot hold `b`.
fn declared(inst: &Instrumented, b: &crate::spec::Binding) -> Result<Option<Declared>> {
    let module = &inst.module;
    let Some((_, var)) = module.global_variables.iter().find(|(_, v)| {
        v.binding
            .as_ref()
            .is_some_and(|r| r.group == b.group && r.binding == b.binding)
    }) else {
        return Ok(None);
    };
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
    if let Some(wrong) = size_mismatch(module, &module.types[var.ty].inner, b.words) {
        return Err(Error::Input(format!(
            "binding {}:{} `{name}`: {} words ({} bytes) {wrong}",
            b.group,
            b.binding,
            b.words,
            u64::from(b.words) * 4
        )));
    }
    Ok(Some(Declared {
        kind,
        read_only,
        name,
    }))
}

/// What is wrong with `words` words for a binding of type `ty`, if anything: more or fewer
/// than a fixed-size type holds, fewer than one element of a runtime-sized array, or (for a
/// bare runtime-sized array) not a whole number of its elements.
fn size_mismatch(module: &naga::Module, ty: &TypeInner, words: u32) -> Option<String> {
    let bytes = u64::from(words) * 4;
    let (fixed, stride) = match ty {
        TypeInner::Array {
            size: ArraySize::Dynamic,
            stride,
            ..
        } => (0, u64::from(*stride)),
        TypeInner::Struct { members, .. } if is_runtime_sized(module, members) => {
            let last = members.last().expect("member");
            let stride = match module.types[last.ty].inner {
                TypeInner::Array { stride, .. } => u64::from(stride),
                _ => 4,
            };
            (u64::from(last.offset), stride)
        }
        _ => {
            let size = u64::from(ty.size(module.to_ctx()));
            let give = format!("give words = {}", size.div_ceil(4));
            return match bytes.cmp(&size) {
                std::cmp::Ordering::Greater => Some(format!(
                    "are more than its type in the shader holds ({size} bytes): {give}"
                )),
                std::cmp::Ordering::Less => Some(format!(
                    "are fewer than its type in the shader needs ({size} bytes): {give}"
                )),
                std::cmp::Ordering::Equal => None,
            };
        }
    };
    if bytes < fixed + stride {
        Some(format!(
            "are fewer than its type in the shader needs: at least {} bytes, one element of its \
             runtime-sized array",
            fixed + stride
        ))
    } else if matches!(ty, TypeInner::Array { .. }) && bytes % stride != 0 {
        Some(format!(
            "are not a whole number of its elements ({stride} bytes each)"
        ))
    } else {
        None
    }
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
