//! WGSL's uniformity analysis of one function, on naga's IR, as the specification defines it
//! and Tint implements it (Tint's resolver/uniformity.cc was the reference read):
//!
//! - Uniform values: constants, overrides and literals; loads of uniform buffers, of
//!   `var<storage, read>` buffers and of textures' handles; `workgroup_id`,
//!   `num_workgroups` and `subgroup_size`; `workgroupUniformLoad` results; a parameter, when
//!   the call passes a uniform argument; a call's result, when the callee's returned values
//!   depend only on parameters that get uniform arguments; and whatever derives only from
//!   these. Non-uniform: loads of `read_write` storage, workgroup and private variables,
//!   other builtins, atomics' and subgroup operations' results, texture samples.
//! - Every value also depends on the control flow it is computed in (a local stored in a
//!   non-uniform branch is non-uniform after it), and locals are followed flow by flow: a
//!   store gives the local a new value, branches join their locals where they meet, loops
//!   until their locals settle.
//! - Control flow: inside a branch it depends on the condition; after a branch it is as
//!   before, unless the branch may break, continue or return, when it depends on the
//!   branch's end (so on the condition); at a loop's head it depends on the flow before the
//!   loop and at the end of each iteration (a non-uniform `break` makes the whole loop
//!   non-uniform); after a loop it is as before, unless the loop may return. Code after a
//!   statement that cannot fall through is unreachable and not analyzed.
//! - Pointers: a `ptr<function, T>` parameter's pointee is followed like a local (what the
//!   call passes, what the function stores through it, what it leaves there for the
//!   caller); loads through pointers to private, workgroup or read_write storage memory are
//!   non-uniform.
//!
//! More conservative than Tint in two corners: texture loads are non-uniform (Tint judges
//! those of read-only textures by their operands), and the locals a `continue` leaves with
//! reach the `continuing` block (Tint lets them reach only the next iteration).
//!
//! The flow at every point of the body comes out as a tree of `Positions`, which the walker
//! (place.rs) follows.

use super::behaviors::{self, Behaviors};
use super::dep::{join_into, CallInput, Dep};
use super::values::{initial, slot, Locals, Values};
use crate::ir::memory::{root, Root};
use crate::ir::statement::{Jump, Memory, Nested, Step};
use naga::{Block, Expression, Function, Handle, Module, Statement};
use std::collections::HashMap;

/// The flow before each statement of a block and at its end (`at` has one more entry than
/// the block has statements; `None` where unreachable), and the positions of the blocks
/// nested in each statement, in the order `walk::nested_blocks` visits them.
#[derive(Clone, Debug)]
pub(crate) struct Positions {
    pub at: Vec<Option<Dep>>,
    pub nested: Vec<Vec<Positions>>,
}

impl Positions {
    /// The positions of code the analysis never reaches.
    fn unreachable(block: &Block) -> Positions {
        Positions {
            at: vec![None; block.len() + 1],
            nested: block
                .iter()
                .map(|statement| {
                    let mut nested = Vec::new();
                    crate::ir::walk::nested_blocks_ref(statement, |inner| {
                        nested.push(Positions::unreachable(inner))
                    });
                    nested
                })
                .collect(),
        }
    }
}

/// A call the function makes: the flow it is made in, what each argument depends on, and
/// what each argument that points to a local (or to the pointee of a pointer parameter)
/// points to.
#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    pub callee: Handle<Function>,
    /// The call statement's place in the source.
    pub span: naga::Span,
    pub flow: Dep,
    pub arguments: Vec<Dep>,
    pub pointees: Vec<Option<Dep>>,
}

impl CallSite {
    /// What `key` of the callee is at this call.
    pub(crate) fn given(&self, key: CallInput) -> Dep {
        match key {
            CallInput::Value(index) => self.arguments[index as usize].clone(),
            CallInput::Contents(index) => self.pointees[index as usize]
                .clone()
                .unwrap_or(Dep::NonUniform),
        }
    }
}

/// What a caller needs to know of a function.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// What its returned values depend on (`None` when it returns nothing).
    pub result: Option<Dep>,
    /// What each `ptr<function, T>` parameter points to when it returns (`None` for other
    /// parameters).
    pub pointees: Vec<Option<Dep>>,
}

/// What the analysis of a function found.
pub(crate) struct FunctionUniformity {
    pub body: Positions,
    pub summary: Summary,
    pub calls: Vec<CallSite>,
}

/// Where a `break` or `continue` takes the locals it leaves with.
enum Target {
    Loop {
        breaks: Vec<Locals>,
        continues: Vec<Locals>,
    },
    Switch {
        breaks: Vec<Locals>,
    },
}

/// Analyzes `body` (the function's, possibly rewritten as returns.rs does) of `function`;
/// `callees` summarizes the functions it calls, `entry` says whether the arguments are an
/// entry point's builtins.
pub(crate) fn analyze(
    module: &Module,
    function: &Function,
    body: &Block,
    entry: bool,
    callees: &HashMap<Handle<Function>, Summary>,
) -> FunctionUniformity {
    let mut analyzer = Analyzer {
        module,
        function,
        callees,
        values: Values::new(module, function, entry),
        result: function.result.as_ref().map(|_| None),
        pointees: vec![None; function.arguments.len()],
        calls: Vec::new(),
        call_index: HashMap::new(),
        targets: Vec::new(),
    };
    let mut locals = initial(function);
    let (positions, _) = analyzer.block(body, Dep::uniform(), &mut locals);
    if behaviors::of_block(body).has(Behaviors::NEXT) {
        analyzer.leave(&locals);
    }
    let pointees = (0..function.arguments.len())
        .map(|index| {
            let slot = slot(module, function, Root::Argument(index as u32));
            // A pointee the function never reaches the end of keeps what the call passed.
            slot.map(|_| {
                analyzer.pointees[index]
                    .clone()
                    .unwrap_or(Dep::contents(index as u32))
            })
        })
        .collect();
    FunctionUniformity {
        body: positions,
        summary: Summary {
            // A function none of whose returns is reached returns nothing uniform or not.
            result: analyzer.result.map(|r| r.unwrap_or_else(Dep::uniform)),
            pointees,
        },
        calls: analyzer.calls,
    }
}

struct Analyzer<'a> {
    module: &'a Module,
    function: &'a Function,
    callees: &'a HashMap<Handle<Function>, Summary>,
    values: Values<'a>,
    /// What the returned values depend on so far (`None` inside: no return reached yet).
    result: Option<Option<Dep>>,
    /// What each pointer parameter's pointee holds where the function returns, so far.
    pointees: Vec<Option<Dep>>,
    calls: Vec<CallSite>,
    /// Each call statement's entry in `calls`: a loop walked again updates its calls.
    call_index: HashMap<*const Statement, usize>,
    targets: Vec<Target>,
}

impl Analyzer<'_> {
    /// Notes what the pointer parameters' pointees hold where the function returns.
    fn leave(&mut self, locals: &Locals) {
        let count = self.function.arguments.len();
        for (index, pointee) in self.pointees.iter_mut().enumerate().take(count) {
            let argument = Root::Argument(index as u32);
            if let Some(slot) = slot(self.module, self.function, argument) {
                match pointee {
                    Some(so_far) => {
                        join_into(so_far, &locals[slot]);
                    }
                    None => *pointee = Some(locals[slot].clone()),
                }
            }
        }
    }

    /// The positions of `block` entered with flow `flow`, and the flow after its last
    /// statement that is reached (where the statement's own flow ends, for one that
    /// leaves).
    fn block(&mut self, block: &Block, flow: Dep, locals: &mut Locals) -> (Positions, Dep) {
        let mut at = Vec::with_capacity(block.len() + 1);
        let mut nested = Vec::with_capacity(block.len());
        let mut flow = Some(flow);
        let mut last = Dep::uniform();
        for (statement, span) in block.span_iter() {
            at.push(flow.clone());
            match flow.take() {
                Some(before) => {
                    let (inner, after) = self.statement(statement, *span, before, locals);
                    nested.push(inner);
                    last = after.clone();
                    if behaviors::of(statement).has(Behaviors::NEXT) {
                        flow = Some(after);
                    }
                }
                None => {
                    let mut inner = Vec::new();
                    crate::ir::walk::nested_blocks_ref(statement, |b| {
                        inner.push(Positions::unreachable(b))
                    });
                    nested.push(inner);
                }
            }
        }
        if let Some(end) = &flow {
            last = end.clone();
        }
        at.push(flow);
        (Positions { at, nested }, last)
    }

    /// The positions of the blocks nested in `statement`, and the flow after it.
    fn statement(
        &mut self,
        statement: &Statement,
        span: naga::Span,
        flow: Dep,
        locals: &mut Locals,
    ) -> (Vec<Positions>, Dep) {
        match Step::of(statement) {
            Step::Emit(range) => {
                for expr in range.clone() {
                    let value = self.values.evaluate(expr, locals).join(&flow);
                    self.values.set(expr, value);
                }
                (Vec::new(), flow)
            }
            Step::Memory(Memory::Store { pointer, value }) => {
                if let Some(slot) = slot(self.module, self.function, root(self.function, *pointer))
                {
                    let mut stored = flow
                        .join(&self.values.get(*value))
                        .join(&self.values.get(*pointer));
                    // A store into part of the variable leaves the rest as it was.
                    if !matches!(
                        self.function.expressions[*pointer],
                        Expression::LocalVariable(_) | Expression::FunctionArgument(_)
                    ) {
                        stored = stored.join(&locals[slot]);
                    }
                    locals[slot] = stored;
                }
                (Vec::new(), flow)
            }
            Step::Call {
                function,
                arguments,
                result,
            } => {
                let passed: Vec<Dep> = arguments
                    .iter()
                    .map(|a| flow.join(&self.values.get(*a)))
                    .collect();
                let slots: Vec<Option<usize>> = arguments
                    .iter()
                    .map(|a| slot(self.module, self.function, root(self.function, *a)))
                    .collect();
                let site = CallSite {
                    callee: *function,
                    span,
                    flow: flow.clone(),
                    pointees: slots
                        .iter()
                        .zip(&passed)
                        .map(|(slot, pointer)| slot.map(|s| locals[s].join(pointer)))
                        .collect(),
                    arguments: passed,
                };
                let summary = self.callees.get(function);
                if let Some(result) = result {
                    let value = match summary.and_then(|s| s.result.as_ref()) {
                        Some(returned) => flow.join(&returned.at_call(|key| site.given(key))),
                        None => Dep::NonUniform,
                    };
                    self.values.set(*result, value);
                }
                // What the callee leaves in each local it got a pointer to.
                for (index, slot) in slots.iter().enumerate() {
                    let Some(slot) = slot else { continue };
                    let left = summary.and_then(|s| s.pointees.get(index)?.as_ref());
                    locals[*slot] = match left {
                        Some(left) => flow.join(&left.at_call(|key| site.given(key))),
                        None => Dep::NonUniform,
                    };
                }
                let key = statement as *const Statement;
                match self.call_index.get(&key) {
                    Some(&index) => self.calls[index] = site,
                    None => {
                        self.call_index.insert(key, self.calls.len());
                        self.calls.push(site);
                    }
                }
                (Vec::new(), flow)
            }
            Step::Memory(Memory::UniformLoad { result, .. }) => {
                self.values.set(*result, flow.clone());
                (Vec::new(), flow)
            }
            // Atomics', subgroup operations' and ray queries' results are non-uniform.
            step @ (Step::Memory(Memory::Atomic { .. })
            | Step::Subgroup { .. }
            | Step::Other { .. }) => {
                if let Some(result) = step.result() {
                    self.values.set(*result, Dep::NonUniform);
                }
                (Vec::new(), flow)
            }
            Step::Jump(Jump::Return { value }) => {
                let returned = match value {
                    Some(value) => flow.join(&self.values.get(*value)),
                    None => flow.clone(),
                };
                self.leave(locals);
                if let Some(result) = &mut self.result {
                    match result {
                        Some(so_far) => {
                            join_into(so_far, &returned);
                        }
                        None => *result = Some(returned),
                    }
                }
                (Vec::new(), flow)
            }
            Step::Jump(Jump::Break) => {
                let saved = locals.clone();
                match self.targets.last_mut() {
                    Some(Target::Loop { breaks, .. } | Target::Switch { breaks }) => {
                        breaks.push(saved)
                    }
                    None => {}
                }
                (Vec::new(), flow)
            }
            Step::Jump(Jump::Continue) => {
                let saved = locals.clone();
                let innermost_loop = self.targets.iter_mut().rev().find_map(|t| match t {
                    Target::Loop { continues, .. } => Some(continues),
                    Target::Switch { .. } => None,
                });
                if let Some(continues) = innermost_loop {
                    continues.push(saved);
                }
                (Vec::new(), flow)
            }
            Step::Nested(Nested::Block(block)) => {
                let (positions, after) = self.block(block, flow, locals);
                (vec![positions], after)
            }
            Step::Nested(Nested::If {
                condition,
                accept,
                reject,
            }) => self.branch(
                statement,
                flow.join(&self.values.get(*condition)),
                flow,
                locals,
                &[accept, reject],
            ),
            Step::Nested(Nested::Switch { selector, cases }) => {
                let inside = flow.join(&self.values.get(*selector));
                self.targets.push(Target::Switch { breaks: Vec::new() });
                let bodies: Vec<&Block> = cases.iter().map(|c| &c.body).collect();
                let (positions, after) = self.branch(statement, inside, flow, locals, &bodies);
                let Some(Target::Switch { breaks }) = self.targets.pop() else {
                    unreachable!("the switch's target is on top")
                };
                for exit in breaks {
                    join_locals(locals, &exit);
                }
                (positions, after)
            }
            Step::Nested(Nested::Loop {
                body,
                continuing,
                break_if,
            }) => self.loop_(statement, body, continuing, break_if.copied(), flow, locals),
            Step::Jump(Jump::Kill) | Step::Barrier { .. } | Step::Memory(Memory::Texel { .. }) => {
                (Vec::new(), flow)
            }
        }
    }

    /// An `if` or a `switch`: each of `blocks` entered with flow `inside`; the locals of the
    /// blocks that fall through meet after it. Control flow after it is as before (`flow`)
    /// unless it may leave early, when it depends on where each block ended.
    fn branch(
        &mut self,
        statement: &Statement,
        inside: Dep,
        flow: Dep,
        locals: &mut Locals,
        blocks: &[&Block],
    ) -> (Vec<Positions>, Dep) {
        let mut positions = Vec::with_capacity(blocks.len());
        let mut ends = Dep::uniform();
        let mut met: Option<Locals> = None;
        for block in blocks {
            let mut own = locals.clone();
            let (inner, end) = self.block(block, inside.clone(), &mut own);
            positions.push(inner);
            ends = ends.join(&end);
            if behaviors::of_block(block).has(Behaviors::NEXT) {
                match &mut met {
                    Some(met) => join_locals(met, &own),
                    None => met = Some(own),
                }
            }
        }
        if let Some(met) = met {
            *locals = met;
        }
        let after = if behaviors::of(statement).only_next() {
            flow
        } else {
            ends
        };
        (positions, after)
    }

    /// A loop, walked until the flow and the locals at its head stop changing.
    fn loop_(
        &mut self,
        statement: &Statement,
        body: &Block,
        continuing: &Block,
        break_if: Option<Handle<Expression>>,
        flow: Dep,
        locals: &mut Locals,
    ) -> (Vec<Positions>, Dep) {
        let mut head_flow = flow.clone();
        let mut head_locals = locals.clone();
        loop {
            self.targets.push(Target::Loop {
                breaks: Vec::new(),
                continues: Vec::new(),
            });
            let mut own = head_locals.clone();
            let (body_positions, body_end) = self.block(body, head_flow.clone(), &mut own);
            let body_behaviors = behaviors::of_block(body);
            let Some(Target::Loop {
                mut breaks,
                continues,
            }) = self.targets.pop()
            else {
                unreachable!("the loop's target is on top")
            };
            let reaches_continuing =
                body_behaviors.has(Behaviors::NEXT) || body_behaviors.has(Behaviors::CONTINUE);
            let (continuing_positions, end, end_locals) = if reaches_continuing {
                let mut at_continuing: Option<Locals> =
                    body_behaviors.has(Behaviors::NEXT).then_some(own);
                for saved in &continues {
                    match &mut at_continuing {
                        Some(met) => join_locals(met, saved),
                        None => at_continuing = Some(saved.clone()),
                    }
                }
                let mut own = at_continuing.unwrap_or_else(|| head_locals.clone());
                // The continuing block holds no break or continue of this loop.
                let (positions, mut end) = self.block(continuing, body_end, &mut own);
                if let Some(condition) = break_if {
                    end = end.join(&self.values.get(condition));
                    breaks.push(own.clone());
                }
                (positions, end, Some(own))
            } else {
                (Positions::unreachable(continuing), body_end, None)
            };
            let next_flow = flow.join(&end);
            let mut next_locals = locals.clone();
            if let Some(end_locals) = &end_locals {
                join_locals(&mut next_locals, end_locals);
            }
            for saved in &continues {
                join_locals(&mut next_locals, saved);
            }
            if next_flow == head_flow && next_locals == head_locals {
                let mut exit: Option<Locals> = None;
                for saved in &breaks {
                    match &mut exit {
                        Some(met) => join_locals(met, saved),
                        None => exit = Some(saved.clone()),
                    }
                }
                if let Some(exit) = exit {
                    *locals = exit;
                }
                let after = if behaviors::of(statement).only_next() {
                    flow
                } else {
                    head_flow
                };
                return (vec![body_positions, continuing_positions], after);
            }
            head_flow = next_flow;
            head_locals = next_locals;
        }
    }
}

/// Joins `other` into `locals`, local by local.
fn join_locals(locals: &mut Locals, other: &Locals) {
    for (local, value) in locals.iter_mut().zip(other) {
        join_into(local, value);
    }
}
