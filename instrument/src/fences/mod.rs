//! Candidate fence sites: where a `storageBarrier()` could go in the application's entry
//! point, so a search can learn which fences an application needs.
//!
//! A site sits before and after every statement of the entry point that touches storage
//! memory (a load, a store, an atomic, a call of a function that names a storage variable),
//! at a point in uniform control flow, so that the barrier is valid for Tint as well as for
//! naga (see place.rs for the rules, uniformity.rs for what counts as uniform). Accesses in
//! non-uniform control flow get their sites at the nearest enclosing uniform point, around
//! the whole branch or loop.
//!
//! A non-uniform branch with an empty other side is split around the sites between its
//! accesses (split.rs).
//!
//! For a search over fences, `instrument_fenced` instruments the application with a guarded
//! barrier at every site (`wgstress_fence(k)`: a storage barrier when bit k of the params'
//! `fence_mask` is set), so one compiled pipeline runs any set of fences.
//!
//! Not yet: sites inside callees.

mod operands;
mod place;
mod returns;
mod split;
mod uniformity;

use crate::error::{Error, Result};
use crate::{names, render, validate, Options};
use naga::{AddressSpace, Expression, Function, Handle, Module};
pub use place::Side;
use place::Walker;
use std::collections::HashSet;
use uniformity::Uniformity;

/// The most sites `fence_mask` in the params block can select.
pub const MAX_SITES: usize = 512;

/// One candidate site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceSite {
    pub id: u32,
    /// Before or after the access.
    pub side: Side,
    /// The access's 1-based line and column in the source.
    pub line: u32,
    pub column: u32,
}

/// The candidate sites of an application, and its source with a barrier at every one.
pub struct Fences {
    pub sites: Vec<FenceSite>,
    /// The application's module with a `storageBarrier()` at every site, as WGSL.
    pub all_fenced_wgsl: String,
}

/// Finds the candidate sites of the application entry point of `source`.
pub fn fences(source: &str, options: &Options) -> Result<Fences> {
    let path = options.file_name.as_deref().unwrap_or("shader.wgsl");
    let mut module = crate::parse(source, path)?;
    let info = crate::validate_user(&module, Some(source), path)?;
    let mut options = options.clone();
    if options.postcondition.is_none() {
        options.postcondition = crate::postcondition_directive(source);
    }
    let entry = names::application_entry(&module, &options)?;
    let storage_functions = storage_functions(&module);
    let function = &module.entry_points[entry].function;
    let walked = fixed_point(
        &module,
        function,
        info.get_entry_point(entry),
        &storage_functions,
        None,
    );
    let sites = walked.apply(&mut module, entry, source);
    let info = validate(&module).map_err(|e| Error::Internal(format!("{e:?}")))?;
    Ok(Fences {
        sites,
        all_fenced_wgsl: render(&module, &info)?,
    })
}

/// An application instrumented with a guarded barrier at every candidate fence site.
pub struct Fenced {
    pub instrumented: crate::Instrumented,
    /// The sites, numbered as the bits of `fence_mask` and as `fences` numbers them.
    pub sites: Vec<FenceSite>,
}

/// Instruments `source` as `instrument_wgsl` does, plus a call of `wgstress_fence(k)` at
/// every candidate fence site k: each run's `fence_mask` picks the sites that fence.
pub fn instrument_fenced(source: &str, options: &Options) -> Result<Fenced> {
    let (instrumented, sites) = crate::instrument_source(source, options, true)?;
    Ok(Fenced {
        instrumented,
        sites,
    })
}

/// Puts a call of `guard` at every site of entry point `entry` of `module` (the user's
/// module with the library imported, before any other rewriting).
pub(crate) fn guard_sites(
    module: &mut Module,
    entry: usize,
    source: &str,
    guard: Handle<Function>,
) -> Result<Vec<FenceSite>> {
    let info = validate(module).map_err(|e| Error::Internal(format!("{e:?}")))?;
    let storage_functions = storage_functions(module);
    let function = &module.entry_points[entry].function;
    let walked = fixed_point(
        module,
        function,
        info.get_entry_point(entry),
        &storage_functions,
        Some(guard),
    );
    if walked.sites.len() > MAX_SITES {
        return Err(Error::TooManyFenceSites(walked.sites.len()));
    }
    Ok(walked.apply(module, entry, source))
}

/// The entry point rewritten with a barrier at every site, and the sites.
struct Walked {
    body: naga::Block,
    sites: Vec<place::Placed>,
    expressions: naga::Arena<Expression>,
    locals: naga::Arena<naga::LocalVariable>,
    types: naga::UniqueArena<naga::Type>,
}

impl Walked {
    /// Puts the rewritten entry point into `module`; the sites with their source positions.
    fn apply(self, module: &mut Module, entry: usize, source: &str) -> Vec<FenceSite> {
        let sites = self
            .sites
            .iter()
            .enumerate()
            .map(|(id, p)| {
                let location = p.access.location(source);
                FenceSite {
                    id: id as u32,
                    side: p.side,
                    line: location.line_number,
                    column: location.line_position,
                }
            })
            .collect();
        let function = &mut module.entry_points[entry].function;
        function.body = self.body;
        function.expressions = self.expressions;
        function.local_variables = self.locals;
        module.types = self.types;
        sites
    }
}

/// Walks the entry point until its set of non-uniform locals stops growing: a local written
/// in non-uniform flow makes more values and branches non-uniform, which may taint more.
fn fixed_point(
    module: &Module,
    function: &Function,
    info: &naga::valid::FunctionInfo,
    storage_functions: &HashSet<Handle<Function>>,
    guard: Option<Handle<Function>>,
) -> Walked {
    let mut body = function.body.clone();
    returns::hoist(&mut body);
    let mut non_uniform = HashSet::new();
    loop {
        let mut uniformity = Uniformity::new(module, function);
        uniformity.non_uniform_locals = non_uniform.clone();
        for (handle, local) in function.local_variables.iter() {
            if local.init.is_some_and(|init| !uniformity.is_uniform(init)) {
                non_uniform.insert(handle);
            }
        }
        let mut walker = Walker {
            uniformity: &uniformity,
            function,
            info,
            storage_functions,
            sites: Vec::new(),
            tainted: HashSet::new(),
            expressions: function.expressions.clone(),
            locals: function.local_variables.clone(),
            types: module.types.clone(),
            guard,
        };
        let (body, _) = walker.block(&body, true);
        non_uniform.extend(walker.tainted.iter().copied());
        if uniformity.non_uniform_locals == non_uniform {
            walker.number_sites();
            return Walked {
                body,
                sites: walker.sites,
                expressions: walker.expressions,
                locals: walker.locals,
                types: walker.types,
            };
        }
    }
}

/// Functions that name a storage variable, themselves or through a callee. Callees come
/// before their callers in naga's arena, so one pass in order sees every callee first.
fn storage_functions(module: &Module) -> HashSet<Handle<Function>> {
    let mut found = HashSet::new();
    for (handle, function) in module.functions.iter() {
        let touches = function.expressions.iter().any(|(_, e)| match e {
            Expression::GlobalVariable(g) => matches!(
                module.global_variables[*g].space,
                AddressSpace::Storage { .. }
            ),
            Expression::CallResult(f) => found.contains(f),
            _ => false,
        }) || calls_any(&function.body, &found);
        if touches {
            found.insert(handle);
        }
    }
    found
}

fn calls_any(block: &naga::Block, set: &HashSet<Handle<Function>>) -> bool {
    block.iter().any(|statement| {
        let mut nested = false;
        let mut statement = statement.clone();
        crate::walk::nested_blocks(&mut statement, |inner| nested |= calls_any(inner, set));
        nested || matches!(&statement, naga::Statement::Call { function, .. } if set.contains(function))
    })
}
