//! Pointer parameters to storage, uniform and workgroup memory (WGSL's
//! `unrestricted_pointer_parameters`, which Tint accepts): naga 30 parses them, but its
//! validator, and so wgpu, refuses them. Each function that takes one is specialized for
//! every memory view its callers pass: the copy names the global variable the pointer points
//! into, and takes the dynamic indices on the way to it as `u32`/`i32` parameters in the
//! pointer's place (`f(&buf[i].items[j])` calls `f(i, j)`, whose body indexes `buf`
//! itself). A specialization that passes its pointer on is specialized in turn; the
//! originals go, and the functions are ordered callees first again.
//!
//! What this cannot rewrite (a pointer that does not come from a global variable) is left
//! as it was, for naga's validator to report.

use crate::ir::reorder::{self, Move};
use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{
    AddressSpace, Arena, Block, Expression, Function, FunctionArgument, GlobalVariable, Handle,
    Module, Range, Scalar, Span, Statement, Type, TypeInner,
};
use std::collections::HashMap;

/// One step from a global variable to the memory a pointer views.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Step {
    /// A struct member, or a constant index.
    Member(u32),
    /// An index known only at run time, of this scalar type.
    Index(Scalar),
}

/// Where a pointer argument points: a global variable and the steps into it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Path {
    root: Handle<GlobalVariable>,
    steps: Vec<Step>,
}

/// A function and the path of each of its restricted pointer parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    function: Handle<Function>,
    paths: Vec<Path>,
}

/// Rewrites every call that passes a storage, uniform or workgroup pointer (see the module
/// documentation). Returns whether the module had such parameters.
pub(crate) fn specialize(module: &mut Module) -> bool {
    let restricted: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|(_, f)| restricted_params(module, f))
        .collect();
    if restricted.iter().all(Vec::is_empty) {
        return false;
    }
    let mut pass = Pass {
        restricted,
        specs: HashMap::new(),
        originals: module.functions.len(),
    };
    let plain: Vec<Handle<Function>> = module
        .functions
        .iter()
        .filter(|(h, _)| pass.restricted[h.index()].is_empty())
        .map(|(h, _)| h)
        .collect();
    for handle in plain {
        let mut function = std::mem::take(&mut module.functions[handle]);
        pass.rewrite_calls(module, &mut function);
        module.functions[handle] = function;
    }
    for index in 0..module.entry_points.len() {
        let mut function = std::mem::take(&mut module.entry_points[index].function);
        pass.rewrite_calls(module, &mut function);
        module.entry_points[index].function = function;
    }
    reorder_functions(module, &pass);
    true
}

struct Pass {
    /// For each original function, the indices of its restricted pointer parameters.
    restricted: Vec<Vec<usize>>,
    specs: HashMap<Key, Handle<Function>>,
    /// Functions before the specializations were appended.
    originals: usize,
}

impl Pass {
    /// Points every call of `function` that passes restricted pointers at the callee's
    /// specialization for them, making it (and what it calls) where it does not exist yet.
    fn rewrite_calls(&mut self, module: &mut Module, function: &mut Function) {
        let calls = self.calls_to_rewrite(module, function);
        if calls.iter().all(Option::is_none) {
            return;
        }
        let mut targets = Vec::new();
        for call in calls {
            targets.push(call.map(|(key, args)| (self.specialization(module, &key), args)));
        }
        let mut targets = targets.into_iter();
        retarget_block(&mut function.body, &mut function.expressions, &mut || {
            targets.next().flatten()
        });
    }

    /// For each call of `function`, in the order of `collect_calls`: for one that passes
    /// restricted pointers, all from global variables, the key of the specialization it
    /// needs and its new arguments.
    fn calls_to_rewrite(
        &self,
        module: &Module,
        function: &Function,
    ) -> Vec<Option<(Key, Vec<Handle<Expression>>)>> {
        let mut typifier = Typifier::new();
        let ctx =
            ResolveContext::with_locals(module, &function.local_variables, &function.arguments);
        let mut calls = Vec::new();
        collect_calls(&function.body, &mut calls);
        calls
            .into_iter()
            .map(|(callee, arguments)| {
                let params = self.restricted.get(callee.index())?;
                if params.is_empty() {
                    return None;
                }
                let mut paths = Vec::new();
                let mut dynamic = Vec::new();
                for &param in params {
                    let (path, indices) =
                        path_of(function, *arguments.get(param)?, &mut typifier, &ctx)?;
                    paths.push(path);
                    dynamic.extend(indices);
                }
                let mut new_args: Vec<Handle<Expression>> = arguments
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !params.contains(i))
                    .map(|(_, a)| *a)
                    .collect();
                new_args.extend(dynamic);
                let key = Key {
                    function: callee,
                    paths,
                };
                Some((key, new_args))
            })
            .collect()
    }

    /// The specialization of `key`, made now if it does not exist yet.
    fn specialization(&mut self, module: &mut Module, key: &Key) -> Handle<Function> {
        if let Some(spec) = self.specs.get(key) {
            return *spec;
        }
        let mut function = specialized(module, key, &self.restricted[key.function.index()]);
        // Its own calls may pass the pointer on: specialize those first (callees first).
        self.rewrite_calls(module, &mut function);
        let span = module.functions.get_span(key.function);
        let handle = module.functions.append(function, span);
        self.specs.insert(key.clone(), handle);
        handle
    }
}

/// The indices of `function`'s parameters that are pointers naga refuses.
fn restricted_params(module: &Module, function: &Function) -> Vec<usize> {
    function
        .arguments
        .iter()
        .enumerate()
        .filter(|(_, a)| {
            matches!(
                module.types.get_handle(a.ty).map(|t| &t.inner),
                Ok(TypeInner::Pointer { space, .. } | TypeInner::ValuePointer { space, .. })
                    if matches!(space, AddressSpace::Storage { .. } | AddressSpace::Uniform | AddressSpace::WorkGroup)
            )
        })
        .map(|(i, _)| i)
        .collect()
}

/// Every call in `block`, nested ones included: the callee and its arguments.
fn collect_calls(block: &Block, out: &mut Vec<(Handle<Function>, Vec<Handle<Expression>>)>) {
    for statement in block.iter() {
        if let Statement::Call {
            function,
            arguments,
            ..
        } = statement
        {
            out.push((*function, arguments.clone()));
        }
        crate::ir::walk::nested_blocks_ref(statement, |inner| collect_calls(inner, out));
    }
}

/// The path of pointer `arg` from its global variable, and its dynamic indices in order.
fn path_of(
    function: &Function,
    arg: Handle<Expression>,
    typifier: &mut Typifier,
    ctx: &ResolveContext,
) -> Option<(Path, Vec<Handle<Expression>>)> {
    let mut steps = Vec::new();
    let mut indices = Vec::new();
    let mut at = arg;
    loop {
        match *function.expressions.try_get(at).ok()? {
            Expression::GlobalVariable(root) => {
                steps.reverse();
                indices.reverse();
                return Some((Path { root, steps }, indices));
            }
            Expression::AccessIndex { base, index } => {
                steps.push(Step::Member(index));
                at = base;
            }
            Expression::Access { base, index } => {
                typifier.grow(index, &function.expressions, ctx).ok()?;
                let TypeInner::Scalar(scalar) = *typifier.get(index, ctx.types) else {
                    return None;
                };
                steps.push(Step::Index(scalar));
                indices.push(index);
                at = base;
            }
            _ => return None,
        }
    }
}

/// A copy of `key.function` whose restricted parameters (`params`) are gone: the pointer
/// each held is rebuilt from its global variable at the top of the body, from parameters
/// for its dynamic indices appended to the others.
fn specialized(module: &mut Module, key: &Key, params: &[usize]) -> Function {
    let mut function = module.functions[key.function].clone();
    let kept: Vec<usize> = (0..function.arguments.len())
        .filter(|i| !params.contains(i))
        .collect();
    let mut arguments: Vec<FunctionArgument> = kept
        .iter()
        .map(|&i| function.arguments[i].clone())
        .collect();
    // Each restricted parameter's chain, with the argument numbers of its indices.
    let mut chains = HashMap::new();
    for (&param, path) in params.iter().zip(&key.paths) {
        let name = function.arguments[param].name.clone().unwrap_or_default();
        let mut index_args = Vec::new();
        for (n, step) in path.steps.iter().enumerate() {
            if let Step::Index(scalar) = step {
                let ty = module.types.insert(
                    Type {
                        name: None,
                        inner: TypeInner::Scalar(*scalar),
                    },
                    Span::UNDEFINED,
                );
                index_args.push(arguments.len() as u32);
                arguments.push(FunctionArgument {
                    name: Some(format!("{name}_index{n}")),
                    ty,
                    binding: None,
                });
            }
        }
        chains.insert(param as u32, (path.clone(), index_args));
    }
    function.arguments = arguments;
    let mut moves = Vec::new();
    let mut slots = Vec::new();
    let handles: Vec<Handle<Expression>> = function.expressions.iter().map(|(h, _)| h).collect();
    for slot in handles {
        let Expression::FunctionArgument(old) = function.expressions[slot] else {
            continue;
        };
        if let Some((path, index_args)) = chains.get(&old) {
            let span = function.expressions.get_span(slot);
            let start = function.expressions.len();
            let last = chain(&mut function.expressions, path, index_args, span);
            let group = start..function.expressions.len();
            function.expressions[slot] = last;
            slots.push(slot);
            if !group.is_empty() {
                moves.push(Move {
                    group,
                    before: slot,
                });
            }
        } else {
            // An argument past the list (an invalid module) stays, for the validator.
            if let Some(new) = kept.iter().position(|&k| k == old as usize) {
                function.expressions[slot] = Expression::FunctionArgument(new as u32);
            }
        }
    }
    let new_of = reorder::place_before(&mut function, &moves);
    // The chains' accesses run first in the body: their operands are the global, constants
    // and the new parameters.
    let mut head = Block::new();
    for slot in slots {
        let slot = new_of[slot.index()];
        let first = first_access(&function.expressions, slot);
        if let Some(first) = first {
            head.push(
                Statement::Emit(Range::new_from_bounds(first, slot)),
                Span::UNDEFINED,
            );
        }
    }
    let body = std::mem::take(&mut function.body);
    head.extend_block(body);
    function.body = head;
    function
}

/// Appends the chain of `path` but its last link, and returns the last link (to go in the
/// parameter's slot): the global variable itself for an empty path. The index arguments
/// come first, so that the accesses after the global are one range to emit.
fn chain(
    expressions: &mut Arena<Expression>,
    path: &Path,
    index_args: &[u32],
    span: Span,
) -> Expression {
    let mut indices: Vec<Handle<Expression>> = index_args
        .iter()
        .map(|arg| expressions.append(Expression::FunctionArgument(*arg), span))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let mut link = Expression::GlobalVariable(path.root);
    for step in &path.steps {
        let base = expressions.append(link, span);
        link = match step {
            Step::Member(index) => Expression::AccessIndex {
                base,
                index: *index,
            },
            Step::Index(_) => Expression::Access {
                base,
                index: indices.pop().expect("an argument per dynamic index"),
            },
        };
    }
    link
}

/// The first access of the chain that ends at `last` (accesses are emitted; the global and
/// the arguments are not), or `None` when `last` is the global itself.
fn first_access(
    expressions: &Arena<Expression>,
    last: Handle<Expression>,
) -> Option<Handle<Expression>> {
    let mut first = None;
    let mut at = last;
    loop {
        match expressions[at] {
            Expression::AccessIndex { base, .. } | Expression::Access { base, .. } => {
                first = Some(at);
                at = base;
            }
            _ => return first,
        }
    }
}

/// A call's specialization and its new arguments.
type Retarget = (Handle<Function>, Vec<Handle<Expression>>);

/// Retargets the calls of `block`, in the order of `collect_calls`, that `next` gives a
/// specialization and new arguments for, and their results.
fn retarget_block(
    block: &mut Block,
    expressions: &mut Arena<Expression>,
    next: &mut dyn FnMut() -> Option<Retarget>,
) {
    for statement in block.iter_mut() {
        if let Statement::Call {
            function,
            arguments,
            result,
        } = statement
        {
            if let Some((spec, args)) = next() {
                *function = spec;
                *arguments = args;
                if let Some(result) = result {
                    expressions[*result] = Expression::CallResult(spec);
                }
            }
        }
        crate::ir::walk::nested_blocks(statement, |inner| retarget_block(inner, expressions, next));
    }
}

/// Drops the functions with restricted parameters (nothing calls them now, or what does
/// is left for the validator to report) and orders the rest callees first.
fn reorder_functions(module: &mut Module, pass: &Pass) {
    let called: Vec<Vec<Handle<Function>>> = module
        .functions
        .iter()
        .map(|(_, f)| {
            let mut calls = Vec::new();
            collect_calls(&f.body, &mut calls);
            calls.into_iter().map(|(callee, _)| callee).collect()
        })
        .collect();
    let plain = |index: usize| index >= pass.originals || pass.restricted[index].is_empty();
    // A restricted original stays only if something kept still calls it.
    let mut keep: Vec<bool> = (0..called.len()).map(plain).collect();
    let mut stack: Vec<usize> = (0..called.len()).filter(|i| keep[*i]).collect();
    for entry in &module.entry_points {
        let mut calls = Vec::new();
        collect_calls(&entry.function.body, &mut calls);
        stack.extend(calls.into_iter().map(|(callee, _)| callee.index()));
    }
    while let Some(index) = stack.pop() {
        for callee in called.get(index).into_iter().flatten() {
            if !keep[callee.index()] {
                keep[callee.index()] = true;
                stack.push(callee.index());
            }
        }
        if let Some(k) = keep.get_mut(index) {
            *k = true;
        }
    }
    let mut order = Vec::new();
    let mut seen = vec![false; keep.len()];
    for index in 0..keep.len() {
        postorder(index, &called, &keep, &mut seen, &mut order);
    }
    let old = std::mem::take(&mut module.functions);
    let spans: Vec<Span> = old.iter().map(|(h, _)| old.get_span(h)).collect();
    let mut functions: Vec<Option<Function>> = old.into_inner().into_iter().map(Some).collect();
    let mut map = HashMap::new();
    for index in order {
        let function = functions[index].take().expect("each function once");
        let new = module.functions.append(function, spans[index]);
        map.insert(index, new);
    }
    let remap = |f: &mut Function| {
        remap_calls(&mut f.body, &map);
        for (_, expr) in f.expressions.iter_mut() {
            if let Expression::CallResult(callee) = expr {
                if let Some(new) = map.get(&callee.index()) {
                    *callee = *new;
                }
            }
        }
    };
    for (_, f) in module.functions.iter_mut() {
        remap(f);
    }
    for entry in &mut module.entry_points {
        remap(&mut entry.function);
    }
}

fn postorder(
    index: usize,
    called: &[Vec<Handle<Function>>],
    keep: &[bool],
    seen: &mut [bool],
    order: &mut Vec<usize>,
) {
    if seen[index] || !keep[index] {
        return;
    }
    seen[index] = true;
    for callee in &called[index] {
        if callee.index() < keep.len() {
            postorder(callee.index(), called, keep, seen, order);
        }
    }
    order.push(index);
}

fn remap_calls(block: &mut Block, map: &HashMap<usize, Handle<Function>>) {
    for statement in block.iter_mut() {
        if let Statement::Call { function, .. } = statement {
            if let Some(new) = map.get(&function.index()) {
                *function = *new;
            }
        }
        crate::ir::walk::nested_blocks(statement, |inner| remap_calls(inner, map));
    }
}
