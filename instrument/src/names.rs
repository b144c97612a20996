//! Checks on the user's names: entry points, the assertion hook, the reserved prefix.

use crate::error::{Error, Result};
use crate::{is_compute, Options};
use naga::{Function, Handle, Module, TypeInner};

const PREFIX: &str = "wgstress_";
const HOOK: &str = "wgstress_assert";

/// The user may name nothing with the instrumenter's prefix, except the hook itself.
pub fn check_reserved(module: &Module) -> Result<()> {
    let mut names: Vec<&str> = Vec::new();
    names.extend(module.types.iter().filter_map(|(_, t)| t.name.as_deref()));
    names.extend(
        module
            .constants
            .iter()
            .filter_map(|(_, c)| c.name.as_deref()),
    );
    names.extend(
        module
            .overrides
            .iter()
            .filter_map(|(_, o)| o.name.as_deref()),
    );
    names.extend(
        module
            .global_variables
            .iter()
            .filter_map(|(_, g)| g.name.as_deref()),
    );
    names.extend(module.entry_points.iter().map(|e| e.name.as_str()));
    let functions = module.functions.iter().map(|(_, f)| f);
    for function in functions.chain(module.entry_points.iter().map(|e| &e.function)) {
        names.extend(function.name.as_deref().filter(|n| *n != HOOK));
        names.extend(
            function
                .local_variables
                .iter()
                .filter_map(|(_, l)| l.name.as_deref()),
        );
    }
    match names
        .into_iter()
        .find(|n| n.to_ascii_lowercase().starts_with(PREFIX))
    {
        Some(name) => Err(Error::NameClash(name.to_string())),
        None => Ok(()),
    }
}

fn compute_entries(module: &Module) -> impl Iterator<Item = (usize, &str)> {
    module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| is_compute(e.stage))
        .map(|(i, e)| (i, e.name.as_str()))
}

fn find_entry(module: &Module, name: &str) -> Result<usize> {
    compute_entries(module)
        .find(|(_, n)| *n == name)
        .map(|(i, _)| i)
        .ok_or_else(|| Error::UnknownEntry {
            name: name.to_string(),
            available: compute_entries(module)
                .map(|(_, n)| n)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The application entry point: the named one, or the only compute entry point that is not
/// the postcondition.
pub fn application_entry(module: &Module, options: &Options) -> Result<usize> {
    if let Some(name) = &options.entry {
        return find_entry(module, name);
    }
    let candidates: Vec<_> = compute_entries(module)
        .filter(|(_, n)| Some(*n) != options.postcondition.as_deref())
        .collect();
    match candidates.as_slice() {
        [] => Err(Error::NoComputeEntry),
        [(index, _)] => Ok(*index),
        many => Err(Error::AmbiguousEntry(
            many.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", "),
        )),
    }
}

pub fn postcondition_entry(
    module: &Module,
    options: &Options,
    entry: usize,
) -> Result<Option<usize>> {
    let Some(name) = &options.postcondition else {
        return Ok(None);
    };
    let index = find_entry(module, name)?;
    if index == entry {
        return Err(Error::PostconditionIsEntry(name.clone()));
    }
    Ok(Some(index))
}

/// The user's `fn wgstress_assert(cond: bool) {}`, if declared.
pub fn assert_hook(module: &Module) -> Result<Option<Handle<Function>>> {
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
    if !takes_bool {
        return Err(Error::BadAssertHook(
            "it must take exactly one `bool`".into(),
        ));
    }
    if function.result.is_some() {
        return Err(Error::BadAssertHook("it must return nothing".into()));
    }
    Ok(Some(handle))
}
