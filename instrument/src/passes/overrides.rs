//! Resolving `override` declarations with the values an application gives, before anything
//! else: the wrapper needs the workgroup size as numbers, and array lengths sized by overrides
//! become fixed lengths. The module that comes out has no overrides left.

use crate::error::{InstrumentError, Result};
use naga::back::pipeline_constants::{process_overrides, PipelineConstantError};
use naga::back::PipelineConstants;
use naga::valid::ModuleInfo;
use naga::{ArraySize, Expression, Handle, Literal, Module, Type, TypeInner};
use std::num::NonZeroU32;

/// The values in `constants` that name one of `module`'s overrides, by name or by `@id`: an
/// application may give values for several shader files at once.
fn relevant(module: &Module, constants: &[(String, f64)]) -> PipelineConstants {
    let mut out = PipelineConstants::default();
    for (key, value) in constants {
        let id: Option<u16> = key.parse().ok();
        let known = module.overrides.iter().any(|(_, o)| match o.id {
            Some(own) => Some(own) == id,
            None => o.name.as_deref() == Some(key.as_str()),
        });
        if known {
            out.insert(key.clone(), *value);
        }
    }
    out
}

/// The values in `constants` that name one of `module`'s overrides, as pipeline constants:
/// for a shader compiled as given (a raw run), whose overrides wgpu resolves.
pub fn constants_for(module: &Module, constants: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = relevant(module, constants).into_iter().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `module` with every override replaced by its value in `constants` (or its default).
/// Without overrides the module comes back as it was.
pub(crate) fn resolve(
    module: Module,
    info: ModuleInfo,
    constants: &[(String, f64)],
    file: &str,
) -> Result<(Module, ModuleInfo)> {
    if module.overrides.is_empty() {
        return Ok((module, info));
    }
    let values = relevant(&module, constants);
    let error = |e: PipelineConstantError| InstrumentError::Overrides {
        file: file.to_string(),
        message: describe(&e),
    };
    let pending = pending_arrays(&module);
    // A length naga would only call an invalid type: said here in the user's terms.
    for (_, name) in &pending {
        let given = name.as_deref().and_then(|n| values.get(n).map(|v| (n, *v)));
        if let Some((name, value)) = given {
            if !(value >= 1.0 && value.fract() == 0.0 && value <= f64::from(u32::MAX)) {
                return Err(InstrumentError::Overrides {
                    file: file.to_string(),
                    message: format!(
                        "override `{name}` is an array's length: give it a whole number from 1 \
                         to {}, not {value}",
                        u32::MAX
                    ),
                });
            }
        }
    }
    let lengths = {
        let (resolved, resolved_info) =
            process_overrides(&module, &info, None, &values).map_err(error)?;
        if pending.is_empty() {
            return without_overrides(resolved.into_owned(), resolved_info.into_owned(), file);
        }
        pending
            .iter()
            .map(|(ty, name)| {
                let length = name.as_deref().and_then(|n| value_of(&resolved, n));
                length.map(|l| (*ty, l)).ok_or_else(|| InstrumentError::Overrides {
                    file: file.to_string(),
                    message: format!(
                        "the array length `{}` must be a named override with a positive integer value",
                        name.as_deref().unwrap_or("?")
                    ),
                })
            })
            .collect::<Result<Vec<_>>>()?
    };
    // naga resolves the overrides but leaves array lengths that name them pending: fix those
    // lengths in the original module from the values naga computed, then resolve again.
    let mut module = module;
    for (ty, length) in lengths {
        fix_length(&mut module, ty, length);
    }
    let info = info_of(&module, file)?;
    let (resolved, info) = process_overrides(&module, &info, None, &values).map_err(error)?;
    without_overrides(resolved.into_owned(), info.into_owned(), file)
}

/// naga keeps the resolved overrides' declarations, referenced by nothing: drop them, so the
/// instrumented shader declares none and a pipeline needs no constants.
fn without_overrides(
    mut module: Module,
    info: ModuleInfo,
    file: &str,
) -> Result<(Module, ModuleInfo)> {
    if module.overrides.is_empty() {
        return Ok((module, info));
    }
    module.overrides.clear();
    let info = info_of(&module, file)?;
    Ok((module, info))
}

fn info_of(module: &Module, file: &str) -> Result<ModuleInfo> {
    crate::wgsl::shader::validate(module).map_err(|e| InstrumentError::Overrides {
        file: file.to_string(),
        message: e.as_inner().to_string(),
    })
}

/// Array types whose length is an override, with the override's name.
fn pending_arrays(module: &Module) -> Vec<(Handle<Type>, Option<String>)> {
    module
        .types
        .iter()
        .filter_map(|(h, t)| match t.inner {
            TypeInner::Array {
                size: ArraySize::Pending(o),
                ..
            } => Some((h, module.overrides[o].name.clone())),
            _ => None,
        })
        .collect()
}

/// The value naga gave the constant that replaced override `name`.
fn value_of(resolved: &Module, name: &str) -> Option<NonZeroU32> {
    let (_, constant) = resolved
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))?;
    let value = match resolved.global_expressions[constant.init] {
        Expression::Literal(Literal::U32(v)) => i64::from(v),
        Expression::Literal(Literal::I32(v)) => i64::from(v),
        Expression::Literal(Literal::AbstractInt(v)) => v,
        _ => return None,
    };
    NonZeroU32::new(u32::try_from(value).ok()?)
}

/// Gives array type `ty` the fixed `length`. The arena holds each type once: should the fixed
/// array already exist, the replaced one keeps a name of its own (WGSL output ignores it).
fn fix_length(module: &mut Module, ty: Handle<Type>, length: NonZeroU32) {
    let TypeInner::Array { base, stride, .. } = module.types[ty].inner else {
        unreachable!("a pending array")
    };
    let inner = TypeInner::Array {
        base,
        size: ArraySize::Constant(length),
        stride,
    };
    let mut fixed = Type {
        name: module.types[ty].name.clone(),
        inner,
    };
    if module.types.get(&fixed).is_some() {
        fixed.name = Some(format!("overridden_array_{}", ty.index()));
    }
    module.types.replace(ty, fixed);
}

fn describe(e: &PipelineConstantError) -> String {
    match e {
        PipelineConstantError::MissingValue(name) => format!(
            "override `{name}` has no default and no value; give it one in the spec's [constants] (or `--constant {name}=VALUE` to `wgstress instrument`)"
        ),
        PipelineConstantError::NegativeWorkgroupSize => {
            "a workgroup size computed from overrides is not positive".into()
        }
        other => other.to_string(),
    }
}
