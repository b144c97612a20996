//! Splitting a non-uniform branch around the sites inside it.
//!
//! `if c { A; x; B; y; C }` with `c` non-uniform, entered in uniform control flow, becomes
//! `{ if c { A; x } storageBarrier(); if c { B; y } storageBarrier(); if c { C } }`: the
//! condition is evaluated once (before, as it was), and every value one part computes and a
//! later part uses crosses in a function-scope variable. Invocations that skip the branch wait
//! at the barriers, so each barrier is in uniform control flow.
//!
//! Split only: a branch whose other side is empty (with both sides non-empty, one side's
//! invocations would wait for the other's at every barrier, which may hang an application
//! whose branches wait on each other), that no invocation leaves early (`return`, or `break`
//! and `continue` of an enclosing loop), at gaps between top-level statements of the branch
//! with a storage access on both sides, and only where every crossing value is a scalar,
//! vector or matrix (a pointer or an atomic's result cannot be kept in a variable). Elsewhere
//! the branch keeps its sites around it.

use super::place::{Label, Walker};
use super::site::{IrPoint, Side};
use crate::ir::operands;
use crate::ir::statement::Step;
use naga::{Block, Expression, Handle, LocalVariable, Range, Span, Statement, Type, TypeInner};
use std::collections::{HashMap, HashSet};

type Segment = Vec<(Statement, Span)>;

impl Walker<'_> {
    /// The split form of `if condition { branch }` (`else { branch }` when `!accept`), or
    /// `None` when it has no gap to split at or cannot be split.
    pub(super) fn split(
        &mut self,
        condition: Handle<Expression>,
        branch: Block,
        accept: bool,
    ) -> Option<Statement> {
        if leaves_early(&branch, false) {
            return None;
        }
        let statements: Segment = branch.span_into_iter().collect();
        let gaps = self.gaps(&statements);
        if gaps.is_empty() {
            return None;
        }
        let mut segments: Vec<Segment> = Vec::new();
        let mut rest = statements;
        for (index, _) in gaps.iter().rev() {
            segments.push(rest.split_off(*index));
        }
        segments.push(rest);
        segments.reverse();
        let crossing = self.crossing(&mut segments)?;
        self.carry(&mut segments, &crossing);
        let mut out = Block::new();
        for (i, segment) in segments.into_iter().enumerate() {
            if i > 0 {
                let (index, label) = gaps[i - 1];
                let point = IrPoint {
                    path: self.path.clone(),
                    index,
                };
                self.barrier(&mut out, label, point);
            }
            let (body, span): (Block, Span) = {
                let span = segment.first().map_or(Span::UNDEFINED, |(_, s)| *s);
                let mut block = Block::with_capacity(segment.len());
                for (s, sp) in segment {
                    block.push(s, sp);
                }
                (block, span)
            };
            let (accept_block, reject_block) = if accept {
                (body, Block::new())
            } else {
                (Block::new(), body)
            };
            out.push(
                Statement::If {
                    condition,
                    accept: accept_block,
                    reject: reject_block,
                },
                span,
            );
        }
        Some(Statement::Block(out))
    }

    /// Gaps (statement index, site) before every top-level storage access that follows
    /// another, and before the `Emit`s that evaluate its operands (a pointer cannot cross in
    /// a variable): the site is after the earlier access.
    fn gaps(&self, statements: &Segment) -> Vec<(usize, Label)> {
        let mut gaps = Vec::new();
        let mut previous: Option<(usize, Span)> = None;
        for (index, (statement, span)) in statements.iter().enumerate() {
            let Some(access) = self.access(statement, *span) else {
                continue;
            };
            if let Some((earlier_index, earlier)) = previous {
                let mut gap = index;
                while gap > earlier_index + 1 && matches!(statements[gap - 1].0, Statement::Emit(_))
                {
                    gap -= 1;
                }
                let site = Label {
                    access: earlier,
                    side: Side::After,
                };
                gaps.push((gap, site));
            }
            previous = Some((index, access));
        }
        gaps
    }

    /// Values a segment defines at its top level that a later segment uses, with the
    /// segment that defines them; `None` if one of them cannot be kept in a variable.
    fn crossing(&mut self, segments: &mut [Segment]) -> Option<Vec<(Handle<Expression>, usize)>> {
        let mut crossing = Vec::new();
        let mut defined: HashMap<Handle<Expression>, usize> = HashMap::new();
        for (k, segment) in segments.iter_mut().enumerate() {
            let mut used = HashSet::new();
            for (statement, _) in segment.iter_mut() {
                self.uses(statement, &mut used);
            }
            let mut used: Vec<_> = used.into_iter().collect();
            used.sort_by_key(|h| h.index());
            for h in used {
                if let Some(&j) = defined.get(&h) {
                    if j < k && !crossing.contains(&(h, j)) {
                        if !self.storable(h) {
                            return None;
                        }
                        crossing.push((h, j));
                    }
                }
            }
            for (statement, _) in segment.iter() {
                if let Statement::Emit(range) = statement {
                    for h in range.clone() {
                        defined.insert(h, k);
                    }
                }
                if let Some(h) = Step::of(statement).result().copied() {
                    defined.insert(h, k);
                }
            }
        }
        Some(crossing)
    }

    /// Every expression `statement` uses, directly, through nested statements, or as an
    /// operand of an expression evaluated inside it.
    fn uses(&self, statement: &mut Statement, used: &mut HashSet<Handle<Expression>>) {
        operands::of_statement(statement, &mut |h| {
            used.insert(*h);
        });
        if let Statement::Emit(range) = statement {
            for e in range.clone() {
                let mut expr = self.expressions[e].clone();
                operands::of_expression(&mut expr, &mut |h| {
                    used.insert(*h);
                });
            }
        }
        crate::ir::walk::nested_blocks(statement, |block| {
            for s in block.iter_mut() {
                self.uses(s, used);
            }
        });
    }

    fn storable(&self, expr: Handle<Expression>) -> bool {
        let inner = self.info[expr].ty.inner_with(&self.types);
        matches!(
            inner,
            TypeInner::Scalar(_) | TypeInner::Vector { .. } | TypeInner::Matrix { .. }
        )
    }

    /// Keeps each crossing value in a new local: stored at the end of the segment that
    /// defines it, loaded at the start of every later segment. A later segment's expressions
    /// are evaluated anew after those loads (naga wants operands before their users in the
    /// arena), reading the loads instead of the values.
    fn carry(&mut self, segments: &mut [Segment], crossing: &[(Handle<Expression>, usize)]) {
        let mut locals: HashMap<Handle<Expression>, Handle<Expression>> = HashMap::new();
        for &(h, _) in crossing {
            let ty = self.type_of(h);
            let span = self.function.expressions.get_span(h);
            let local = self.locals.append(
                LocalVariable {
                    // Not `wgstress_`: the fenced shader is instrumented in turn. naga's writer renames a clash.
                    name: Some(format!("split{}", h.index())),
                    ty,
                    init: None,
                },
                span,
            );
            let pointer = self
                .expressions
                .append(Expression::LocalVariable(local), span);
            locals.insert(h, pointer);
        }
        for (k, segment) in segments.iter_mut().enumerate() {
            let mut map: HashMap<Handle<Expression>, Handle<Expression>> = HashMap::new();
            let earlier: Vec<Handle<Expression>> = crossing
                .iter()
                .filter(|(_, j)| *j < k)
                .map(|(h, _)| *h)
                .collect();
            if !earlier.is_empty() {
                let mut loads = Vec::new();
                for h in &earlier {
                    let span = self.function.expressions.get_span(*h);
                    let pointer = locals[h];
                    let load = self.expressions.append(Expression::Load { pointer }, span);
                    map.insert(*h, load);
                    loads.push(load);
                }
                for (statement, _) in segment.iter_mut() {
                    self.evaluate_anew(statement, &mut map);
                }
                let range = Range::new_from_bounds(loads[0], loads[loads.len() - 1]);
                segment.insert(0, (Statement::Emit(range), Span::UNDEFINED));
            }
            for &(h, j) in crossing {
                if j == k {
                    let value = map.get(&h).copied().unwrap_or(h);
                    let span = self.function.expressions.get_span(h);
                    segment.push((
                        Statement::Store {
                            pointer: locals[&h],
                            value,
                        },
                        span,
                    ));
                }
            }
        }
    }

    /// Appends a copy of every expression `statement` evaluates, with operands read through
    /// `map`, and points the statement at the copies.
    fn evaluate_anew(
        &mut self,
        statement: &mut Statement,
        map: &mut HashMap<Handle<Expression>, Handle<Expression>>,
    ) {
        let swap = |map: &HashMap<_, _>, h: &mut Handle<Expression>| {
            if let Some(new) = map.get(h) {
                *h = *new;
            }
        };
        if let Statement::Emit(range) = statement {
            let mut copies = Vec::new();
            for e in range.clone() {
                let mut expr = self.expressions[e].clone();
                operands::of_expression(&mut expr, &mut |h| swap(map, h));
                let span = self.expressions.get_span(e);
                let copy = self.expressions.append(expr, span);
                map.insert(e, copy);
                copies.push(copy);
            }
            if let (Some(first), Some(last)) = (copies.first(), copies.last()) {
                *range = Range::new_from_bounds(*first, *last);
            }
        }
        // The nested blocks first: a loop's `break if` condition is evaluated in its
        // continuing block, and must read the copy evaluated there.
        crate::ir::walk::nested_blocks(statement, |block| {
            for s in block.iter_mut() {
                self.evaluate_anew(s, map);
            }
        });
        // A call's or an atomic's result stays as it is: it has no operands, and naga wants
        // every such result filled by exactly one statement (a copy would leave the original
        // unfilled, which naga refuses as an unvisited expression).
        operands::of_statement(statement, &mut |h| swap(map, h));
    }

    fn type_of(&mut self, expr: Handle<Expression>) -> Handle<Type> {
        match &self.info[expr].ty {
            naga::proc::TypeResolution::Handle(ty) => *ty,
            naga::proc::TypeResolution::Value(inner) => self.types.insert(
                Type {
                    name: None,
                    inner: inner.clone(),
                },
                Span::UNDEFINED,
            ),
        }
    }
}

/// Whether some invocation leaves `block` other than by its end: a `return` or `kill`, or a
/// `break` or `continue` that is not inside a loop nested in it (a `switch`'s `break` counts,
/// conservatively).
fn leaves_early(block: &Block, in_loop: bool) -> bool {
    block.iter().any(|statement| {
        let leaves = match statement {
            Statement::Return { .. } | Statement::Kill => true,
            Statement::Break | Statement::Continue => !in_loop,
            _ => false,
        };
        // Inside a nested loop, its own `break` and `continue` stay inside; inside a
        // `switch`, a `break` leaves the switch only, but counts, as said.
        let nested_in_loop = match statement {
            Statement::Loop { .. } => true,
            Statement::Switch { .. } => false,
            _ => in_loop,
        };
        let mut nested = false;
        crate::ir::walk::nested_blocks_ref(statement, |inner| {
            nested = nested || leaves_early(inner, nested_in_loop)
        });
        leaves || nested
    })
}
