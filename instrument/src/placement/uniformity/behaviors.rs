//! WGSL's behavior analysis: how a statement may end (it falls through to the next one, or
//! it breaks, continues or returns). The uniformity analysis needs it: control flow after an
//! `if` that may leave early depends on its condition, and code after a statement that
//! cannot fall through is unreachable and not analyzed (Tint accepts a barrier there).

use crate::ir::statement::{Jump, Nested, Step};
use naga::{Block, Statement};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Behaviors(u8);

impl Behaviors {
    pub(crate) const NEXT: Behaviors = Behaviors(1);
    pub(crate) const BREAK: Behaviors = Behaviors(2);
    pub(crate) const CONTINUE: Behaviors = Behaviors(4);
    pub(crate) const RETURN: Behaviors = Behaviors(8);

    pub(crate) fn has(self, other: Behaviors) -> bool {
        self.0 & other.0 != 0
    }

    pub(crate) fn with(self, other: Behaviors) -> Behaviors {
        Behaviors(self.0 | other.0)
    }

    pub(crate) fn without(self, other: Behaviors) -> Behaviors {
        Behaviors(self.0 & !other.0)
    }

    /// Only falls through: control flow after it is as before it.
    pub(crate) fn only_next(self) -> bool {
        self == Behaviors::NEXT
    }
}

/// How `block` may end; the statements after one that cannot fall through add nothing.
pub(crate) fn of_block(block: &Block) -> Behaviors {
    let mut behaviors = Behaviors::NEXT;
    for statement in block.iter() {
        if !behaviors.has(Behaviors::NEXT) {
            break;
        }
        behaviors = behaviors.without(Behaviors::NEXT).with(of(statement));
    }
    behaviors
}

/// How `statement` may end.
pub(crate) fn of(statement: &Statement) -> Behaviors {
    match Step::of(statement) {
        Step::Jump(Jump::Break) => Behaviors::BREAK,
        Step::Jump(Jump::Continue) => Behaviors::CONTINUE,
        // A discard ends the invocation's effects; in a compute shader there is none.
        Step::Jump(Jump::Return { .. } | Jump::Kill) => Behaviors::RETURN,
        Step::Nested(Nested::Block(block)) => of_block(block),
        Step::Nested(Nested::If { accept, reject, .. }) => of_block(accept).with(of_block(reject)),
        Step::Nested(Nested::Switch { cases, .. }) => {
            // A case that falls through (naga's form of `case 1u, 2u:`) ends as the next.
            let mut all = Behaviors::default();
            let mut next = Behaviors::NEXT;
            for case in cases.iter().rev() {
                let mut own = of_block(&case.body);
                if case.fall_through && own.has(Behaviors::NEXT) {
                    own = own.without(Behaviors::NEXT).with(next);
                }
                all = all.with(own);
                next = own;
            }
            if all.has(Behaviors::BREAK) {
                all = all.without(Behaviors::BREAK).with(Behaviors::NEXT);
            }
            all
        }
        Step::Nested(Nested::Loop {
            body,
            continuing,
            break_if,
        }) => {
            let mut all = of_block(body);
            if all.has(Behaviors::NEXT) || all.has(Behaviors::CONTINUE) {
                let ends = of_block(continuing);
                if break_if.is_some() && ends.has(Behaviors::NEXT) {
                    all = all.with(Behaviors::BREAK);
                }
            }
            let after = if all.has(Behaviors::BREAK) {
                Behaviors::NEXT
            } else {
                Behaviors::default()
            };
            after.with(Behaviors(all.0 & Behaviors::RETURN.0))
        }
        Step::Emit(_)
        | Step::Barrier { .. }
        | Step::Memory(_)
        | Step::Call { .. }
        | Step::Subgroup { .. }
        | Step::Other { .. } => Behaviors::NEXT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The behaviors of the first statement of `code` that is not an evaluation (`x` is a
    /// local; a store after it keeps naga from moving the function's `return` into it).
    fn of_main(code: &str) -> Behaviors {
        let source =
            format!("@compute @workgroup_size(1) fn main() {{ var x = 0u; {code} x = 5u; }}");
        let module = naga::front::wgsl::parse_str(&source).unwrap();
        let body = &module.entry_points[0].function.body;
        of(body
            .iter()
            .find(|s| !matches!(s, Statement::Emit(_)))
            .unwrap())
    }

    #[test]
    fn branches_unite_and_loops_turn_a_break_into_falling_through() {
        let (n, b, r) = (Behaviors::NEXT, Behaviors::BREAK, Behaviors::RETURN);
        assert_eq!(of_main("if x == 1u { return; }"), n.with(r));
        assert_eq!(of_main("loop { if x == 1u { break; } }"), n);
        assert_eq!(of_main("loop { if x == 1u { return; } }"), r);
        assert_eq!(of_main("loop { x++; continuing { break if x > 3u; } }"), n);
        assert_eq!(
            of_main("for (var i = 0u; i < 4u; i++) { if i == x { return; } }"),
            n.with(r)
        );
        assert_eq!(
            of_main("switch x { case 1u, 2u: { return; } default: { break; } }"),
            n.with(r)
        );
        assert_eq!(
            of_main("switch x { case 1u, 2u: { return; } default: { return; } }"),
            r
        );
        assert!(!of_main("loop { if x == 1u { break; } }").has(b));
    }
}
