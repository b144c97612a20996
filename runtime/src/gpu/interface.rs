//! Matching an app spec's bindings against the shaders' declarations, before anything runs.
//! A pipeline's shaders share bindings by (group, binding): each binding the spec declares
//! must be declared by at least one shader, with the same kind (storage or uniform) and a type
//! its words fit wherever it is declared; each shader may read it or write it. A dispatch's
//! `bind` puts a binding at another slot of its shader than its own number (`Binds`).

use crate::app::spec::{App, BindAt, BindingKind};
use crate::error::{Result, RuntimeError};
use naga::{AddressSpace, ArraySize, StorageAccess, TypeInner};
use wgstress_instrument::Instrumented;

/// What the shaders say about one binding the spec declares.
pub(crate) struct Slot {
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    pub words: u32,
    pub name: String,
}

/// One pipeline of a run as its bindings see it: a shader, the entry point it runs, and the
/// dispatch's `bind` (none for the postcondition).
pub(crate) struct Use<'a> {
    pub inst: &'a Instrumented,
    pub entry: &'a str,
    pub bind: &'a [BindAt],
}

/// Which binding of the spec each slot of a shader gets: the one `bind` puts there, else the
/// binding of the slot's own number, unless `bind` put that one at another slot.
#[derive(Clone, Copy)]
pub(crate) struct Binds<'a>(pub &'a [BindAt]);

impl Binds<'_> {
    /// The spec's binding at the shader's `@group(group) @binding(slot)`, if any.
    pub(crate) fn spec_at(self, group: u32, slot: u32) -> Option<u32> {
        if let Some(b) = self.0.iter().find(|b| (b.group, b.slot) == (group, slot)) {
            return Some(b.binding);
        }
        let moved = self.0.iter().any(|b| (b.group, b.binding) == (group, slot));
        (!moved).then_some(slot)
    }

    /// The shader slot the spec's `binding` is at, if any.
    pub(crate) fn slot_of(self, group: u32, binding: u32) -> Option<u32> {
        if let Some(b) = self
            .0
            .iter()
            .find(|b| (b.group, b.binding) == (group, binding))
        {
            return Some(b.slot);
        }
        let taken = self.0.iter().any(|b| (b.group, b.slot) == (group, binding));
        (!taken).then_some(binding)
    }
}

/// Whether `inst` declares `@group(group) @binding(slot)` read-only (a shader that does not
/// declare it binds it read-write).
pub(crate) fn read_only(inst: &Instrumented, group: u32, slot: u32) -> bool {
    inst.module.global_variables.iter().any(|(_, v)| {
        v.binding
            .as_ref()
            .is_some_and(|r| (r.group, r.binding) == (group, slot))
            && match v.space {
                AddressSpace::Storage { access } => !access.contains(StorageAccess::STORE),
                _ => true,
            }
    })
}

/// What one shader declares about one binding.
struct Declared {
    kind: BindingKind,
    name: String,
}

/// Checks every binding the pipelines' entry points use against the spec, and the spec's
/// bindings against the shaders (at the slots each pipeline binds them); returns the slots in
/// spec order.
pub(crate) fn match_bindings(app: &App, uses: &[Use]) -> Result<Vec<Slot>> {
    for u in uses {
        used_are_declared(app, u)?;
    }
    app.bindings
        .iter()
        .map(|b| {
            let declared = uses
                .iter()
                .filter_map(|u| {
                    let slot = Binds(u.bind).slot_of(b.group, b.binding)?;
                    declared(u.inst, b, slot).transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            let Some(first) = declared.first() else {
                let mut files: Vec<&str> = uses
                    .iter()
                    .map(|u| u.inst.manifest.source.as_str())
                    .collect();
                files.dedup();
                return Err(RuntimeError::Input(format!(
                    "{}: the spec declares binding {}:{}, which {} does not declare",
                    app.name,
                    b.group,
                    b.binding,
                    files.join(", ")
                )));
            };
            if first.kind != b.kind {
                return Err(RuntimeError::Input(format!(
                    "binding {}:{} `{}`: the spec says {:?} but the shader declares {:?}",
                    b.group, b.binding, first.name, b.kind, first.kind
                )));
            }
            if let Some(other) = declared.iter().find(|d| d.kind != first.kind) {
                return Err(RuntimeError::Input(format!(
                    "binding {}:{}: one shader declares it {:?} (`{}`), another {:?} (`{}`)",
                    b.group, b.binding, first.kind, first.name, other.kind, other.name
                )));
            }
            Ok(Slot {
                group: b.group,
                binding: b.binding,
                kind: first.kind,
                words: b.words,
                name: b.name.clone().unwrap_or_else(|| first.name.clone()),
            })
        })
        .collect()
}

/// Every binding the entry point of `u` uses has a spec binding at its slot.
fn used_are_declared(app: &App, u: &Use) -> Result<()> {
    let inst = u.inst;
    let module = &inst.module;
    let own_group = inst.manifest.bind_group;
    let Some(index) = module.entry_points.iter().position(|e| e.name == u.entry) else {
        return Ok(());
    };
    let info = inst.info.get_entry_point(index);
    for (handle, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        if rb.group == own_group || info[handle].is_empty() {
            continue;
        }
        let bound = Binds(u.bind).spec_at(rb.group, rb.binding);
        if bound.and_then(|b| app.binding(rb.group, b)).is_none() {
            let name = var.name.as_deref().unwrap_or("?");
            let why = if bound.is_some() {
                "the spec declares no buffer for it"
            } else {
                "its dispatch's `bind` puts that binding at another slot and nothing here"
            };
            return Err(RuntimeError::Input(format!(
                "{}: `{}` uses @group({}) @binding({}) `{name}` but {why}",
                inst.manifest.source, u.entry, rb.group, rb.binding
            )));
        }
    }
    Ok(())
}

/// What `inst` declares at `@binding(slot)` of `b`'s group, where spec binding `b` is bound,
/// if it declares it; `Err` if the declaration cannot hold `b`.
fn declared(
    inst: &Instrumented,
    b: &crate::app::spec::Binding,
    slot: u32,
) -> Result<Option<Declared>> {
    let module = &inst.module;
    let Some((_, var)) = module.global_variables.iter().find(|(_, v)| {
        v.binding
            .as_ref()
            .is_some_and(|r| r.group == b.group && r.binding == slot)
    }) else {
        return Ok(None);
    };
    let name = b
        .name
        .clone()
        .or_else(|| var.name.clone())
        .unwrap_or_default();
    let kind = match var.space {
        AddressSpace::Storage { .. } => BindingKind::Storage,
        AddressSpace::Uniform => BindingKind::Uniform,
        other => {
            return Err(RuntimeError::Input(format!(
                "binding {}:{} `{name}` is in the {other:?} space, which wgstress cannot fill",
                b.group, b.binding
            )))
        }
    };
    if let Some(wrong) = size_mismatch(module, &module.types[var.ty].inner, b.words) {
        return Err(RuntimeError::Input(format!(
            "binding {}:{} `{name}`: {} words ({} bytes) {wrong}",
            b.group,
            b.binding,
            b.words,
            u64::from(b.words) * 4
        )));
    }
    Ok(Some(Declared { kind, name }))
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
