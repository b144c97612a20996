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
//! Sites go into the functions the entry point calls too, where every call of the function
//! is in uniform control flow (a barrier there is then in uniform flow; its arguments count
//! as non-uniform).

mod analysis;
pub(crate) mod operands;
mod patch;
mod place;
mod results;
pub(crate) mod returns;
mod roles;
pub mod source;
mod split;
mod uniformity;

use crate::error::{Error, Result};
use crate::{names, render, validate, Options};
pub use analysis::{analyse, Analysis};
use naga::valid::ModuleInfo;
use naga::{AddressSpace, Expression, Function, Handle, Module};
pub use patch::{fenced_at, fenced_at_atomic, Patched};
pub use place::Side;
use place::Walker;
pub use roles::{Acquire, Added, Missing, Place, Portable, Release, Role, SiteRole};
pub use source::{AtomicEdit, SourceAnchor, SourcePatch, SplitAnchor, Unexpressible, Why};
use std::collections::{HashMap, HashSet};
use uniformity::Uniformity;

/// The most sites `fence_mask` in the params block can select.
pub const MAX_SITES: usize = 512;

/// One candidate site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceSite {
    pub id: u32,
    /// Before or after the access.
    pub side: Side,
    /// The function the site is in.
    pub function: String,
    /// The access's 1-based line and column in the source.
    pub line: u32,
    pub column: u32,
}

/// A storage access inside a loop that is not uniform inside (invocations leave it at
/// different times): WGSL allows no barrier between its accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InLoop {
    pub function: String,
    /// The loop's first storage access, 1-based.
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
    let (sites, _) = place(&mut module, &info, entry, source, None);
    let info = validate(&module).map_err(|e| Error::Internal(format!("{e:?}")))?;
    Ok(Fences {
        sites,
        all_fenced_wgsl: render(&module, &info, Some(source))?,
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
    let (sites, _) = place(module, &info, entry, source, Some(guard));
    if sites.len() > MAX_SITES {
        return Err(Error::TooManyFenceSites(sites.len()));
    }
    Ok(sites)
}

/// A function whose sites are placed.
#[derive(Clone, Copy)]
enum Target {
    Entry(usize),
    Function(Handle<Function>),
}

/// Places the sites of entry point `entry` and of every function it calls, directly or not,
/// that is only ever called in uniform control flow (its arguments taken as non-uniform),
/// and rewrites them in `module`. Sites are numbered in the entry point first, then callers
/// before callees. Also returns the storage accesses in loops where no site can go.
fn place(
    module: &mut Module,
    info: &ModuleInfo,
    entry: usize,
    source: &str,
    guard: Option<Handle<Function>>,
) -> (Vec<FenceSite>, Vec<InLoop>) {
    let storage = storage_functions(module);
    let results = results::results(module);
    let mut types = module.types.clone();
    let mut uniform_calls: HashMap<Handle<Function>, bool> = HashMap::new();
    let entry_function = &module.entry_points[entry].function;
    let mut walked = fixed_point(
        module,
        &types,
        entry_function,
        info.get_entry_point(entry),
        &storage,
        &results,
        guard,
    );
    note(&walked.calls, &mut uniform_calls);
    // A function another entry point (the postcondition) calls gets no sites: its calls
    // there were never checked for uniformity.
    for (index, other) in module.entry_points.iter().enumerate() {
        if index != entry {
            let mut calls = Vec::new();
            calls_in(&other.function.body, &mut calls);
            note(&calls, &mut uniform_calls);
        }
    }
    // Each walk may add types (for split variables); the next starts from them.
    types = std::mem::take(&mut walked.types);
    let mut placed = vec![(Target::Entry(entry), walked)];
    // Callers come after their callees in the arena: in reverse, every call of a function is
    // known before the function is looked at.
    for (handle, function) in module.functions.iter().rev() {
        match uniform_calls.get(&handle) {
            None => {}
            Some(false) => {
                let mut calls = Vec::new();
                calls_in(&function.body, &mut calls);
                note(&calls, &mut uniform_calls);
            }
            Some(true) => {
                let mut walked = fixed_point(
                    module,
                    &types,
                    function,
                    &info[handle],
                    &storage,
                    &results,
                    guard,
                );
                note(&walked.calls, &mut uniform_calls);
                types = std::mem::take(&mut walked.types);
                placed.push((Target::Function(handle), walked));
            }
        }
    }
    module.types = types;
    let mut sites = Vec::new();
    let mut in_loops = Vec::new();
    for (target, walked) in placed {
        let function = match target {
            Target::Entry(index) => &mut module.entry_points[index].function,
            Target::Function(handle) => &mut module.functions[handle],
        };
        walked.apply(function, source, &mut sites, &mut in_loops);
    }
    (sites, in_loops)
}

/// Notes the calls a walk saw: a function stays uniformly called while every call is.
fn note(calls: &[(Handle<Function>, bool)], map: &mut HashMap<Handle<Function>, bool>) {
    for (function, uniform) in calls {
        *map.entry(*function).or_insert(true) &= *uniform;
    }
}

/// Every call in `block`, as made in non-uniform control flow.
fn calls_in(block: &naga::Block, calls: &mut Vec<(Handle<Function>, bool)>) {
    for statement in block.iter() {
        if let naga::Statement::Call { function, .. } = statement {
            calls.push((*function, false));
        }
        crate::walk::nested_blocks_ref(statement, |inner| calls_in(inner, calls));
    }
}

/// A function rewritten with a barrier at every site, and the sites.
struct Walked {
    body: naga::Block,
    sites: Vec<place::Placed>,
    expressions: naga::Arena<Expression>,
    locals: naga::Arena<naga::LocalVariable>,
    types: naga::UniqueArena<naga::Type>,
    calls: Vec<(Handle<Function>, bool)>,
    in_loops: Vec<naga::Span>,
}

impl Walked {
    /// Puts the rewritten function in place of `function`, numbering its sites after `sites`.
    fn apply(
        mut self,
        function: &mut Function,
        source: &str,
        sites: &mut Vec<FenceSite>,
        in_loops: &mut Vec<InLoop>,
    ) {
        let name = function.name.clone().unwrap_or_default();
        for span in &self.in_loops {
            let location = span.location(source);
            in_loops.push(InLoop {
                function: name.clone(),
                line: location.line_number,
                column: location.line_position,
            });
        }
        for p in &self.sites {
            let id = sites.len() as u32;
            if let Some(number) = p.number {
                self.expressions[number] = Expression::Literal(naga::Literal::U32(id));
            }
            let location = p.access.location(source);
            sites.push(FenceSite {
                id,
                side: p.side,
                function: name.clone(),
                line: location.line_number,
                column: location.line_position,
            });
        }
        function.body = self.body;
        function.expressions = self.expressions;
        function.local_variables = self.locals;
    }
}

/// Walks the entry point until its set of non-uniform locals stops growing: a local written
/// in non-uniform flow makes more values and branches non-uniform, which may taint more.
fn fixed_point(
    module: &Module,
    types: &naga::UniqueArena<naga::Type>,
    function: &Function,
    info: &naga::valid::FunctionInfo,
    storage_functions: &HashSet<Handle<Function>>,
    results: &results::Results,
    guard: Option<Handle<Function>>,
) -> Walked {
    let mut body = function.body.clone();
    if function.result.is_none() {
        returns::hoist(&mut body);
    }
    let mut non_uniform = HashSet::new();
    let mut uniformity = Uniformity::new(module, function, results);
    loop {
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
            types: types.clone(),
            guard,
            calls: Vec::new(),
            in_loops: Vec::new(),
        };
        let (body, _) = walker.block(&body, true);
        non_uniform.extend(walker.tainted.iter().copied());
        if uniformity.non_uniform_locals == non_uniform {
            return Walked {
                body,
                sites: walker.sites,
                expressions: walker.expressions,
                locals: walker.locals,
                types: walker.types,
                calls: walker.calls,
                in_loops: walker.in_loops,
            };
        }
    }
}

/// Functions that name a storage variable, themselves or through a callee. Callees come
/// before their callers in naga's arena, so one pass in order sees every callee first.
pub(crate) fn storage_functions(module: &Module) -> HashSet<Handle<Function>> {
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
        crate::walk::nested_blocks_ref(statement, |inner| nested |= calls_any(inner, set));
        nested
            || matches!(statement, naga::Statement::Call { function, .. } if set.contains(function))
    })
}
