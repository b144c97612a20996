//! What a loop iteration's state is made of, for the scheduler's test of progress
//! (library.wgsl's `wgstress_step`): the locals the loop stores, and the values it reads from
//! atomics and gets back from calls. An iteration that leaves all of them as the iteration
//! before did is a wait; a lock taken and released, or a queue polled empty, changes none of
//! them, while a wait that sees a new value or a loop index that indexes memory does. In a loop
//! that reads, a local it only counts with (a bounded spin's count) is no part of it
//! (counters.rs).

use crate::ir::builder::BlockBuilder;
use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{
    BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Module, Scalar, ScalarKind,
    Statement, TypeInner,
};
use std::collections::HashMap;

/// How a 32-bit value becomes a word of the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    U32,
    /// i32 or f32: its bits.
    Bits,
    Bool,
}

/// A value the hash takes: a scalar (`count` 1) or a vector of `count` components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    word: Word,
    count: u32,
}

/// What of a read value is hashed: the value, or the old value of a compare-exchange result.
#[derive(Clone, Copy, Debug)]
enum Read {
    Value(Shape),
    OldValue(Shape),
}

/// A function's locals and reads, typed once before the watchdog rewrites its loops.
pub(crate) struct StateTypes {
    locals: Vec<Option<Shape>>,
    /// Locals a loop only counts with (counters.rs): no part of its state.
    counters: Vec<bool>,
    reads: HashMap<Handle<Expression>, Read>,
}

impl StateTypes {
    pub(crate) fn of(module: &Module, function: &Function) -> StateTypes {
        let locals = function
            .local_variables
            .iter()
            .map(|(_, l)| shape_of(&module.types[l.ty].inner))
            .collect();
        let ctx =
            ResolveContext::with_locals(module, &function.local_variables, &function.arguments);
        let mut typifier = Typifier::new();
        let mut reads = HashMap::new();
        for (handle, expression) in function.expressions.iter() {
            let read = match *expression {
                Expression::Load { pointer } => {
                    if typifier.grow(pointer, &function.expressions, &ctx).is_err() {
                        continue;
                    }
                    match *typifier.get(pointer, &module.types) {
                        TypeInner::Pointer { base, .. } => match module.types[base].inner {
                            TypeInner::Atomic(scalar) => {
                                word(scalar).map(|word| Read::Value(Shape { word, count: 1 }))
                            }
                            _ => None,
                        },
                        _ => None,
                    }
                }
                Expression::AtomicResult { ty, comparison } => {
                    match (&module.types[ty].inner, comparison) {
                        (TypeInner::Struct { members, .. }, true) => members
                            .first()
                            .and_then(|m| shape_of(&module.types[m.ty].inner))
                            .map(Read::OldValue),
                        (inner, false) => shape_of(inner).map(Read::Value),
                        _ => None,
                    }
                }
                Expression::CallResult(callee) => module.functions[callee]
                    .result
                    .as_ref()
                    .and_then(|r| shape_of(&module.types[r.ty].inner))
                    .map(Read::Value),
                _ => None,
            };
            if let Some(read) = read {
                reads.insert(handle, read);
            }
        }
        StateTypes {
            locals,
            counters: crate::passes::counters::counters(module, function),
            reads,
        }
    }

    /// The locals of scalar or vector type that `body` (nested loops included) stores, other
    /// than `ours`, in handle order.
    pub(crate) fn stored_locals(
        &self,
        function: &Function,
        body: &[&Block],
        ours: &[Handle<LocalVariable>],
    ) -> Vec<Handle<LocalVariable>> {
        let mut stored = Vec::new();
        for block in body {
            collect_stores(block, function, &mut stored);
        }
        stored.sort_by_key(|l| l.index());
        stored.dedup();
        // A loop that reads nothing waits on nothing: its counter is its progress (a delay
        // loop, a loop over nested waits).
        let waits = body.iter().any(|block| self.reads_in(block));
        let counter = |l: &Handle<LocalVariable>| {
            waits && self.counters.get(l.index()).copied().unwrap_or(false)
        };
        stored.retain(|l| {
            let ours_or_counter = ours.contains(l) || counter(l);
            !ours_or_counter && self.locals.get(l.index()).copied().flatten().is_some()
        });
        stored
    }

    /// Whether `block` reads an atomic or gets a call's result itself (not in nested loops).
    fn reads_in(&self, block: &Block) -> bool {
        block.iter().any(|statement| match statement {
            Statement::If { accept, reject, .. } => self.reads_in(accept) || self.reads_in(reject),
            Statement::Switch { cases, .. } => cases.iter().any(|c| self.reads_in(&c.body)),
            Statement::Block(inner) => self.reads_in(inner),
            other => !self.own_reads(other).is_empty(),
        })
    }

    /// The reads `statement` makes itself: those its emitted expressions, or its atomic's or
    /// call's result, are (not those of the blocks it holds).
    fn own_reads(&self, statement: &Statement) -> Vec<Handle<Expression>> {
        match statement {
            Statement::Emit(range) => range
                .clone()
                .filter(|h| self.reads.contains_key(h))
                .collect(),
            Statement::Atomic {
                result: Some(r), ..
            }
            | Statement::Call {
                result: Some(r), ..
            } if self.reads.contains_key(r) => vec![*r],
            _ => Vec::new(),
        }
    }

    /// `block` with `acc = mix(acc, value)` after every read it makes itself (reads in nested
    /// loops are those loops' own).
    pub(crate) fn capture_reads(
        &self,
        block: Block,
        function: &mut Function,
        acc: Handle<LocalVariable>,
    ) -> Block {
        let mut out = Block::with_capacity(block.len());
        for (mut statement, span) in block.span_into_iter() {
            match &mut statement {
                Statement::If { accept, reject, .. } => {
                    *accept = self.capture_reads(std::mem::take(accept), function, acc);
                    *reject = self.capture_reads(std::mem::take(reject), function, acc);
                }
                Statement::Switch { cases, .. } => {
                    for case in cases {
                        case.body =
                            self.capture_reads(std::mem::take(&mut case.body), function, acc);
                    }
                }
                Statement::Block(inner) => {
                    *inner = self.capture_reads(std::mem::take(inner), function, acc);
                }
                _ => {}
            }
            let read = self.own_reads(&statement);
            out.push(statement, span);
            if !read.is_empty() {
                let mut b = BlockBuilder::new(function, span);
                let pointer = b.expr(Expression::LocalVariable(acc));
                let mut hash = b.expr(Expression::Load { pointer });
                for value in read {
                    let (value, shape) = match self.reads[&value] {
                        Read::Value(shape) => (value, shape),
                        Read::OldValue(shape) => (
                            b.expr(Expression::AccessIndex {
                                base: value,
                                index: 0,
                            }),
                            shape,
                        ),
                    };
                    hash = mix_value(&mut b, hash, value, shape);
                }
                b.statement(Statement::Store {
                    pointer,
                    value: hash,
                });
                out.append(&mut b.finish());
            }
        }
        out
    }

    /// `hash` folded with every word of local `local`.
    pub(crate) fn mix_local(
        &self,
        b: &mut BlockBuilder,
        hash: Handle<Expression>,
        local: Handle<LocalVariable>,
    ) -> Handle<Expression> {
        let shape = self.locals[local.index()].expect("a local of a hashable type");
        let pointer = b.expr(Expression::LocalVariable(local));
        let value = b.expr(Expression::Load { pointer });
        mix_value(b, hash, value, shape)
    }
}

/// `hash` folded with each word of `value`, as library.wgsl's `wgstress_mix`.
fn mix_value(
    b: &mut BlockBuilder,
    mut hash: Handle<Expression>,
    value: Handle<Expression>,
    shape: Shape,
) -> Handle<Expression> {
    for component in 0..shape.count {
        let part = if shape.count == 1 {
            value
        } else {
            b.expr(Expression::AccessIndex {
                base: value,
                index: component,
            })
        };
        let word = match shape.word {
            Word::U32 => part,
            Word::Bits => b.expr(Expression::As {
                expr: part,
                kind: ScalarKind::Uint,
                convert: None,
            }),
            Word::Bool => {
                let one = b.u32(1);
                let zero = b.u32(0);
                b.expr(Expression::Select {
                    condition: part,
                    accept: one,
                    reject: zero,
                })
            }
        };
        let mixed = b.expr(Expression::Binary {
            op: BinaryOperator::ExclusiveOr,
            left: hash,
            right: word,
        });
        let prime = b.u32(0x0100_0193);
        hash = b.expr(Expression::Binary {
            op: BinaryOperator::Multiply,
            left: mixed,
            right: prime,
        });
    }
    hash
}

fn word(scalar: Scalar) -> Option<Word> {
    match (scalar.kind, scalar.width) {
        (ScalarKind::Uint, 4) => Some(Word::U32),
        (ScalarKind::Sint, 4) | (ScalarKind::Float, 4) => Some(Word::Bits),
        (ScalarKind::Bool, _) => Some(Word::Bool),
        _ => None,
    }
}

fn shape_of(inner: &TypeInner) -> Option<Shape> {
    match *inner {
        TypeInner::Scalar(scalar) => word(scalar).map(|word| Shape { word, count: 1 }),
        TypeInner::Vector { size, scalar } => word(scalar).map(|word| Shape {
            word,
            count: size as u32,
        }),
        _ => None,
    }
}

/// The local a pointer expression points into, if any.
fn local_root(
    function: &Function,
    mut pointer: Handle<Expression>,
) -> Option<Handle<LocalVariable>> {
    loop {
        match function.expressions[pointer] {
            Expression::LocalVariable(local) => return Some(local),
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                pointer = base
            }
            _ => return None,
        }
    }
}

fn collect_stores(block: &Block, function: &Function, out: &mut Vec<Handle<LocalVariable>>) {
    for statement in block.iter() {
        match statement {
            Statement::Store { pointer, .. } => out.extend(local_root(function, *pointer)),
            Statement::Call { arguments, .. } => {
                out.extend(arguments.iter().filter_map(|a| local_root(function, *a)))
            }
            Statement::If { accept, reject, .. } => {
                collect_stores(accept, function, out);
                collect_stores(reject, function, out);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    collect_stores(&case.body, function, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                collect_stores(body, function, out);
                collect_stores(continuing, function, out);
            }
            Statement::Block(inner) => collect_stores(inner, function, out),
            _ => {}
        }
    }
}
