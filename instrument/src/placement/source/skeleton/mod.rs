//! The skeleton of a module: each function's memory accesses, barriers, calls and control
//! flow in order, with every value written as the tree that computes it. Two modules with
//! one skeleton do the same accesses in the same order around the same barriers; what it
//! leaves out is naming and the places of evaluations that read no memory.
//!
//! The source patch is checked against the IR-level fix this way: the user's text with the
//! edits, parsed again, must have the skeleton of the module the search verified (patch.rs).
//! The differences a correct edit makes, and the skeleton forgets:
//! - names (temporaries, `let`s, the variables a split keeps values in);
//! - a local variable with no initializer stored once (a split's carrier in the IR, a `let`
//!   turned `var` in the text): a load of it is the value stored, the store is not written;
//! - where pure evaluations happen: a barrier before a statement in the text precedes the
//!   address computation naga emitted first;
//! - `if c { A } if c { B }` next to each other is `if c { A B }` (the IR splits a branch at
//!   every site, the text only at the chosen ones), and barriers in a row count once;
//! - an atomic operation's or call's result nobody uses.

mod node;
mod printer;
mod uses;

use naga::{Function, Module};
use node::Node;
use printer::Printer;
use std::collections::HashSet;

/// The first line where the skeletons of `a` and `b` differ, if they do.
pub(crate) fn difference(a: &Module, b: &Module) -> Option<String> {
    let (a, b) = (of_module(a), of_module(b));
    let line = a.iter().zip(&b).position(|(x, y)| x != y);
    match line {
        Some(i) => Some(format!("`{}` where the fix has `{}`", b[i], a[i])),
        None if a.len() != b.len() => Some(format!(
            "{} skeleton lines where the fix has {}",
            b.len(),
            a.len()
        )),
        None => None,
    }
}

/// The skeleton of every global, function and entry point, by name.
pub(crate) fn of_module(module: &Module) -> Vec<String> {
    let mut lines = Vec::new();
    let mut globals: Vec<String> = module
        .global_variables
        .iter()
        .map(|(_, g)| {
            format!(
                "global {} {:?} {}",
                g.name.as_deref().unwrap_or(""),
                g.space,
                printer::type_name(module, g.ty)
            )
        })
        .collect();
    globals.sort();
    lines.extend(globals);
    let mut functions: Vec<(String, &Function)> = module
        .functions
        .iter()
        .map(|(_, f)| (f.name.clone().unwrap_or_default(), f))
        .chain(
            module
                .entry_points
                .iter()
                .map(|e| (e.name.clone(), &e.function)),
        )
        .collect();
    functions.sort_by(|x, y| x.0.cmp(&y.0));
    let mut bodies: Vec<(String, Vec<Node>)> = functions
        .into_iter()
        .map(|(name, function)| {
            let mut body = function.body.clone();
            if function.result.is_none() {
                crate::placement::returns::hoist(&mut body);
            }
            let mut printer = Printer::new(module, function);
            let mut nodes = printer.block(&body);
            merge(&mut nodes);
            (name, nodes)
        })
        .collect();
    // A function is private when nothing it does is seen outside the invocation (callees
    // come before callers in naga's arena, so one pass in that order would do; the fixed
    // point needs no order).
    let mut private: HashSet<String> = HashSet::new();
    loop {
        let before = private.len();
        for (name, nodes) in &bodies {
            let returns = |n: &Node| matches!(n, Node::Line(l) if l.starts_with("return"));
            if nodes.iter().all(|n| n.private(&private) || returns(n)) {
                private.insert(name.clone());
            }
        }
        if private.len() == before {
            break;
        }
    }
    for (name, nodes) in &mut bodies {
        commute(nodes, &private);
        merge(nodes);
        lines.push(format!("fn {name}"));
        flatten(nodes, 1, &mut lines);
    }
    lines
}

impl Node {
    /// Whether the node does nothing another invocation could see or order: stores into
    /// locals, workgroup-uniform loads, barriers, calls of private functions, and branches
    /// and loops of those.
    fn private(&self, functions: &HashSet<String>) -> bool {
        match self {
            Node::Line(text) => {
                text.starts_with("private ")
                    || text.starts_with("barrier")
                    || text.contains("= private ")
                    || text.contains("= uniform load")
                    || callee(text).is_some_and(|c| functions.contains(c))
            }
            Node::If(_, a, r) => a.iter().chain(r).all(|n| n.private(functions)),
            Node::Nested(_, blocks) => blocks.iter().flatten().all(|n| n.private(functions)),
        }
    }
}

/// The function a `call` line calls.
fn callee(line: &str) -> Option<&str> {
    let call = line.split("call ").nth(1)?;
    call.split('(').next()
}

/// Moves each storage barrier past the private nodes after it, at every depth: a barrier
/// orders the same accesses on either side of them, and the IR and the text may put it on
/// different sides (the site rule of place.rs passes them).
fn commute(nodes: &mut [Node], private: &HashSet<String>) {
    for node in nodes.iter_mut() {
        match node {
            Node::If(_, a, r) => {
                commute(a, private);
                commute(r, private);
            }
            Node::Nested(_, blocks) => blocks.iter_mut().for_each(|b| commute(b, private)),
            Node::Line(_) => {}
        }
    }
    let mut i = nodes.len();
    while i > 0 {
        i -= 1;
        let mut at = i;
        while at + 1 < nodes.len()
            && matches!(&nodes[at], Node::Line(l) if l == STORAGE_BARRIER)
            && nodes[at + 1].private(private)
            && !matches!(&nodes[at + 1], Node::Line(l) if l == STORAGE_BARRIER)
        {
            nodes.swap(at, at + 1);
            at += 1;
        }
    }
}

const STORAGE_BARRIER: &str = "barrier Barrier(STORAGE)";

fn flatten(nodes: &[Node], depth: usize, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    for node in nodes {
        match node {
            Node::Line(text) => out.push(format!("{pad}{text}")),
            Node::If(condition, accept, reject) => {
                out.push(format!("{pad}if {condition}"));
                flatten(accept, depth + 1, out);
                out.push(format!("{pad}else"));
                flatten(reject, depth + 1, out);
            }
            Node::Nested(head, blocks) => {
                out.push(format!("{pad}{head}"));
                for block in blocks {
                    flatten(block, depth + 1, out);
                    out.push(format!("{pad}-"));
                }
            }
        }
    }
}

/// Joins `if c { A } if c { B }` into `if c { A B }` and barriers in a row into one, at every
/// depth.
fn merge(nodes: &mut Vec<Node>) {
    for node in nodes.iter_mut() {
        match node {
            Node::If(_, a, r) => {
                merge(a);
                merge(r);
            }
            Node::Nested(_, blocks) => blocks.iter_mut().for_each(merge),
            Node::Line(_) => {}
        }
    }
    let old = std::mem::take(nodes);
    for node in old {
        match (nodes.last_mut(), node) {
            (Some(Node::If(c1, a1, r1)), Node::If(c2, a2, r2))
                if *c1 == c2
                    && (r1.is_empty() && r2.is_empty() || a1.is_empty() && a2.is_empty()) =>
            {
                a1.extend(a2);
                r1.extend(r2);
                merge(a1);
                merge(r1);
            }
            (Some(Node::Line(last)), Node::Line(line))
                if last.starts_with("barrier") && *last == line => {}
            (_, node) => nodes.push(node),
        }
    }
}

#[cfg(test)]
mod tests;
