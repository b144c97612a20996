//! What a statement is, as the passes see it: `Step::of` sorts naga's `Statement` into the
//! few kinds the passes tell apart (nested blocks, jumps, barriers, memory accesses, calls,
//! subgroup operations, the rest), each with its parts. It is the one match on every
//! `Statement` in the crate: the passes that treat each kind of statement, the walk
//! (walk.rs), the operand visit (operands.rs) and the importer's renumbering (remap.rs) match
//! on the view instead. Code that picks out one or two statements (`if let
//! Statement::Call ..`) and passes the rest by may still match naga's type.
//!
//! The match names every variant with no catch-all: a naga upgrade that adds a statement
//! fails to compile here, and only here. Sorting it into a kind decides what every pass does
//! with it; a statement of a new kind is a new variant of the view, which fails to compile in
//! each pass that matches the view whole.
//!
//! The view and its match are written once, in a macro expanded for shared borrows (`Step`,
//! `Nested`, `Jump`, `Memory`) and for mutable ones (`StepMut`, ...), which rewrite handles and
//! blocks in place.

use naga::{
    AtomicFunction, Barrier, Block, Expression, Function, GatherMode, Handle, Range,
    RayPipelineFunction, RayQueryFunction, Statement, SwitchCase,
};

macro_rules! view {
    ($(#[$attr:meta])* $Step:ident, $Nested:ident, $Jump:ident, $Memory:ident, $($m:tt)?) => {
        /// A statement, sorted by what the passes do with it.
        $(#[$attr])*
        pub(crate) enum $Step<'a> {
            /// Evaluates the expressions of the range, in order.
            Emit(&'a $($m)? Range<Expression>),
            /// Holds blocks: a block, an `if`, a `switch`, a loop.
            Nested($Nested<'a>),
            /// Leaves: `break`, `continue`, `return`, `discard`.
            Jump($Jump<'a>),
            /// Orders memory (the `flags`); a control barrier (`control`) also waits for the
            /// whole workgroup.
            Barrier {
                control: bool,
                flags: &'a $($m)? Barrier,
            },
            /// Stores, updates or loads memory itself (not through an `Emit`).
            Memory($Memory<'a>),
            Call {
                function: &'a $($m)? Handle<Function>,
                arguments: &'a $($m)? [Handle<Expression>],
                result: Option<&'a $($m)? Handle<Expression>>,
            },
            /// A subgroup operation (ballot, gather, collective): it needs the subgroup's
            /// uniform control flow.
            Subgroup {
                operands: Vec<&'a $($m)? Handle<Expression>>,
                result: &'a $($m)? Handle<Expression>,
            },
            /// What no pass treats by kind (ray queries, ray pipeline functions, cooperative
            /// matrix stores): seen through its operands and its result only. It names no
            /// module-level item (remap.rs relies on it) and touches no storage the
            /// dispatch writes, as far as the passes go.
            Other {
                operands: Vec<&'a $($m)? Handle<Expression>>,
                result: Option<&'a $($m)? Handle<Expression>>,
            },
        }

        /// A statement that holds blocks.
        pub(crate) enum $Nested<'a> {
            Block(&'a $($m)? Block),
            If {
                condition: &'a $($m)? Handle<Expression>,
                accept: &'a $($m)? Block,
                reject: &'a $($m)? Block,
            },
            Switch {
                selector: &'a $($m)? Handle<Expression>,
                cases: &'a $($m)? [SwitchCase],
            },
            Loop {
                body: &'a $($m)? Block,
                continuing: &'a $($m)? Block,
                break_if: Option<&'a $($m)? Handle<Expression>>,
            },
        }

        /// A statement that leaves: its block, its loop, its function or its invocation.
        pub(crate) enum $Jump<'a> {
            Break,
            Continue,
            Return {
                value: Option<&'a $($m)? Handle<Expression>>,
            },
            Kill,
        }

        /// A statement that touches memory itself.
        pub(crate) enum $Memory<'a> {
            Store {
                pointer: &'a $($m)? Handle<Expression>,
                value: &'a $($m)? Handle<Expression>,
            },
            Atomic {
                pointer: &'a $($m)? Handle<Expression>,
                fun: &'a $($m)? AtomicFunction,
                value: &'a $($m)? Handle<Expression>,
                result: Option<&'a $($m)? Handle<Expression>>,
            },
            /// A storage texture's texel: stored (`fun` is `None`) or updated atomically.
            Texel {
                image: &'a $($m)? Handle<Expression>,
                coordinate: &'a $($m)? Handle<Expression>,
                array_index: Option<&'a $($m)? Handle<Expression>>,
                fun: Option<&'a $($m)? AtomicFunction>,
                value: &'a $($m)? Handle<Expression>,
            },
            /// `workgroupUniformLoad`: a load of workgroup memory that is also a control
            /// barrier.
            UniformLoad {
                pointer: &'a $($m)? Handle<Expression>,
                result: &'a $($m)? Handle<Expression>,
            },
        }

        impl<'a> $Step<'a> {
            /// What `statement` is. Operand lists keep naga's field order.
            pub(crate) fn of(statement: &'a $($m)? Statement) -> Self {
                match statement {
                    Statement::Emit(range) => Self::Emit(range),
                    Statement::Block(block) => Self::Nested($Nested::Block(block)),
                    Statement::If {
                        condition,
                        accept,
                        reject,
                    } => Self::Nested($Nested::If {
                        condition,
                        accept,
                        reject,
                    }),
                    Statement::Switch { selector, cases } => {
                        Self::Nested($Nested::Switch { selector, cases })
                    }
                    Statement::Loop {
                        body,
                        continuing,
                        break_if,
                    } => Self::Nested($Nested::Loop {
                        body,
                        continuing,
                        break_if: break_if.into(),
                    }),
                    Statement::Break => Self::Jump($Jump::Break),
                    Statement::Continue => Self::Jump($Jump::Continue),
                    Statement::Return { value } => Self::Jump($Jump::Return {
                        value: value.into(),
                    }),
                    Statement::Kill => Self::Jump($Jump::Kill),
                    Statement::ControlBarrier(flags) => Self::Barrier {
                        control: true,
                        flags,
                    },
                    Statement::MemoryBarrier(flags) => Self::Barrier {
                        control: false,
                        flags,
                    },
                    Statement::Store { pointer, value } => {
                        Self::Memory($Memory::Store { pointer, value })
                    }
                    Statement::ImageStore {
                        image,
                        coordinate,
                        array_index,
                        value,
                    } => Self::Memory($Memory::Texel {
                        image,
                        coordinate,
                        array_index: array_index.into(),
                        fun: None,
                        value,
                    }),
                    Statement::Atomic {
                        pointer,
                        fun,
                        value,
                        result,
                    } => Self::Memory($Memory::Atomic {
                        pointer,
                        fun,
                        value,
                        result: result.into(),
                    }),
                    Statement::ImageAtomic {
                        image,
                        coordinate,
                        array_index,
                        fun,
                        value,
                    } => Self::Memory($Memory::Texel {
                        image,
                        coordinate,
                        array_index: array_index.into(),
                        fun: Some(fun),
                        value,
                    }),
                    Statement::WorkGroupUniformLoad { pointer, result } => {
                        Self::Memory($Memory::UniformLoad { pointer, result })
                    }
                    Statement::Call {
                        function,
                        arguments,
                        result,
                    } => Self::Call {
                        function,
                        arguments,
                        result: result.into(),
                    },
                    Statement::RayQuery { query, fun } => {
                        let (operands, result) = match fun {
                            RayQueryFunction::Initialize {
                                acceleration_structure,
                                descriptor,
                            } => (vec![query, acceleration_structure, descriptor], None),
                            RayQueryFunction::Proceed { result } => (vec![query], Some(result)),
                            RayQueryFunction::GenerateIntersection { hit_t } => {
                                (vec![query, hit_t], None)
                            }
                            RayQueryFunction::ConfirmIntersection
                            | RayQueryFunction::Terminate => (vec![query], None),
                        };
                        Self::Other { operands, result }
                    }
                    Statement::RayPipelineFunction(RayPipelineFunction::TraceRay {
                        acceleration_structure,
                        descriptor,
                        payload,
                    }) => Self::Other {
                        operands: vec![acceleration_structure, descriptor, payload],
                        result: None,
                    },
                    Statement::SubgroupBallot { result, predicate } => {
                        let predicate: Option<&'a $($m)? Handle<Expression>> = predicate.into();
                        Self::Subgroup {
                            operands: predicate.into_iter().collect(),
                            result,
                        }
                    }
                    Statement::SubgroupGather {
                        mode,
                        argument,
                        result,
                    } => {
                        let operands = match mode {
                            GatherMode::BroadcastFirst | GatherMode::QuadSwap(_) => {
                                vec![argument]
                            }
                            GatherMode::Broadcast(h)
                            | GatherMode::Shuffle(h)
                            | GatherMode::ShuffleDown(h)
                            | GatherMode::ShuffleUp(h)
                            | GatherMode::ShuffleXor(h)
                            | GatherMode::QuadBroadcast(h) => vec![h, argument],
                        };
                        Self::Subgroup { operands, result }
                    }
                    Statement::SubgroupCollectiveOperation {
                        argument, result, ..
                    } => Self::Subgroup {
                        operands: vec![argument],
                        result,
                    },
                    Statement::CooperativeStore { target, data } => Self::Other {
                        operands: vec![
                            target,
                            & $($m)? data.pointer,
                            & $($m)? data.stride,
                        ],
                        result: None,
                    },
                }
            }

            /// The result expression the statement defines (a call's, an atomic's, ...), if
            /// any.
            pub(crate) fn result(self) -> Option<&'a $($m)? Handle<Expression>> {
                match self {
                    Self::Call { result, .. }
                    | Self::Other { result, .. }
                    | Self::Memory($Memory::Atomic { result, .. }) => result,
                    Self::Subgroup { result, .. }
                    | Self::Memory($Memory::UniformLoad { result, .. }) => Some(result),
                    Self::Emit(_)
                    | Self::Nested(_)
                    | Self::Jump(_)
                    | Self::Barrier { .. }
                    | Self::Memory($Memory::Store { .. } | $Memory::Texel { .. }) => None,
                }
            }
        }

        impl<'a> $Nested<'a> {
            /// Calls `visit` on each block, in order: a block's own, an `if`'s accept then
            /// reject, a `switch`'s case bodies, a loop's body then continuing.
            pub(crate) fn blocks(self, mut visit: impl FnMut(&'a $($m)? Block)) {
                match self {
                    Self::Block(block) => visit(block),
                    Self::If { accept, reject, .. } => {
                        visit(accept);
                        visit(reject);
                    }
                    Self::Switch { cases, .. } => {
                        for case in cases {
                            visit(& $($m)? case.body);
                        }
                    }
                    Self::Loop {
                        body, continuing, ..
                    } => {
                        visit(body);
                        visit(continuing);
                    }
                }
            }
        }
    };
}

view!(Step, Nested, Jump, Memory,);
view!(
    // Both views have every part; nothing rewrites an `Emit`'s range or a barrier's flags.
    #[allow(dead_code)]
    StepMut,
    NestedMut,
    JumpMut,
    MemoryMut,
    mut
);
