//! Placing the sites of a module: the whole module analyzed for uniformity, then the
//! application's entry point and every function it calls (directly or not) walked for
//! sites, and the sites numbered and written back.

use super::place::{Placed, Walker};
use super::returns;
use super::site::{FenceSite, InLoop};
use super::uniformity::{ModuleUniformity, Target};
use crate::ir::memory::writable_storage;
use crate::wgsl::lines::LineIndex;
use naga::valid::ModuleInfo;
use naga::{Block, Expression, Function, Handle, Module};
use std::collections::{HashMap, HashSet};

/// Places the sites of entry point `entry` and of the functions it calls, and rewrites them
/// in `module` with a barrier at every site (a call of `marker` numbered as the site, with
/// one). Sites are numbered in the entry point first, then in callers before callees, each
/// function's in the order of its code. Also returns the storage accesses in loops where no
/// site can go.
pub(crate) fn place(
    module: &mut Module,
    info: &ModuleInfo,
    entry: usize,
    source: &str,
    marker: Option<Handle<Function>>,
) -> (Vec<FenceSite>, Vec<InLoop>) {
    let bodies = bodies(module);
    let uniformity = ModuleUniformity::new(module, |target| &bodies[&target]);
    let storage = storage_functions(module);
    let mut targets = vec![Target::Entry(entry)];
    let called = called_from(&uniformity, entry);
    // Callers come after their callees in the arena: in reverse, callers first.
    targets.extend(
        module
            .functions
            .iter()
            .rev()
            .filter(|(handle, _)| called.contains(handle))
            .map(|(handle, _)| Target::Function(handle)),
    );
    let mut types = module.types.clone();
    let mut walked = Vec::new();
    for target in targets {
        let (function, function_info) = match target {
            Target::Entry(index) => (
                &module.entry_points[index].function,
                info.get_entry_point(index),
            ),
            Target::Function(handle) => (&module.functions[handle], &info[handle]),
        };
        let mut walker = Walker {
            module,
            function,
            info: function_info,
            context: uniformity.context(target),
            storage_functions: &storage,
            sites: Vec::new(),
            expressions: function.expressions.clone(),
            locals: function.local_variables.clone(),
            types,
            marker,
            in_loops: Vec::new(),
            path: Vec::new(),
            last_access: None,
            loop_accesses: Vec::new(),
        };
        let positions = &uniformity.analysis(target).body;
        let body = walker.body(&bodies[&target], positions);
        types = std::mem::take(&mut walker.types);
        walked.push((
            target,
            Walked {
                body,
                sites: walker.sites,
                expressions: walker.expressions,
                locals: walker.locals,
                in_loops: walker.in_loops,
            },
        ));
    }
    module.types = types;
    let lines = LineIndex::new(source);
    let mut sites = Vec::new();
    let mut in_loops = Vec::new();
    for (target, walked) in walked {
        let function = match target {
            Target::Entry(index) => &mut module.entry_points[index].function,
            Target::Function(handle) => &mut module.functions[handle],
        };
        walked.apply(function, &lines, &mut sites, &mut in_loops);
    }
    (sites, in_loops)
}

/// Every function's body as the analysis and the walk see it: a function that returns
/// nothing with its branches' trailing returns moved after them (returns.rs).
pub(crate) fn bodies(module: &Module) -> HashMap<Target, Block> {
    let prepared = |function: &Function| {
        let mut body = function.body.clone();
        if function.result.is_none() {
            returns::hoist(&mut body);
        }
        body
    };
    let functions = module
        .functions
        .iter()
        .map(|(handle, function)| (Target::Function(handle), prepared(function)));
    let entries = module
        .entry_points
        .iter()
        .enumerate()
        .map(|(index, entry)| (Target::Entry(index), prepared(&entry.function)));
    functions.chain(entries).collect()
}

/// The functions entry point `entry` calls, directly or not, from code it can reach.
fn called_from(uniformity: &ModuleUniformity, entry: usize) -> HashSet<Handle<Function>> {
    let mut called = HashSet::new();
    let mut pending = vec![Target::Entry(entry)];
    while let Some(target) = pending.pop() {
        for call in &uniformity.analysis(target).calls {
            if called.insert(call.callee) {
                pending.push(Target::Function(call.callee));
            }
        }
    }
    called
}

/// A function rewritten with a barrier at every site, and the sites.
struct Walked {
    body: Block,
    sites: Vec<Placed>,
    expressions: naga::Arena<Expression>,
    locals: naga::Arena<naga::LocalVariable>,
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
        for p in self.sites {
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
                point: p.point,
            });
        }
        function.body = self.body;
        function.expressions = self.expressions;
        function.local_variables = self.locals;
    }
}

/// Functions that touch storage the dispatch can write, themselves (a variable, or a
/// pointer parameter into such storage) or through a callee. Callees come before their
/// callers in naga's arena, so one pass in order sees every callee first.
pub(crate) fn storage_functions(module: &Module) -> HashSet<Handle<Function>> {
    let mut found = HashSet::new();
    for (handle, function) in module.functions.iter() {
        let named = function.expressions.iter().any(|(_, e)| match e {
            Expression::GlobalVariable(g) => writable_storage(module.global_variables[*g].space),
            Expression::CallResult(f) => found.contains(f),
            _ => false,
        });
        let pointer = (0..function.arguments.len() as u32).any(|index| {
            crate::ir::memory::argument_space(module, function, index).is_some_and(writable_storage)
        });
        let calls = crate::ir::walk::any_statement(
            &function.body,
            &|statement| matches!(statement, naga::Statement::Call { function, .. } if found.contains(function)),
        );
        if named || pointer || calls {
            found.insert(handle);
        }
    }
    found
}
