//! Where each site's barrier sits in naga's IR: read off the module with a marker call at
//! every site (patch.rs), as the statements around the marker in its block and the statement
//! that owns the block. The source side (locate.rs) turns this into a place in the text.

use crate::ir::memory::into_writable_storage;
use crate::placement::patch::Marked;
use naga::{Block, Expression, Function, Handle, Literal, Span, Statement};
use std::collections::{HashMap, HashSet};

/// A site's place in the IR.
#[derive(Clone, Debug)]
pub(crate) struct IrAnchor {
    pub function: String,
    /// The nearest statements before and after the marker in its block that have a span in
    /// the source (naga's own statements, such as the loads of a `for` condition, have none).
    pub prev: Option<Span>,
    pub next: Option<Span>,
    pub owner: Owner,
}

/// The statement whose block holds the marker.
#[derive(Clone, Debug)]
pub(crate) enum Owner {
    /// The function's body.
    Body,
    If {
        span: Span,
        accept: bool,
    },
    Loop {
        span: Span,
        continuing: bool,
    },
    /// A loop's body before the `if c {} else { break; }` naga makes of a `for` or `while`
    /// condition: in the condition, where it is evaluated in steps (`a && b`, `a || b`).
    LoopHeader(Span),
    /// A `{ }` block, or naga's block around a `for` and its initializer.
    Block(Span),
    Switch {
        span: Span,
    },
    /// Between two parts of a non-uniform branch split around its sites (split.rs).
    Split {
        branch: Span,
        condition: Handle<Expression>,
        accept: bool,
    },
}

/// Each site's anchor, indexed by site id.
pub(crate) fn anchors(marked: &Marked) -> Vec<Option<IrAnchor>> {
    let mut found = vec![None; marked.sites.len()];
    let storage = crate::placement::module::storage_functions(&marked.module);
    let mut walk = |name: &str, function: &Function, original: Option<&Function>| {
        let branches = original.map(branch_spans).unwrap_or_default();
        let walker = Walker {
            function,
            module: &marked.module,
            storage: &storage,
            name,
            marker: marked.marker,
            branches: &branches,
        };
        walker.block(&function.body, Owner::Body, &mut found);
    };
    for (index, entry) in marked.module.entry_points.iter().enumerate() {
        let original = marked.original.entry_points.get(index).map(|e| &e.function);
        walk(&entry.name, &entry.function, original);
    }
    for (_, function) in marked.module.functions.iter() {
        let original = marked
            .original
            .functions
            .iter()
            .find(|(_, f)| f.name == function.name)
            .map(|(_, f)| f);
        walk(function.name.as_deref().unwrap_or(""), function, original);
    }
    found
}

/// The span of every `if` of `function`, nested ones too.
fn branch_spans(function: &Function) -> HashMap<(u32, u32), Handle<Expression>> {
    fn visit(block: &Block, out: &mut HashMap<(u32, u32), Handle<Expression>>) {
        for (statement, span) in block.span_iter() {
            if let Statement::If { condition, .. } = statement {
                out.insert(key(*span), *condition);
            }
            crate::ir::walk::nested_blocks_ref(statement, |inner| visit(inner, out));
        }
    }
    let mut out = HashMap::new();
    visit(&function.body, &mut out);
    out
}

struct Walker<'a> {
    function: &'a Function,
    module: &'a naga::Module,
    /// Functions that touch storage, themselves or through callees.
    storage: &'a HashSet<Handle<Function>>,
    name: &'a str,
    marker: Handle<Function>,
    branches: &'a HashMap<(u32, u32), Handle<Expression>>,
}

impl Walker<'_> {
    fn site(&self, statement: &Statement) -> Option<u32> {
        match statement {
            Statement::Call {
                function,
                arguments,
                ..
            } if *function == self.marker => match self.function.expressions[arguments[0]] {
                Expression::Literal(Literal::U32(id)) => Some(id),
                _ => None,
            },
            _ => None,
        }
    }

    fn block(&self, block: &Block, owner: Owner, found: &mut [Option<IrAnchor>]) {
        let statements: Vec<(&Statement, &Span)> = block.span_iter().collect();
        let header = match owner {
            Owner::Loop {
                continuing: false, ..
            } => condition_end(block),
            _ => 0,
        };
        for (index, (statement, span)) in statements.iter().enumerate() {
            let Some(id) = self.site(statement) else {
                self.nested(statement, **span, found);
                continue;
            };
            let owner = match owner {
                Owner::Loop { span, .. } if index < header => Owner::LoopHeader(span),
                ref other => other.clone(),
            };
            // A barrier moves freely across statements that touch no storage (as a site
            // does, place.rs): its neighbours are the nearest ones that do.
            let others = |s: &&(&Statement, &Span)| self.site(s.0).is_none();
            let (prev, next) = if let Owner::Split { .. } = owner {
                // Between two parts: the last access of the one before, the first of the one
                // after (the parts' own spans may be naga's undefined one).
                let p = statements[..index].iter().rev().find(others);
                let n = statements[index + 1..].iter().find(others);
                (
                    self.last_access(p.and_then(|s| part(s.0))),
                    self.first_access(n.and_then(|s| part(s.0))),
                )
            } else {
                let p = statements[..index].iter().rev().map(|s| (s.0, *s.1));
                let n = statements[index + 1..].iter().map(|s| (s.0, *s.1));
                (self.nearest(p), self.nearest(n))
            };
            if let Some(slot) = found.get_mut(id as usize) {
                *slot = Some(IrAnchor {
                    function: self.name.to_string(),
                    prev,
                    next,
                    owner: owner.clone(),
                });
            }
        }
    }

    /// The span of the first statement of `statements` that is not a marker, has a span and
    /// touches storage.
    fn nearest<'s>(&self, statements: impl Iterator<Item = (&'s Statement, Span)>) -> Option<Span> {
        statements
            .filter(|(s, span)| self.site(s).is_none() && span.is_defined())
            .find(|(s, _)| !self.passable(s))
            .map(|(_, span)| span)
    }

    fn last_access(&self, block: Option<&Block>) -> Option<Span> {
        let statements: Vec<(&Statement, Span)> =
            block?.span_iter().map(|(s, sp)| (s, *sp)).collect();
        self.nearest(statements.into_iter().rev())
    }

    fn first_access(&self, block: Option<&Block>) -> Option<Span> {
        self.nearest(block?.span_iter().map(|(s, sp)| (s, *sp)))
    }

    /// Whether `statement` touches no storage and leaves no block early: a barrier may move
    /// across it (as a site does, place.rs).
    fn passable(&self, statement: &Statement) -> bool {
        let expressions = &self.function.expressions;
        // Whether a pointer points outside the storage the dispatch writes (a local,
        // workgroup, private or uniform variable, a read-only buffer): a storage barrier does
        // not change what those accesses see, and the site rule passes them (memory.rs).
        let local = |pointer| !into_writable_storage(self.module, self.function, pointer);
        match statement {
            Statement::Emit(range) => range.clone().all(|h| match expressions[h] {
                Expression::Load { pointer } => local(pointer),
                _ => true,
            }),
            Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => local(*pointer),
            Statement::WorkGroupUniformLoad { .. }
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_) => true,
            Statement::Call { function, .. } => !self.storage.contains(function),
            Statement::If { accept, reject, .. } => {
                self.passable_block(accept) && self.passable_block(reject)
            }
            Statement::Block(inner) => self.passable_block(inner),
            _ => false,
        }
    }

    fn passable_block(&self, block: &Block) -> bool {
        block.iter().all(|s| self.passable(s))
    }

    fn nested(&self, statement: &Statement, span: Span, found: &mut [Option<IrAnchor>]) {
        match statement {
            Statement::Block(inner) => {
                let owner = match (self.branches.get(&key(span)), inner.first()) {
                    (Some(condition), Some(Statement::If { accept, .. })) => Owner::Split {
                        branch: span,
                        condition: *condition,
                        accept: !accept.is_empty(),
                    },
                    _ => Owner::Block(span),
                };
                self.block(inner, owner, found);
            }
            Statement::If { accept, reject, .. } => {
                self.block(accept, Owner::If { span, accept: true }, found);
                self.block(
                    reject,
                    Owner::If {
                        span,
                        accept: false,
                    },
                    found,
                );
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                let owner = |continuing| Owner::Loop { span, continuing };
                self.block(body, owner(false), found);
                self.block(continuing, owner(true), found);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    self.block(&case.body, Owner::Switch { span }, found);
                }
            }
            _ => {}
        }
    }
}

/// Where the condition of a `for` or `while` loop ends in naga's body of it: past its
/// `if c {} else { break; }` (the text's body follows as a block of its own, so the first
/// such `if` at the top level is the condition's), or 0 when the body has none. A `loop`
/// whose text begins with that `if` has no header: locate.rs tells them apart by the text.
fn condition_end(body: &Block) -> usize {
    body.iter()
        .position(|statement| match statement {
            Statement::If { accept, reject, .. } => {
                accept.is_empty()
                    && matches!(reject.first(), Some(Statement::Break))
                    && reject.len() == 1
            }
            _ => false,
        })
        .map_or(0, |index| index + 1)
}

/// The block of one part of a split branch.
fn part(statement: &Statement) -> Option<&Block> {
    match statement {
        Statement::If { accept, reject, .. } => {
            Some(if accept.is_empty() { reject } else { accept })
        }
        _ => None,
    }
}

/// A span as a map key (naga's `Span` is not `Hash`).
fn key(span: Span) -> (u32, u32) {
    span.to_range()
        .map_or((0, 0), |r| (r.start as u32, r.end as u32))
}
