//! Assertion hooks: every call of the user's empty `wgstress_assert(cond)` becomes a call of
//! the library's `wgstress_assert_at(cond, site)`, which records violations in the results.

use crate::ir::walk::nested_blocks;
use crate::passes::sites::Sites;
use naga::{Block, Expression, Function, Handle, Literal};

pub(crate) struct AssertHook {
    /// The user's `wgstress_assert`.
    pub hook: Handle<Function>,
    /// The library's `wgstress_assert_at`.
    pub recorder: Handle<Function>,
}

impl AssertHook {
    pub(crate) fn rewrite(&self, function: &mut Function, name: &str, sites: &mut Sites) {
        let mut body = std::mem::take(&mut function.body);
        self.rewrite_block(&mut body, function, name, sites);
        function.body = body;
    }

    fn rewrite_block(&self, block: &mut Block, fun: &mut Function, name: &str, sites: &mut Sites) {
        for (statement, span) in block.span_iter_mut() {
            let span = span.map_or(naga::Span::UNDEFINED, |s| *s);
            if let naga::Statement::Call {
                function,
                arguments,
                ..
            } = statement
            {
                if *function == self.hook {
                    let id = sites.add(name, span);
                    let site = fun
                        .expressions
                        .append(Expression::Literal(Literal::U32(id)), span);
                    *function = self.recorder;
                    arguments.push(site);
                }
            }
            nested_blocks(statement, |inner| {
                self.rewrite_block(inner, fun, name, sites)
            });
        }
    }
}
