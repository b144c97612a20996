//! Placing the sites of a module: which functions get sites, each walked until its
//! uniformity settles, then numbered and written back.

use super::place::{self, Walker};
use super::results;
use super::returns;
use super::site::{FenceSite, InLoop};
use super::uniformity::Uniformity;
use crate::lines::LineIndex;
use naga::valid::ModuleInfo;
use naga::{AddressSpace, Expression, Function, Handle, Module};
use std::collections::{HashMap, HashSet};

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
pub fn place(
    module: &mut Module,
    info: &ModuleInfo,
    entry: usize,
    source: &str,
    marker: Option<Handle<Function>>,
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
        marker,
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
                    marker,
                );
                note(&walked.calls, &mut uniform_calls);
                types = std::mem::take(&mut walked.types);
                placed.push((Target::Function(handle), walked));
            }
        }
    }
    module.types = types;
    let lines = LineIndex::new(source);
    let mut sites = Vec::new();
    let mut in_loops = Vec::new();
    for (target, walked) in placed {
        let function = match target {
            Target::Entry(index) => &mut module.entry_points[index].function,
            Target::Function(handle) => &mut module.functions[handle],
        };
        walked.apply(function, &lines, &mut sites, &mut in_loops);
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
    crate::walk::each_statement(block, &mut |statement| {
        if let naga::Statement::Call { function, .. } = statement {
            calls.push((*function, false));
        }
    });
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
        lines: &LineIndex,
        sites: &mut Vec<FenceSite>,
        in_loops: &mut Vec<InLoop>,
    ) {
        let name = function.name.clone().unwrap_or_default();
        for span in &self.in_loops {
            let (line, column) = lines.position(*span);
            in_loops.push(InLoop {
                function: name.clone(),
                line,
                column,
            });
        }
        for p in &self.sites {
            let id = sites.len() as u32;
            if let Some(number) = p.number {
                self.expressions[number] = Expression::Literal(naga::Literal::U32(id));
            }
            let (line, column) = lines.position(p.access);
            sites.push(FenceSite {
                id,
                side: p.side,
                function: name.clone(),
                line,
                column,
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
    marker: Option<Handle<Function>>,
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
            marker,
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
    crate::walk::any_statement(
        block,
        &|statement| matches!(statement, naga::Statement::Call { function, .. } if set.contains(function)),
    )
}
