//! Make-atomic (issue 11, fix kind 5b): turn one plain `var<storage, read_write>` of type
//! `u32` or `i32`, or a fixed or runtime-sized array or a struct built of them (to any depth),
//! into its `atomic<...>` counterpart.
//! Every load becomes `atomicLoad` and every store `atomicStore`, through whatever access chain
//! reaches it; a compound assignment such as `v[i] += x` stays a load and a store (not an
//! `atomicAdd`), so the program keeps its meaning and only its memory order changes.
//! `make_atomic_rmw` goes one step further for the fence search: a read-modify-write whose
//! loaded value feeds nothing else becomes one atomic operation (fuse.rs), which stops lost
//! updates; within one invocation it still computes the same.
//!
//! Refused, with the source location: any other type (floats, vectors, matrices, anything
//! atomic already), a variable that is not read_write storage, and any use other than loading
//! or storing one integer, taking a runtime array's length, or reaching further in (a pointer
//! into the variable passed to a function, or a whole array or struct loaded or stored).
//!
//! ```
//! let source = "@group(0) @binding(0) var<storage, read_write> cells: array<u32>;
//! @compute @workgroup_size(64)
//! fn main(@builtin(global_invocation_id) id: vec3<u32>) { cells[id.x] += 1u; }";
//! let found = wgstress_instrument::atomic::candidates_wgsl(source, "cells.wgsl").unwrap();
//! assert_eq!(found[0].name, "cells");
//! let wgsl = wgstress_instrument::atomic::make_atomic_wgsl(source, "cells.wgsl", "cells").unwrap();
//! assert!(wgsl.contains("array<atomic<u32>>"));
//! assert!(wgsl.contains("atomicLoad((&cells[id.x]))") && wgsl.contains("atomicStore((&cells[id.x])"));
//! assert!(!wgsl.contains("atomicAdd"));
//! ```

mod fuse;
mod shape;
mod uses;

use crate::error::ShaderLocation;
use crate::wgsl::locate::Locator;
use naga::{AddressSpace, GlobalVariable, Handle, Module, StorageAccess};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum AtomicError {
    #[error("no global variable named `{0}`")]
    UnknownVariable(String),
    #[error("{at}: `{name}` is not a var<storage, read_write>")]
    NotReadWriteStorage { name: String, at: ShaderLocation },
    #[error(
        "{at}: `{name}` is {why}; make-atomic rewrites u32, i32, and arrays and structs of them"
    )]
    UnsupportedType {
        name: String,
        why: &'static str,
        at: ShaderLocation,
    },
    #[error("{at}: make-atomic cannot rewrite `{name}`: {what}")]
    UnsupportedUse {
        name: String,
        what: String,
        at: ShaderLocation,
    },
    /// The source does not parse or validate, or the result does not render.
    #[error(transparent)]
    Shader(#[from] crate::error::InstrumentError),
}

impl AtomicError {
    /// The source line and column the error points at, if it has them.
    pub fn location(&self) -> Option<(u32, u32)> {
        match self {
            AtomicError::NotReadWriteStorage { at, .. }
            | AtomicError::UnsupportedType { at, .. }
            | AtomicError::UnsupportedUse { at, .. } => at.position,
            AtomicError::Shader(e) => e.location(),
            AtomicError::UnknownVariable(_) => None,
        }
    }
}

/// A variable make-atomic can be asked to rewrite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomicCandidate {
    pub name: String,
    pub handle: Handle<GlobalVariable>,
    /// Its declaration.
    pub at: ShaderLocation,
}

/// The plain (no part atomic yet) read_write storage variables of a rewritable type that some
/// entry point accesses, in declaration order. Accesses are not checked: `make_atomic` may
/// still refuse one for how it is used.
pub(crate) fn candidates(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    file: &str,
    source: Option<&str>,
) -> Vec<AtomicCandidate> {
    let locator = Locator::new(file, source);
    let accessed = |handle: Handle<GlobalVariable>| {
        (0..module.entry_points.len()).any(|i| !info.get_entry_point(i)[handle].is_empty())
    };
    module
        .global_variables
        .iter()
        .filter(|&(handle, var)| {
            read_write_storage(var)
                && shape::check(&module.types, var.ty).is_ok()
                && accessed(handle)
        })
        .map(|(handle, var)| AtomicCandidate {
            name: var.name.clone().unwrap_or_default(),
            handle,
            at: locator.at(module.global_variables.get_span(handle)),
        })
        .collect()
}

/// `candidates` of WGSL source.
pub fn candidates_wgsl(source: &str, file: &str) -> Result<Vec<AtomicCandidate>, AtomicError> {
    let module = crate::wgsl::shader::parse(source, file)?;
    let info = crate::wgsl::shader::validate_user(&module, Some(source), file)?;
    Ok(candidates(&module, &info, file, Some(source)))
}

/// `module` with the global variable `name` made atomic; `source` (the text `module` was
/// parsed from, if any) places errors. The result validates.
pub(crate) fn make_atomic(
    mut module: Module,
    name: &str,
    file: &str,
    source: Option<&str>,
) -> Result<Module, AtomicError> {
    let locator = Locator::new(file, source);
    let handle = global(&module, name)?;
    let declared = locator.at(module.global_variables.get_span(handle));
    let var = &module.global_variables[handle];
    if !read_write_storage(var) {
        return Err(AtomicError::NotReadWriteStorage {
            name: name.to_string(),
            at: declared,
        });
    }
    let ty = var.ty;
    shape::check(&module.types, ty).map_err(|why| AtomicError::UnsupportedType {
        name: name.to_string(),
        why,
        at: declared,
    })?;
    check_uses(&mut module, handle, ty).map_err(|refused| AtomicError::UnsupportedUse {
        name: name.to_string(),
        what: refused.what,
        at: locator.at(refused.span),
    })?;
    module.global_variables[handle].ty = shape::atomic_type(&mut module, ty);
    crate::wgsl::shader::validate(&module).map_err(|e| {
        crate::error::InstrumentError::Internal(format!(
            "make-atomic of `{name}`: {}",
            e.as_inner()
        ))
    })?;
    Ok(module)
}

/// The global variable called `name`.
fn global(module: &Module, name: &str) -> Result<Handle<GlobalVariable>, AtomicError> {
    module
        .global_variables
        .iter()
        .find(|(_, var)| var.name.as_deref() == Some(name))
        .map(|(handle, _)| handle)
        .ok_or_else(|| AtomicError::UnknownVariable(name.to_string()))
}

/// `make_atomic`, then each read-modify-write of the variable (`v[i] += x`, or a load whose
/// value only feeds `load op x` stored back to the same place, with only evaluations
/// between) made one atomic operation (`atomicAdd(&v[i], x)`; fuse.rs says when): the fix for
/// lost updates, which an atomic load and an atomic store still allow. Returns the module and
/// where each fused store was.
pub(crate) fn make_atomic_rmw(
    module: Module,
    name: &str,
    file: &str,
    source: Option<&str>,
) -> Result<(Module, Vec<ShaderLocation>), AtomicError> {
    let locator = Locator::new(file, source);
    let (module, fused) = make_atomic_rmw_spans(module, &[name.to_string()], file, source)?;
    Ok((module, fused.into_iter().map(|s| locator.at(s)).collect()))
}

/// `make_atomic_rmw` of each of `names` in turn, with the spans of the fused stores: the
/// source patch rewrites the text there.
pub(crate) fn make_atomic_rmw_spans(
    mut module: Module,
    names: &[String],
    file: &str,
    source: Option<&str>,
) -> Result<(Module, Vec<naga::Span>), AtomicError> {
    let mut fused = Vec::new();
    for name in names {
        module = make_atomic(module, name, file, source)?;
        let handle = global(&module, name)?;
        for (_, function) in module.functions.iter_mut() {
            fused.extend(fuse::fuse(function, handle));
        }
        for entry in module.entry_points.iter_mut() {
            fused.extend(fuse::fuse(&mut entry.function, handle));
        }
        crate::wgsl::shader::validate(&module).map_err(|e| {
            crate::error::InstrumentError::Internal(format!(
                "make-atomic of `{name}` with its read-modify-writes fused: {}",
                e.as_inner()
            ))
        })?;
    }
    Ok((module, fused))
}

/// `make_atomic_rmw` of WGSL source, rendered as WGSL.
pub fn make_atomic_rmw_wgsl(source: &str, file: &str, name: &str) -> Result<String, AtomicError> {
    let module = crate::wgsl::shader::parse(source, file)?;
    crate::wgsl::shader::validate_user(&module, Some(source), file)?;
    let (module, _) = make_atomic_rmw(module, name, file, Some(source))?;
    let info = crate::wgsl::shader::validate(&module)
        .map_err(|e| crate::error::InstrumentError::Internal(e.to_string()))?;
    Ok(crate::render(&module, &info, Some(source))?)
}

/// Parses WGSL, makes the variable `name` atomic, and renders the result as WGSL.
pub fn make_atomic_wgsl(source: &str, file: &str, name: &str) -> Result<String, AtomicError> {
    let module = crate::wgsl::shader::parse(source, file)?;
    crate::wgsl::shader::validate_user(&module, Some(source), file)?;
    let module = make_atomic(module, name, file, Some(source))?;
    let info = crate::wgsl::shader::validate(&module)
        .map_err(|e| crate::error::InstrumentError::Internal(e.to_string()))?;
    Ok(crate::render(&module, &info, Some(source))?)
}

fn read_write_storage(var: &GlobalVariable) -> bool {
    matches!(var.space, AddressSpace::Storage { access } if access.contains(StorageAccess::LOAD | StorageAccess::STORE))
}

/// Checks the uses in every function and entry point.
fn check_uses(
    module: &mut Module,
    var: Handle<GlobalVariable>,
    ty: Handle<naga::Type>,
) -> Result<(), uses::Refused> {
    let names: Vec<String> = module
        .functions
        .iter()
        .map(|(_, f)| f.name.clone().unwrap_or_default())
        .collect();
    let callee_names = |f: Handle<naga::Function>| names[f.index()].clone();
    let target = uses::TargetVariable {
        var,
        ty,
        types: &module.types,
        callee_names: &callee_names,
    };
    for (_, function) in module.functions.iter_mut() {
        uses::check(function, &target)?;
    }
    for entry in module.entry_points.iter_mut() {
        uses::check(&mut entry.function, &target)?;
    }
    Ok(())
}
