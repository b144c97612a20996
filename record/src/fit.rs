//! Buffers cut to the types that hold them. A program may bind a buffer larger than the
//! shader's type (a uniform padded to 16 bytes, a pool allocated in one size); a spec's
//! binding holds what its shaders declare, so a binding every shader declares with a
//! fixed-size type is cut to that size, its initial contents with it.

use crate::spec::{RecordedBinding, RecordedSpec};
use naga::{ArraySize, TypeInner};

/// The words of the fixed-size type each shader that binds `b` declares there, if every one
/// of them declares one and they agree.
fn declared_words(
    spec: &RecordedSpec,
    modules: &[Option<naga::Module>],
    b: &RecordedBinding,
) -> Option<u32> {
    let mut words = None;
    for d in &spec.dispatches {
        let slot = d
            .bind
            .iter()
            .find(|&&(group, _, binding)| group == b.group && binding == b.binding)
            .map(|&(_, slot, _)| slot)
            .unwrap_or(b.binding);
        let module = modules.get(d.shader)?.as_ref()?;
        let Some((_, var)) = module.global_variables.iter().find(|(_, v)| {
            v.binding
                .as_ref()
                .is_some_and(|r| r.group == b.group && r.binding == slot)
        }) else {
            continue;
        };
        let inner = &module.types[var.ty].inner;
        let runtime_sized = match inner {
            TypeInner::Array { size, .. } => matches!(size, ArraySize::Dynamic),
            TypeInner::Struct { members, .. } => members.last().is_some_and(|m| {
                matches!(
                    module.types[m.ty].inner,
                    TypeInner::Array {
                        size: ArraySize::Dynamic,
                        ..
                    }
                )
            }),
            _ => false,
        };
        if runtime_sized {
            return None;
        }
        let here = inner.size(module.to_ctx()).div_ceil(4);
        match words {
            Some(w) if w != here => return None,
            _ => words = Some(here),
        }
    }
    words
}

/// Cuts every binding that is larger than the fixed-size type its shaders declare.
pub(crate) fn fit(spec: &mut RecordedSpec) {
    let modules: Vec<Option<naga::Module>> = spec
        .shaders
        .iter()
        .map(|s| naga::front::wgsl::parse_str(&s.code).ok())
        .collect();
    let cuts: Vec<Option<u32>> = spec
        .bindings
        .iter()
        .map(|b| declared_words(spec, &modules, b).filter(|&w| w > 0 && w < b.words))
        .collect();
    for (b, cut) in spec.bindings.iter_mut().zip(cuts) {
        let Some(words) = cut else { continue };
        b.words = words;
        if let Some(init) = &mut b.init {
            init.truncate(words as usize);
            if init.iter().all(|&w| w == 0) {
                b.init = None;
            }
        }
    }
    for c in &mut spec.checks {
        if let Some(b) = spec
            .bindings
            .iter()
            .find(|b| b.group == c.group && b.binding == c.binding)
        {
            c.words.retain(|&(word, _)| word < b.words);
        }
    }
    spec.checks.retain(|c| !c.words.is_empty());
}
