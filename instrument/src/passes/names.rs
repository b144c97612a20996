//! Checks on the user's names: entry points, the assertion hook, the reserved prefix.

use crate::error::{InstrumentError, Result, ShaderLocation};
use crate::options::InstrumentOptions;
use crate::wgsl::locate::Locator;
use crate::wgsl::shader::is_compute;
use naga::{Function, Handle, Module, TypeInner};

const PREFIX: &str = "wgstress_";
const HOOK: &str = "wgstress_assert";

/// The user may name nothing with the instrumenter's prefix, except the hook itself. Names
/// are checked first and only a clash is located: locating every name made loading a large
/// shader quadratic.
pub(crate) fn check_reserved(module: &Module, at: &Locator) -> Result<()> {
    match first_clash(module) {
        Some((name, place)) => Err(InstrumentError::NameClash {
            at: place.locate(module, at),
            name,
        }),
        None => Ok(()),
    }
}

fn reserved(name: &str) -> bool {
    name.to_ascii_lowercase().starts_with(PREFIX)
}

/// A named item of the module, to locate once it is known to clash.
enum Named {
    Type(Handle<naga::Type>),
    Constant(Handle<naga::Constant>),
    Override(Handle<naga::Override>),
    Global(Handle<naga::GlobalVariable>),
    Entry(usize),
    Function(Handle<Function>),
    Local(Option<Handle<Function>>, usize, Handle<naga::LocalVariable>),
}

impl Named {
    fn locate(&self, module: &Module, at: &Locator) -> ShaderLocation {
        match *self {
            Named::Type(h) => at.at(module.types.get_span(h)),
            Named::Constant(h) => at.at(module.constants.get_span(h)),
            Named::Override(h) => at.at(module.overrides.get_span(h)),
            Named::Global(h) => at.at(module.global_variables.get_span(h)),
            Named::Entry(index) => at.entry(&module.entry_points[index].function),
            Named::Function(h) => at.at(module.functions.get_span(h)),
            Named::Local(function, entry, h) => {
                let function = match function {
                    Some(f) => &module.functions[f],
                    None => &module.entry_points[entry].function,
                };
                at.at(function.local_variables.get_span(h))
            }
        }
    }
}

/// The first reserved name, in declaration order: types, constants, overrides, globals,
/// entry points, functions (but the hook), then every function's locals.
fn first_clash(module: &Module) -> Option<(String, Named)> {
    let types = module
        .types
        .iter()
        .map(|(h, t)| (t.name.as_deref(), Named::Type(h)));
    let constants = module
        .constants
        .iter()
        .map(|(h, c)| (c.name.as_deref(), Named::Constant(h)));
    let overrides = module
        .overrides
        .iter()
        .map(|(h, o)| (o.name.as_deref(), Named::Override(h)));
    let globals = module
        .global_variables
        .iter()
        .map(|(h, g)| (g.name.as_deref(), Named::Global(h)));
    let entries = module
        .entry_points
        .iter()
        .enumerate()
        .map(|(i, e)| (Some(e.name.as_str()), Named::Entry(i)));
    let functions = module
        .functions
        .iter()
        .filter(|(_, f)| f.name.as_deref() != Some(HOOK))
        .map(|(h, f)| (f.name.as_deref(), Named::Function(h)));
    let bodies = module.functions.iter().map(|(h, f)| (Some(h), 0, f)).chain(
        module
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (None, i, &e.function)),
    );
    let locals = bodies.flat_map(|(handle, entry, function)| {
        function
            .local_variables
            .iter()
            .map(move |(h, l)| (l.name.as_deref(), Named::Local(handle, entry, h)))
    });
    types
        .chain(constants)
        .chain(overrides)
        .chain(globals)
        .chain(entries)
        .chain(functions)
        .chain(locals)
        .find_map(|(name, named)| {
            name.filter(|n| reserved(n))
                .map(|name| (name.to_string(), named))
        })
}

fn compute_entries(module: &Module) -> impl Iterator<Item = (usize, &str)> {
    module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| is_compute(e.stage))
        .map(|(i, e)| (i, e.name.as_str()))
}

/// The shader's file, for the entry point errors.
fn file(options: &InstrumentOptions) -> String {
    options
        .file_name
        .clone()
        .unwrap_or_else(|| "shader.wgsl".into())
}

/// The one compute entry point among `candidates`.
fn only(candidates: &[(usize, &str)], options: &InstrumentOptions) -> Result<usize> {
    match candidates {
        [] => Err(InstrumentError::NoComputeEntry {
            file: file(options),
        }),
        [(index, _)] => Ok(*index),
        many => Err(InstrumentError::AmbiguousEntry {
            file: file(options),
            names: many.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", "),
        }),
    }
}

fn find_entry(module: &Module, name: &str, options: &InstrumentOptions) -> Result<usize> {
    compute_entries(module)
        .find(|(_, n)| *n == name)
        .map(|(i, _)| i)
        .ok_or_else(|| InstrumentError::UnknownEntry {
            file: file(options),
            name: name.to_string(),
            available: compute_entries(module)
                .map(|(_, n)| n)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The application entry point: the named one, or the only compute entry point that is not
/// the postcondition.
pub(crate) fn application_entry(module: &Module, options: &InstrumentOptions) -> Result<usize> {
    if let Some(name) = &options.entry {
        return find_entry(module, name, options);
    }
    let candidates: Vec<_> = compute_entries(module)
        .filter(|(_, n)| Some(*n) != options.postcondition.as_deref())
        .collect();
    only(&candidates, options)
}

pub(crate) fn postcondition_entry(
    module: &Module,
    options: &InstrumentOptions,
    entry: usize,
) -> Result<Option<usize>> {
    let Some(name) = &options.postcondition else {
        return Ok(None);
    };
    let index = find_entry(module, name, options)?;
    if index == entry {
        return Err(InstrumentError::PostconditionIsEntry {
            file: file(options),
            name: name.clone(),
        });
    }
    Ok(Some(index))
}

/// The postcondition of a file that holds it alone (`InstrumentOptions::postcondition_only`).
pub(crate) fn postcondition_only(module: &Module, options: &InstrumentOptions) -> Result<usize> {
    match &options.postcondition {
        Some(name) => find_entry(module, name, options),
        None => only(&compute_entries(module).collect::<Vec<_>>(), options),
    }
}

/// The user's `fn wgstress_assert(cond: bool) {}`, if declared.
pub(crate) fn assert_hook(module: &Module, at: &Locator) -> Result<Option<Handle<Function>>> {
    let Some((handle, function)) = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(HOOK))
    else {
        return Ok(None);
    };
    let takes_bool = matches!(
        function.arguments.as_slice(),
        [arg] if matches!(module.types[arg.ty].inner, TypeInner::Scalar(naga::Scalar::BOOL))
    );
    let bad = |reason: &str| InstrumentError::BadAssertHook {
        reason: reason.into(),
        at: at.at(module.functions.get_span(handle)),
    };
    if !takes_bool {
        return Err(bad("it must take exactly one `bool`"));
    }
    if function.result.is_some() {
        return Err(bad("it must return nothing"));
    }
    Ok(Some(handle))
}
