//! The user's own barriers where WGSL forbids them: `workgroupBarrier()`, `storageBarrier()`,
//! `textureBarrier()` and `workgroupUniformLoad()` must be called in uniform control flow, as
//! WGSL's uniformity analysis (uniformity/) defines it. naga, and so wgpu, does not check
//! the rule; Tint, the WGSL compiler of Chrome and Dawn, rejects a shader that breaks it.
//!
//! Each is reported at the barrier, as Tint reports it. One whose function's control flow is
//! not uniform there names the statement where that flow turned non-uniform. One whose flow
//! depends only on how its function is called is followed up the calls, as Tint does, to
//! each call that makes it non-uniform: a call in non-uniform control flow (named with where
//! that flow turned), or one that passes a non-uniform value to a parameter the barrier's
//! flow depends on.
//!
//! uniformity/ never calls uniform a point where Tint refuses a barrier (tests/sites_tint.rs),
//! so no barrier Tint rejects goes unreported; as it is more conservative than Tint in two
//! corners (texture loads, the locals a `continue` carries), one Tint accepts can be.
//! tests/nonuniform_tint.rs checks that the warnings fall where Tint's errors do.

use super::module::bodies;
use super::uniformity::{CallInput, Dep, ModuleUniformity, Positions, Target};
use crate::error::{InstrumentError, ShaderLocation};
use crate::wgsl::locate::Locator;
use naga::{Barrier, Block, Handle, Module, Span, Statement};
use std::fmt;

/// A barrier in non-uniform control flow: the shader is valid for naga and wgpu, and Tint
/// (so Chrome) rejects it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonUniformBarrier {
    /// The builtin, as written: `workgroupBarrier()`, ...
    pub builtin: &'static str,
    /// Where it is called.
    pub barrier: ShaderLocation,
    pub why: NonUniformFlow,
}

/// Why control flow at a barrier is not uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NonUniformFlow {
    /// In the barrier's own function, from `turn` on.
    Branch { turn: Option<FlowTurn> },
    /// `function`, which reaches the barrier, is called at `call` in non-uniform control
    /// flow, from `turn` on.
    Call {
        function: String,
        call: ShaderLocation,
        turn: Option<FlowTurn>,
    },
    /// `function`, which reaches the barrier, is called at `call` with a value for
    /// `parameter` that can differ between invocations, on which the flow at the barrier
    /// depends.
    Argument {
        function: String,
        parameter: String,
        call: ShaderLocation,
    },
}

/// Where control flow turns non-uniform: a statement whose condition, or a `return`,
/// `break` or `continue` under it, depends on a value that can differ between invocations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowTurn {
    /// What the statement is: "the `if`", "the `switch`", "the loop".
    pub statement: &'static str,
    pub at: ShaderLocation,
}

/// `line:column` of a place in the file the message is already about.
struct Place<'a>(&'a ShaderLocation);

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.position {
            Some((line, column)) => write!(f, "{line}:{column}"),
            None => f.write_str("an unknown place"),
        }
    }
}

/// " (it turns non-uniform at the `if` at 4:5, ...)", or nothing when that is not known.
struct TurnNote<'a>(&'a Option<FlowTurn>);

impl fmt::Display for TurnNote<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(turn) => write!(
                f,
                " (it turns non-uniform at {} at {}, which depends on a value that can differ \
                 between invocations)",
                turn.statement,
                Place(&turn.at)
            ),
            None => Ok(()),
        }
    }
}

impl fmt::Display for NonUniformBarrier {
    /// As Tint reports it: at the barrier, with where its flow turns non-uniform.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is in non-uniform control flow",
            self.barrier, self.builtin
        )?;
        match &self.why {
            NonUniformFlow::Branch { turn } => write!(f, "{}", TurnNote(turn))?,
            NonUniformFlow::Call {
                function,
                call,
                turn,
            } => write!(
                f,
                " when `{function}` is called at {}{}",
                Place(call),
                TurnNote(turn)
            )?,
            NonUniformFlow::Argument {
                function,
                parameter,
                call,
            } => write!(
                f,
                " when `{function}` is called at {} with a value for `{parameter}` that can differ between \
                 invocations",
                Place(call)
            )?,
        }
        write!(
            f,
            ": browsers will reject this shader (Tint, the WGSL compiler of Chrome and Dawn, \
             requires uniform control flow there; naga and wgpu do not check it)"
        )
    }
}

/// The barriers of `source` (the user's WGSL, read from `path`) in non-uniform control flow,
/// in the order of their places. Errors are the shader's own, as `read_module` gives them.
pub fn non_uniform_barriers(
    source: &str,
    path: &str,
) -> Result<Vec<NonUniformBarrier>, InstrumentError> {
    let module = crate::wgsl::shader::parse(source, path)?;
    let locator = Locator::new(path, Some(source));
    let mut found = in_module(&module, &locator);
    found.sort_by_key(|b| b.barrier.position);
    Ok(found)
}

/// A barrier or a call, as the walk met it: where, in what flow, and where that flow turned
/// non-uniform if it did.
struct Met {
    span: Span,
    flow: Dep,
    turn: Option<(Span, &'static str)>,
    what: What,
}

enum What {
    Barrier(&'static str),
    /// A call: its callee and arguments are the analysis's `CallSite` of the same span.
    Call,
}

fn in_module(module: &Module, locator: &Locator) -> Vec<NonUniformBarrier> {
    let bodies = bodies(module);
    let uniformity = ModuleUniformity::new(module, |target| &bodies[&target]);
    let targets: Vec<Target> = module
        .functions
        .iter()
        .map(|(handle, _)| Target::Function(handle))
        .chain((0..module.entry_points.len()).map(Target::Entry))
        .collect();
    let met: Vec<(Target, Vec<Met>)> = targets
        .iter()
        .map(|&target| {
            let mut met = Vec::new();
            let positions = &uniformity.analysis(target).body;
            walk(&bodies[&target], positions, None, &mut met);
            (target, met)
        })
        .collect();
    let blame = Blame {
        module,
        uniformity: &uniformity,
        met: &met,
        locator,
    };
    let mut found = Vec::new();
    for (target, met) in &met {
        for m in met {
            let What::Barrier(builtin) = m.what else {
                continue;
            };
            let barrier = locator.at(m.span);
            match (&m.flow, target) {
                (Dep::NonUniform, _) => found.push(NonUniformBarrier {
                    builtin,
                    barrier,
                    why: NonUniformFlow::Branch {
                        turn: located(locator, m.turn),
                    },
                }),
                (_, Target::Function(handle)) => {
                    blame.calls(*handle, &m.flow, builtin, &barrier, &mut found)
                }
                (_, Target::Entry(_)) => {}
            }
        }
    }
    // A function specialized for its pointer arguments (ir/pointers) is one copy per kind
    // of argument, all with the same spans.
    let mut unique: Vec<NonUniformBarrier> = Vec::new();
    for barrier in found {
        if !unique.contains(&barrier) {
            unique.push(barrier);
        }
    }
    unique
}

/// The statement at `turn`, where one was found.
fn located(locator: &Locator, turn: Option<(Span, &'static str)>) -> Option<FlowTurn> {
    turn.map(|(span, statement)| FlowTurn {
        statement,
        at: locator.at(span),
    })
}

/// What `statement` is, as a turn of control flow names it.
fn kind(statement: &Statement) -> &'static str {
    match statement {
        Statement::If { .. } => "the `if`",
        Statement::Switch { .. } => "the `switch`",
        Statement::Loop { .. } => "the loop",
        _ => "the statement",
    }
}

/// Walks `block`, whose flows are `positions`, noting its barriers and calls; `turn` is
/// where the flow entering it turned non-uniform.
fn walk(
    block: &Block,
    positions: &Positions,
    turn: Option<(Span, &'static str)>,
    met: &mut Vec<Met>,
) {
    let mut turn = turn;
    let mut before: Option<(&Dep, Span, &Statement)> = None;
    for (index, (statement, span)) in block.span_iter().enumerate() {
        // Unreachable from here on: the analysis gives no flow, and Tint judges nothing.
        let Some(flow) = &positions.at[index] else {
            return;
        };
        if let Some((previous, previous_span, previous_statement)) = before {
            // The previous statement may leave early in non-uniform flow.
            if *flow == Dep::NonUniform && *previous != Dep::NonUniform {
                turn = Some((previous_span, kind(previous_statement)));
            }
        }
        before = Some((flow, *span, statement));
        let what = match statement {
            Statement::ControlBarrier(barrier) => builtin(*barrier).map(What::Barrier),
            Statement::WorkGroupUniformLoad { .. } => Some(What::Barrier("workgroupUniformLoad()")),
            Statement::Call { .. } => Some(What::Call),
            _ => None,
        };
        if let Some(what) = what {
            met.push(Met {
                span: *span,
                flow: flow.clone(),
                turn,
                what,
            });
        }
        let mut nested = positions.nested[index].iter();
        crate::ir::walk::nested_blocks_ref(statement, |inner| {
            let inner_positions = nested.next().expect("a position per nested block");
            let enters_non_uniform = inner_positions.at.first().cloned().flatten()
                == Some(Dep::NonUniform)
                && *flow != Dep::NonUniform;
            let inner_turn = if enters_non_uniform {
                Some((*span, kind(statement)))
            } else {
                turn
            };
            walk(inner, inner_positions, inner_turn, met);
        });
    }
}

/// The WGSL builtin of a control barrier; none for naga's own `subgroupBarrier`, which is
/// not WGSL.
fn builtin(barrier: Barrier) -> Option<&'static str> {
    if barrier.contains(Barrier::STORAGE) {
        Some("storageBarrier()")
    } else if barrier.contains(Barrier::WORK_GROUP) {
        Some("workgroupBarrier()")
    } else if barrier.contains(Barrier::TEXTURE) {
        Some("textureBarrier()")
    } else {
        None
    }
}

/// Follows a barrier's need for uniform flow up the calls.
struct Blame<'a> {
    module: &'a Module,
    uniformity: &'a ModuleUniformity,
    met: &'a [(Target, Vec<Met>)],
    locator: &'a Locator<'a>,
}

impl Blame<'_> {
    /// The calls of `function` that make `need` (what the flow at the barrier depends on,
    /// in `function`'s terms) non-uniform, each as a `NonUniformBarrier` in `found`, and the
    /// calls of their callers in turn where `need` depends on how those are called.
    fn calls(
        &self,
        function: Handle<naga::Function>,
        need: &Dep,
        builtin: &'static str,
        barrier: &ShaderLocation,
        found: &mut Vec<NonUniformBarrier>,
    ) {
        // A need that is non-uniform whatever the call is reported at the barrier.
        let Dep::On(keys) = need else {
            return;
        };
        let name = self.module.functions[function]
            .name
            .clone()
            .unwrap_or_default();
        for (caller, met) in self.met {
            let sites = &self.uniformity.analysis(*caller).calls;
            for site in sites.iter().filter(|s| s.callee == function) {
                let at_call = site.flow.join(&need.at_call(|key| site.given(key)));
                if at_call != Dep::NonUniform {
                    // Uniform at an entry point; else as uniform as its own callers make it.
                    if let Target::Function(handle) = caller {
                        self.calls(*handle, &at_call, builtin, barrier, found);
                    }
                    continue;
                }
                let call = self.locator.at(site.span);
                // What the call gives non-uniformly: its flow, else an argument.
                let argument = keys
                    .iter()
                    .find(|key| site.given(**key) == Dep::NonUniform)
                    .filter(|_| site.flow != Dep::NonUniform);
                let why = match argument {
                    Some(key) => NonUniformFlow::Argument {
                        function: name.clone(),
                        parameter: self.parameter(function, *key),
                        call,
                    },
                    None => {
                        let found = met.iter().find(|m| m.span == site.span);
                        NonUniformFlow::Call {
                            function: name.clone(),
                            call,
                            turn: located(self.locator, found.and_then(|m| m.turn)),
                        }
                    }
                };
                found.push(NonUniformBarrier {
                    builtin,
                    barrier: barrier.clone(),
                    why,
                });
            }
        }
    }

    /// The name of the parameter of `function` that `key` is about.
    fn parameter(&self, function: Handle<naga::Function>, key: CallInput) -> String {
        let (CallInput::Value(index) | CallInput::Contents(index)) = key;
        self.module.functions[function].arguments[index as usize]
            .name
            .clone()
            .unwrap_or_else(|| format!("argument {}", index + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(source: &str) -> Vec<String> {
        non_uniform_barriers(source, "t.wgsl")
            .unwrap()
            .iter()
            .map(|b| b.to_string())
            .collect()
    }

    const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n";

    #[test]
    fn a_barrier_under_a_non_uniform_condition_names_the_condition() {
        let source = format!(
            "{HEAD}@compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {{\n\
             \x20   if i == 0u {{\n\
             \x20       workgroupBarrier();\n\
             \x20   }}\n\
             }}\n"
        );
        let found = found(&source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("t.wgsl:5:9: workgroupBarrier() is in non-uniform control flow (it turns non-uniform at the `if` at 4:5,"),
            "{}",
            found[0]
        );
        assert!(found[0].contains("browsers will reject this shader"));
    }

    #[test]
    fn uniform_barriers_and_unreachable_ones_are_not_reported() {
        let source = format!(
            "{HEAD}@compute @workgroup_size(64)\n\
             fn main(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) i: u32) {{\n\
             \x20   if g.x == 0u {{ workgroupBarrier(); }}\n\
             \x20   for (var k = 0u; k < 4u; k++) {{ storageBarrier(); }}\n\
             \x20   data[i] = 1u;\n\
             }}\n"
        );
        assert!(found(&source).is_empty());
    }

    #[test]
    fn an_early_return_turns_the_flow_after_it() {
        let source = format!(
            "{HEAD}@compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {{\n\
             \x20   if data[i] == 0u {{ return; }}\n\
             \x20   storageBarrier();\n\
             \x20   data[i] = 1u;\n\
             }}\n"
        );
        let found = found(&source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("t.wgsl:5:5: storageBarrier() is in non-uniform control flow (it turns non-uniform at the `if` at 4:5,"), "{}", found[0]);
    }

    #[test]
    fn a_barrier_in_a_function_is_blamed_on_the_call_that_breaks_it() {
        let source = format!(
            "{HEAD}fn sync(n: u32) {{\n\
             \x20   if n > 0u {{ workgroupBarrier(); }}\n\
             }}\n\
             fn plain() {{ workgroupBarrier(); }}\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3<u32>) {{\n\
             \x20   sync(g.x);\n\
             \x20   sync(i);\n\
             \x20   if i < 32u {{\n\
             \x20       plain();\n\
             \x20   }}\n\
             }}\n"
        );
        let found = found(&source);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("t.wgsl:3:17: workgroupBarrier() is in non-uniform control flow when `sync` is called at 9:5 with a value for `n` that can differ between invocations:"),
            "{}",
            found[0]
        );
        assert!(
            found[1].starts_with("t.wgsl:5:14: workgroupBarrier() is in non-uniform control flow when `plain` is called at 11:9 (it turns non-uniform at the `if` at 10:5,"),
            "{}",
            found[1]
        );
    }

    #[test]
    fn a_non_uniform_call_is_followed_through_the_functions_between() {
        let source = format!(
            "{HEAD}fn inner() {{ _ = workgroupUniformLoad(&tile); }}\n\
             fn outer() {{ inner(); }}\n\
             var<workgroup> tile: u32;\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {{\n\
             \x20   if i == 1u {{ outer(); }}\n\
             }}\n"
        );
        let found = found(&source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("t.wgsl:2:18: workgroupUniformLoad() is in non-uniform control flow when `outer` is called at 7:18 (it turns non-uniform at the `if` at 7:5,"),
            "{}",
            found[0]
        );
    }
}
