//! Checks on the user's names: entry points, the assertion hook, the reserved prefix.

use crate::error::{Error, Location, Result};
use crate::locate::Locator;
use crate::options::Options;
use crate::shader::is_compute;
use naga::{Function, Handle, Module, TypeInner};

const PREFIX: &str = "wgstress_";
const HOOK: &str = "wgstress_assert";

/// The user may name nothing with the instrumenter's prefix, except the hook itself.
pub fn check_reserved(module: &Module, at: &Locator) -> Result<()> {
    let mut names: Vec<(&str, Location)> = Vec::new();
    for (h, t) in module.types.iter() {
        names.extend(
            t.name
                .as_deref()
                .map(|n| (n, at.at(module.types.get_span(h)))),
        );
    }
    for (h, c) in module.constants.iter() {
        names.extend(
            c.name
                .as_deref()
                .map(|n| (n, at.at(module.constants.get_span(h)))),
        );
    }
    for (h, o) in module.overrides.iter() {
        names.extend(
            o.name
                .as_deref()
                .map(|n| (n, at.at(module.overrides.get_span(h)))),
        );
    }
    for (h, g) in module.global_variables.iter() {
        let span = module.global_variables.get_span(h);
        names.extend(g.name.as_deref().map(|n| (n, at.at(span))));
    }
    for entry in &module.entry_points {
        names.push((entry.name.as_str(), at.entry(&entry.function)));
    }
    for (h, function) in module.functions.iter() {
        let span = module.functions.get_span(h);
        names.extend(
            function
                .name
                .as_deref()
                .filter(|n| *n != HOOK)
                .map(|n| (n, at.at(span))),
        );
    }
    let bodies = module.functions.iter().map(|(_, f)| f);
    for function in bodies.chain(module.entry_points.iter().map(|e| &e.function)) {
        for (h, l) in function.local_variables.iter() {
            let span = function.local_variables.get_span(h);
            names.extend(l.name.as_deref().map(|n| (n, at.at(span))));
        }
    }
    match names
        .into_iter()
        .find(|(n, _)| n.to_ascii_lowercase().starts_with(PREFIX))
    {
        Some((name, at)) => Err(Error::NameClash {
            name: name.to_string(),
            at,
        }),
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

/// The postcondition of a file that holds it alone (`Options::postcondition_only`).
pub fn postcondition_only(module: &Module, options: &Options) -> Result<usize> {
    match &options.postcondition {
        Some(name) => find_entry(module, name),
        None => {
            let all: Vec<_> = compute_entries(module).collect();
            match all.as_slice() {
                [] => Err(Error::NoComputeEntry),
                [(index, _)] => Ok(*index),
                many => Err(Error::AmbiguousEntry(
                    many.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", "),
                )),
            }
        }
    }
}

/// The user's `fn wgstress_assert(cond: bool) {}`, if declared.
pub fn assert_hook(module: &Module, at: &Locator) -> Result<Option<Handle<Function>>> {
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
    let bad = |reason: &str| Error::BadAssertHook {
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
