//! The storage accesses, sites and barriers of an entry point in the order one invocation
//! may meet them: callees inlined at their calls, both arms of a branch one after the other,
//! and every loop's body twice, so that what one iteration does before a site is seen after
//! it too (the next iteration's reads follow a barrier at the end of this one).

use crate::ir::memory::writable_storage;
use crate::ir::statement::{Memory, Nested, Step};
use crate::wgsl::locate::Locator;
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{
    AtomicFunction, Barrier, Block, Expression, Function, Handle, Literal, Module, Span, Statement,
    TypeInner,
};
use std::collections::{HashMap, HashSet};

use super::access::{index as index_of, AccessKey, Index};
pub(crate) use super::access::{Access, AccessKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// An index into `Trace::accesses`.
    Access(usize),
    Site(u32),
    /// A `storageBarrier()` the source has already.
    Barrier,
    /// A store into a local variable (numbered per function walked).
    Set(u32),
}

pub(crate) struct Trace {
    pub accesses: Vec<Access>,
    pub events: Vec<Event>,
    /// For each event, the branches it is inside: (the branch's walk, which arm or case).
    pub arms: Vec<Vec<(u32, u32)>>,
    /// The positions of each local's stores, in order.
    sets: HashMap<u32, Vec<usize>>,
    /// For a local and a storage read, the positions, in order, of the local's stores of a
    /// value computed from what the read read (through other locals too).
    carried: HashMap<(u32, usize), Vec<usize>>,
}

/// Events past which loops are walked once, not twice, and past which the trace stops: a
/// deep nest of loops and calls would otherwise double at every level. What the trace leaves
/// out, the pairing does not see.
const UNROLL_UNTIL: usize = 8_000;
const MAX_EVENTS: usize = 20_000;

impl Trace {
    /// Whether the accesses at positions `i` and `j` touch the same place, as far as one
    /// can tell without values: one access (its next iteration is not taken for a message: a
    /// loop over an array reads its elements in turn) unless it follows a pointer, or the same
    /// text with no local its index reads stored between (`flags[q]` twice, while `q` stays).
    pub(crate) fn same_place(&self, i: usize, j: usize) -> bool {
        let (Event::Access(a), Event::Access(b)) = (self.events[i], self.events[j]) else {
            return false;
        };
        let (from, to) = (i.min(j), i.max(j));
        if a == b {
            return !self.follows_pointer(a, from, to);
        }
        let (a, b) = (&self.accesses[a], &self.accesses[b]);
        let stored_between = |local: &u32| between(self.sets.get(local), from, to);
        a.same_text(b) && !a.depends.iter().chain(&b.depends).any(stored_between)
    }

    /// Whether access `access`, met at positions `from` and then `to`, reads at `to` a place
    /// that its value at `from` named: a local its index reads is stored between from that
    /// value (ls-bh's `children[slot]`, whose value read in one round is the cell whose slot
    /// the next round reads). Such a load follows a pointer: the value it reads announces the
    /// place it reads next, which a writer may have filled before it published the pointer,
    /// so its two rounds are a flag's read and a data read of one message. A loop over an
    /// array computes its index from a counter, never from what it read, and stays one place.
    fn follows_pointer(&self, access: usize, from: usize, to: usize) -> bool {
        let depends = &self.accesses[access].depends;
        depends
            .iter()
            .any(|local| between(self.carried.get(&(*local, access)), from, to))
    }

    /// Whether events `i` and `j` lie in different arms of one branch: no run meets both.
    pub(crate) fn exclusive(&self, i: usize, j: usize) -> bool {
        // The arms are the stack of branches around an event, and every walk of a branch has
        // its own number: below the first place where the stacks differ they share none.
        let (a, b) = (&self.arms[i], &self.arms[j]);
        match a.iter().zip(b).find(|(x, y)| x != y) {
            Some(((branch, _), (other, _))) => branch == other,
            None => false,
        }
    }
}

/// Whether one of `positions` (in order) lies strictly between `from` and `to`.
fn between(positions: Option<&Vec<usize>>, from: usize, to: usize) -> bool {
    positions.is_some_and(|positions| {
        let first = positions.partition_point(|&p| p <= from);
        positions.get(first).is_some_and(|&p| p < to)
    })
}

/// Calls nested deeper than this are not followed (WGSL has no recursion; this bounds the
/// trace of a deep call tree).
const MAX_DEPTH: usize = 16;

/// The trace of entry point `entry` of `module` (with a call of `marker` at every site).
pub(crate) fn trace(
    module: &Module,
    info: &ModuleInfo,
    entry: usize,
    marker: Handle<Function>,
    source: &str,
    file: &str,
) -> Trace {
    let mut builder = Builder {
        module,
        info,
        marker,
        storage: crate::placement::module::storage_functions(module),
        locator: Locator::new(file, Some(source)),
        source,
        ids: HashMap::new(),
        trace: Trace {
            accesses: Vec::new(),
            events: Vec::new(),
            arms: Vec::new(),
            sets: HashMap::new(),
            carried: HashMap::new(),
        },
        values: HashMap::new(),
        locals: HashMap::new(),
        branches: 0,
        arms: Vec::new(),
    };
    let entry_point = &module.entry_points[entry];
    let context = Context {
        key: None,
        name: &entry_point.name,
        function: &entry_point.function,
        info: info.get_entry_point(entry),
    };
    builder.block(&context, &entry_point.function.body, 0);
    builder.trace
}

struct Builder<'a> {
    module: &'a Module,
    info: &'a ModuleInfo,
    marker: Handle<Function>,
    storage: HashSet<Handle<Function>>,
    locator: Locator<'a>,
    source: &'a str,
    /// Each access's index, by function (`None`: the entry point), span and kind.
    ids: HashMap<(Option<Handle<Function>>, AccessKey, AccessKind), usize>,
    trace: Trace,
    /// Each local variable's number, by function walked (`None`: the entry point).
    locals: HashMap<(Option<Handle<Function>>, u32), u32>,
    /// For each local, the storage reads whose values its last store walked stored.
    values: HashMap<u32, Vec<usize>>,
    /// Branches walked so far, and the arms the walk is inside.
    branches: u32,
    arms: Vec<(u32, u32)>,
}

struct Context<'a> {
    key: Option<Handle<Function>>,
    name: &'a str,
    function: &'a Function,
    info: &'a FunctionInfo,
}

impl Builder<'_> {
    fn push(&mut self, event: Event) {
        if self.trace.events.len() >= MAX_EVENTS {
            return;
        }
        if let Event::Set(local) = event {
            let position = self.trace.events.len();
            self.trace.sets.entry(local).or_default().push(position);
        }
        self.trace.events.push(event);
        self.trace.arms.push(self.arms.clone());
    }

    /// A store into `local` of a value read from the accesses `carried`.
    fn set(&mut self, local: u32, carried: Vec<usize>) {
        let position = self.trace.events.len();
        self.push(Event::Set(local));
        if position < self.trace.events.len() {
            for access in &carried {
                let positions = self.trace.carried.entry((local, *access)).or_default();
                positions.push(position);
            }
        }
        self.values.insert(local, carried);
    }

    /// The storage reads whose values `value` is computed from: its loads of storage (met
    /// already: a load is emitted before its use), and what the locals it loads hold.
    fn carried(&mut self, context: &Context, value: Handle<Expression>) -> Vec<usize> {
        let mut carried = Vec::new();
        let mut stack = vec![value];
        // An expression may be the operand of many: each is looked at once.
        let mut seen = HashSet::new();
        while let Some(h) = stack.pop() {
            if !seen.insert(h) {
                continue;
            }
            let mut expr = context.function.expressions[h].clone();
            if let Expression::Load { pointer } = expr {
                match self.local_root(context, pointer) {
                    Some(local) => carried.extend(self.values.get(&local).into_iter().flatten()),
                    None => {
                        let key = (
                            context.key,
                            AccessKey::Expression(h.index() as u32),
                            AccessKind::Read,
                        );
                        carried.extend(self.ids.get(&key));
                    }
                }
                // The value read, not the place: the index's own reads are not carried.
                continue;
            }
            crate::ir::operands::of_expression(&mut expr, &mut |o| stack.push(*o));
        }
        carried.sort_unstable();
        carried.dedup();
        carried
    }

    /// Walks each of `blocks` as one arm of a branch.
    fn arms(&mut self, context: &Context, blocks: &[&Block], depth: usize) {
        let branch = self.branches;
        self.branches += 1;
        for (arm, block) in blocks.iter().enumerate() {
            self.arms.push((branch, arm as u32));
            self.block(context, block, depth);
            self.arms.pop();
        }
    }

    fn block(&mut self, context: &Context, block: &Block, depth: usize) {
        for (statement, span) in block.span_iter() {
            self.statement(context, statement, *span, depth);
        }
    }

    fn statement(&mut self, context: &Context, statement: &Statement, span: Span, depth: usize) {
        let expressions = &context.function.expressions;
        match Step::of(statement) {
            Step::Emit(range) => {
                for h in range.clone() {
                    if let Expression::Load { pointer } = expressions[h] {
                        let at = AccessKey::Expression(h.index() as u32);
                        self.access(
                            context,
                            pointer,
                            AccessKind::Read,
                            at,
                            expressions.get_span(h),
                        );
                    }
                }
            }
            Step::Memory(Memory::Store { pointer, value }) => {
                if let Some(local) = self.local_root(context, *pointer) {
                    let carried = self.carried(context, *value);
                    self.set(local, carried);
                }
                self.access(
                    context,
                    *pointer,
                    AccessKind::Write,
                    AccessKey::statement(span),
                    span,
                )
            }
            Step::Memory(Memory::Atomic { pointer, fun, .. }) => {
                let kind = match fun {
                    AtomicFunction::Exchange { compare: Some(_) } => AccessKind::Compare,
                    _ => AccessKind::Update,
                };
                self.access(context, *pointer, kind, AccessKey::statement(span), span);
            }
            Step::Call {
                function,
                arguments,
                ..
            } => {
                // A callee may store through a pointer to a local.
                for argument in arguments {
                    if let Some(local) = self.local_root(context, *argument) {
                        self.set(local, Vec::new());
                    }
                }
                if *function == self.marker {
                    if let Expression::Literal(Literal::U32(id)) = expressions[arguments[0]] {
                        self.push(Event::Site(id));
                    }
                } else if self.storage.contains(function) && depth < MAX_DEPTH {
                    let callee = &self.module.functions[*function];
                    let inner = Context {
                        key: Some(*function),
                        name: callee.name.as_deref().unwrap_or(""),
                        function: callee,
                        info: &self.info[*function],
                    };
                    self.block(&inner, &callee.body, depth + 1);
                }
            }
            Step::Barrier { flags, .. } => {
                if flags.contains(Barrier::STORAGE) {
                    self.push(Event::Barrier);
                }
            }
            Step::Nested(Nested::Block(inner)) => self.block(context, inner, depth),
            Step::Nested(Nested::If { accept, reject, .. }) => {
                self.arms(context, &[accept, reject], depth)
            }
            Step::Nested(Nested::Switch { cases, .. }) => {
                let bodies: Vec<&Block> = cases.iter().map(|c| &c.body).collect();
                self.arms(context, &bodies, depth);
            }
            Step::Nested(Nested::Loop {
                body, continuing, ..
            }) => {
                let rounds = if self.trace.events.len() < UNROLL_UNTIL {
                    2
                } else {
                    1
                };
                for _ in 0..rounds {
                    self.block(context, body, depth);
                    self.block(context, continuing, depth);
                }
            }
            // Accesses are followed through pointers into storage globals only: a storage
            // texture's texels are left out, and a `workgroupUniformLoad` loads workgroup
            // memory.
            Step::Memory(Memory::Texel { .. } | Memory::UniformLoad { .. })
            | Step::Jump(_)
            | Step::Subgroup { .. }
            | Step::Other { .. } => {}
        }
    }

    /// The number of the local variable `pointer` points into, if it does.
    fn local_root(&mut self, context: &Context, mut pointer: Handle<Expression>) -> Option<u32> {
        loop {
            match context.function.expressions[pointer] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                    pointer = base
                }
                Expression::LocalVariable(l) => return Some(self.local(context, l)),
                _ => return None,
            }
        }
    }

    fn local(&mut self, context: &Context, local: Handle<naga::LocalVariable>) -> u32 {
        let next = self.locals.len() as u32;
        *self
            .locals
            .entry((context.key, local.index() as u32))
            .or_insert(next)
    }

    /// The locals an index expression reads, and whether it reads anything that may change
    /// without a store into a local (memory, a call's or an atomic's result).
    fn dependencies(&mut self, context: &Context, index: Handle<Expression>) -> (Vec<u32>, bool) {
        let (mut depends, mut volatile) = (Vec::new(), false);
        let mut stack = vec![index];
        while let Some(h) = stack.pop() {
            let mut expr = context.function.expressions[h].clone();
            match expr {
                Expression::Load { pointer } => match self.local_root(context, pointer) {
                    Some(local) => depends.push(local),
                    None => volatile = true,
                },
                Expression::CallResult(_)
                | Expression::AtomicResult { .. }
                | Expression::WorkGroupUniformLoadResult { .. }
                | Expression::SubgroupBallotResult
                | Expression::SubgroupOperationResult { .. } => volatile = true,
                _ => {}
            }
            crate::ir::operands::of_expression(&mut expr, &mut |o| stack.push(*o));
        }
        (depends, volatile)
    }

    /// Records an access through `pointer` if it reaches a storage variable: `key` tells it
    /// from the function's other accesses, `span` is where it is written.
    fn access(
        &mut self,
        context: &Context,
        pointer: Handle<Expression>,
        kind: AccessKind,
        key: AccessKey,
        span: Span,
    ) {
        let expressions = &context.function.expressions;
        let mut path = Vec::new();
        let mut indices = Vec::new();
        let mut at = pointer;
        let global = loop {
            match expressions[at] {
                Expression::AccessIndex { base, index } => {
                    path.push(Index::Constant(index));
                    at = base;
                }
                Expression::Access { base, index } => {
                    path.push(index_of(self.module, expressions, index));
                    indices.push(index);
                    at = base;
                }
                Expression::GlobalVariable(g) => break g,
                _ => return,
            }
        };
        let variable = &self.module.global_variables[global];
        // Only storage the dispatch writes: a read-only buffer's loads order nothing and
        // publish nothing (memory.rs).
        if !writable_storage(variable.space) {
            return;
        }
        path.reverse();
        let id = match self.ids.get(&(context.key, key, kind)) {
            Some(&id) => id,
            None => {
                let name = variable.name.clone().unwrap_or_default();
                // The place as written: the pointer's text (`atomicLoad(&p)`'s own span is the
                // callee's name), where it names the variable.
                let pointer_span = expressions.get_span(pointer);
                let (text, span) = match pointer_span.to_range() {
                    Some(r)
                        if self.source[r.clone()]
                            .trim_start_matches('&')
                            .starts_with(&name) =>
                    {
                        (
                            self.source[r].trim_start_matches('&').to_string(),
                            pointer_span,
                        )
                    }
                    _ => (name, span),
                };
                let atomic = match context.info[pointer].ty.inner_with(&self.module.types) {
                    TypeInner::Pointer { base, .. } => {
                        matches!(self.module.types[*base].inner, TypeInner::Atomic(_))
                    }
                    _ => false,
                };
                let (mut depends, mut volatile) = (Vec::new(), false);
                for index in indices {
                    let (d, v) = self.dependencies(context, index);
                    depends.extend(d);
                    volatile |= v;
                }
                self.trace.accesses.push(Access {
                    depends,
                    volatile,
                    kind,
                    atomic,
                    global,
                    path,
                    text,
                    at: self.locator.at(span),
                    function: context.name.to_string(),
                });
                let id = self.trace.accesses.len() - 1;
                self.ids.insert((context.key, key, kind), id);
                id
            }
        };
        self.push(Event::Access(id));
    }
}
