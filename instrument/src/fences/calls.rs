//! What the uniformity analysis knows of calls: each call's arguments by its result, and
//! the summaries of functions whose result is uniform (computed in results.rs).

use naga::{Block, Expression, Function, Handle, Statement};
use std::collections::HashMap;

/// Functions whose result is uniform when the arguments at these indices are.
pub type Results = HashMap<Handle<Function>, Vec<usize>>;

/// The arguments of each call whose result a function uses, by the call's result.
pub struct Calls(HashMap<Handle<Expression>, Vec<Handle<Expression>>>);

impl Calls {
    pub fn of(function: &Function) -> Calls {
        let mut calls = HashMap::new();
        collect_calls(&function.body, &mut calls);
        Calls(calls)
    }

    pub fn arguments(&self, result: Handle<Expression>) -> Option<&[Handle<Expression>]> {
        self.0.get(&result).map(Vec::as_slice)
    }
}

fn collect_calls(block: &Block, calls: &mut HashMap<Handle<Expression>, Vec<Handle<Expression>>>) {
    crate::walk::each_statement(block, &mut |statement| {
        if let Statement::Call {
            arguments,
            result: Some(result),
            ..
        } = statement
        {
            calls.insert(*result, arguments.clone());
        }
    });
}
