//! The uniformity analysis of a whole module. Functions are analyzed callees first (a
//! caller needs what its callees' results depend on: naga puts callees before callers), then
//! each function's calling context is found callers first: whether every call of it, in
//! every function and entry point of the module, is made in uniform control flow, and which
//! of its parameters get a uniform argument at every call. Tint checks a barrier in a
//! function against every call of it, so a barrier inside a function is valid where the
//! flow there depends only on parameters that every call passes uniformly.

use super::dep::{CallInput, Dep, Parameters};
use super::function::{analyze, CallSite, FunctionUniformity};
use naga::{Block, Function, Handle, Module};
use std::collections::{BTreeSet, HashMap};

/// A function of the module: an entry point's, or one of the function arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    Entry(usize),
    Function(Handle<Function>),
}

/// How every call of a function is made.
#[derive(Clone, Debug)]
pub(crate) struct Context {
    /// Every call of it is in uniform control flow.
    pub called_uniformly: bool,
    /// The parameters that get a uniform argument at every call.
    pub parameters: Parameters,
}

impl Context {
    /// Whether a barrier is valid at a point whose flow is `flow` (`None`: unreachable).
    pub(crate) fn allows_barrier(&self, flow: &Option<Dep>) -> bool {
        self.called_uniformly && flow.as_ref().is_some_and(|f| f.holds(&self.parameters))
    }
}

/// The analysis of every function of a module, with its calling context.
pub(crate) struct ModuleUniformity {
    analyses: HashMap<Target, (FunctionUniformity, Context)>,
}

impl ModuleUniformity {
    /// Analyzes `module` with each function's body as `body` gives it (naga's, or rewritten
    /// to the same effect).
    pub(crate) fn new<'b>(module: &Module, body: impl Fn(Target) -> &'b Block) -> ModuleUniformity {
        let mut summaries = HashMap::new();
        let mut analyses: HashMap<Target, FunctionUniformity> = HashMap::new();
        for (handle, function) in module.functions.iter() {
            let target = Target::Function(handle);
            let analysis = analyze(module, function, body(target), false, &summaries);
            summaries.insert(handle, analysis.summary.clone());
            analyses.insert(target, analysis);
        }
        for (index, entry) in module.entry_points.iter().enumerate() {
            let target = Target::Entry(index);
            let analysis = analyze(module, &entry.function, body(target), true, &summaries);
            analyses.insert(target, analysis);
        }
        let contexts = contexts(module, &analyses);
        ModuleUniformity {
            analyses: analyses
                .into_iter()
                .map(|(target, analysis)| {
                    let context = contexts[&target].clone();
                    (target, (analysis, context))
                })
                .collect(),
        }
    }

    pub(crate) fn analysis(&self, target: Target) -> &FunctionUniformity {
        &self.analyses[&target].0
    }

    pub(crate) fn context(&self, target: Target) -> &Context {
        &self.analyses[&target].1
    }
}

/// Every function's calling context, callers first.
fn contexts(
    module: &Module,
    analyses: &HashMap<Target, FunctionUniformity>,
) -> HashMap<Target, Context> {
    let mut contexts: HashMap<Target, Context> = HashMap::new();
    for index in 0..module.entry_points.len() {
        let context = Context {
            called_uniformly: true,
            parameters: Parameters::All,
        };
        contexts.insert(Target::Entry(index), context);
    }
    let mut calls: HashMap<Handle<Function>, Vec<(Target, &CallSite)>> = HashMap::new();
    for (target, analysis) in analyses {
        for call in &analysis.calls {
            calls.entry(call.callee).or_default().push((*target, call));
        }
    }
    for (handle, function) in module.functions.iter().rev() {
        let mut called_uniformly = true;
        let mut uniform: Option<BTreeSet<CallInput>> = None;
        for (caller, call) in calls.get(&handle).into_iter().flatten() {
            // Callers come after their callees: the caller's context is known.
            let context = &contexts[caller];
            called_uniformly &= context.called_uniformly && call.flow.holds(&context.parameters);
            let these = (0..function.arguments.len() as u32)
                .flat_map(|i| [CallInput::Value(i), CallInput::Contents(i)])
                .filter(|key| call.given(*key).holds(&context.parameters))
                .collect::<BTreeSet<CallInput>>();
            uniform = Some(match uniform {
                Some(so_far) => so_far.intersection(&these).copied().collect(),
                None => these,
            });
        }
        let parameters = match uniform {
            Some(set) => Parameters::Some(set),
            // Called nowhere: Tint judges it by itself, its parameters free.
            None => Parameters::All,
        };
        let context = Context {
            called_uniformly,
            parameters,
        };
        contexts.insert(Target::Function(handle), context);
    }
    contexts
}
