//! From a site's place in the IR (anchor.rs) to its place in the user's text: the statement
//! boundary where `storageBarrier();` goes, with the indentation of the statements there,
//! or, for a site between two parts of a split branch, the boundary inside the branch where
//! the `if` is closed and opened again.

use super::anchor::{IrAnchor, Owner};
use super::refusal::{Refusal, Why};
use super::text::{indentation, line_end_is_blank, line_start, starts_line};
use crate::wgsl::outline::{Block, FnOutline, Stmt, StmtKind};
use naga::Span;
use std::ops::Range;

/// Where a site's barrier goes in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceAnchor {
    /// The byte offset where the barrier's text is inserted: the start of a line when the
    /// barrier gets a line of its own, else the statement boundary itself.
    pub offset: usize,
    /// The indentation of the statements around it.
    pub indent: String,
    pub own_line: bool,
    /// For a site inside a non-uniform branch, the split of the branch it needs.
    pub split: Option<SplitAnchor>,
    /// The barrier goes in an `else` the `if` does not have in the text (naga's IR has an
    /// empty one, a point where control flow is uniform): the insertion at `offset`, just
    /// past the `if`'s last `}`, adds the `else` around it.
    pub opens_else: bool,
}

/// A split of `if condition { ... }` at a statement boundary of its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitAnchor {
    /// The whole `if` statement.
    pub branch: Range<usize>,
    /// The condition's text.
    pub condition: Range<usize>,
    /// The indices, in the branch's body, of the statements before and after the boundary.
    pub before: usize,
    pub after: usize,
    /// The declarations before the boundary whose names the statements after it use: each
    /// becomes a `var` declared before the `if`.
    pub crossing: Vec<String>,
}

fn start(span: Span) -> usize {
    span.to_range().map_or(0, |r| r.start)
}

fn range(span: Span) -> Range<usize> {
    span.to_range().unwrap_or(0..0)
}

/// The statement of `body`, at any depth, that directly holds `offset` in the innermost block.
fn statement_at(body: &Block, offset: usize) -> Option<&Stmt> {
    let block = body.innermost(offset);
    block.child_at(offset).map(|i| &block.statements[i])
}

/// Where `anchor` puts its barrier in `function`'s text.
pub(crate) fn locate(
    source: &str,
    function: &FnOutline,
    anchor: &IrAnchor,
) -> Result<SourceAnchor, Refusal> {
    let body = &function.body;
    if let Owner::Split { branch, accept, .. } = anchor.owner {
        return split(source, body, branch, accept, anchor);
    }
    let inside = anchor.prev.or(anchor.next).map(start);
    let (block, prev, next) = match owner_block(source, body, &anchor.owner, inside)? {
        Found::Block(block) => (block, anchor.prev, anchor.next),
        Found::NoElse(_) if anchor.prev.or(anchor.next).is_some() => {
            return Err(Refusal::at(inside.unwrap_or_default(), Why::Unplaced))
        }
        Found::NoElse(last) => return Ok(opening_else(source, last)),
        // A site inside naga's block around a `for` and its initializer: at the `for`.
        Found::Around(block, statement) => {
            let span = Span::new(statement.start as u32, statement.end as u32);
            match anchor.next {
                Some(_) => (block, None, Some(span)),
                None => (block, Some(span), None),
            }
        }
    };
    let child = |span: Option<Span>| span.and_then(|s| block.child_at(start(s)));
    let place = match (child(prev), child(next)) {
        (Some(a), Some(b)) if a == b => {
            let (p, n) = (
                range(prev.unwrap_or_default()),
                range(next.unwrap_or_default()),
            );
            // naga hoists a branch's final `return` after it (placement/returns.rs): a
            // statement after the branch whose span lies inside it.
            if p.start <= n.start && n.end <= p.end {
                Place::After(a)
            } else {
                return Err(Refusal::at(p.start, Why::InsideStatement));
            }
        }
        (_, Some(b)) => Place::Before(b),
        (Some(a), None) => Place::After(a),
        (None, None) if next.is_some() || prev.is_none() => Place::Start,
        (None, None) => Place::End,
    };
    Ok(at(source, block, place))
}

enum Place {
    Before(usize),
    After(usize),
    Start,
    End,
}

enum Found<'o> {
    Block(&'o Block),
    /// The reject side of an `if` whose text has no `else`: its last arm's body.
    NoElse(&'o Block),
    /// The block holding a `for` statement (its range), for a site in naga's block around it.
    Around(&'o Block, Range<usize>),
}

/// The source block that holds what the IR block owned by `owner` holds.
/// `inside`: an offset in the block, where the marker has a neighbour (which `switch`
/// clause holds it; naga's cases are not the text's clauses one for one).
fn owner_block<'o>(
    source: &str,
    body: &'o Block,
    owner: &Owner,
    inside: Option<usize>,
) -> Result<Found<'o>, Refusal> {
    let unplaced = |span: Span| Refusal::at(start(span), Why::Unplaced);
    match *owner {
        Owner::Body => Ok(Found::Block(body)),
        Owner::If { span, accept } => {
            let Some(Stmt {
                kind: StmtKind::If(arms),
                ..
            }) = statement_at(body, start(span))
            else {
                return Err(unplaced(span));
            };
            let first = arms
                .iter()
                .position(|a| a.body.open > start(span))
                .ok_or(unplaced(span))?;
            if accept {
                return Ok(Found::Block(&arms[first].body));
            }
            // The `else` of the arm (an `else if` arm is a branch of its own in the IR: a
            // point between it and the `else` has no place in the text), or none at all.
            match arms.get(first + 1) {
                Some(arm) => match &arm.condition {
                    None => Ok(Found::Block(&arm.body)),
                    Some(condition) => Err(Refusal::at(condition.start, Why::Unplaced)),
                },
                None => Ok(Found::NoElse(&arms[first].body)),
            }
        }
        Owner::Loop { span, continuing } => {
            let Some(Stmt {
                kind: StmtKind::Loop {
                    body: loop_body, ..
                },
                ..
            }) = statement_at(body, start(span))
            else {
                return Err(unplaced(span));
            };
            if !continuing {
                return Ok(Found::Block(loop_body));
            }
            loop_body
                .statements
                .iter()
                .find_map(|s| match &s.kind {
                    StmtKind::Continuing(block) => Some(Found::Block(block)),
                    _ => None,
                })
                .ok_or(Refusal::at(start(span), Why::ForHeader))
        }
        Owner::Block(span) => {
            if let Some(block) = body.opened_at(start(span)) {
                return Ok(Found::Block(block));
            }
            let holder = body.innermost(start(span));
            match holder.child_at(start(span)).map(|i| &holder.statements[i]) {
                Some(
                    s @ Stmt {
                        kind: StmtKind::Loop { .. },
                        ..
                    },
                ) => Ok(Found::Around(holder, s.range.clone())),
                _ => Err(unplaced(span)),
            }
        }
        Owner::LoopHeader(span) => {
            let Some(
                statement @ Stmt {
                    kind:
                        StmtKind::Loop {
                            body: loop_body, ..
                        },
                    ..
                },
            ) = statement_at(body, start(span))
            else {
                return Err(unplaced(span));
            };
            // A `loop` has no header: naga's `if c {} else { break; }` is the user's own.
            if source[statement.range.clone()].starts_with("loop") {
                Ok(Found::Block(loop_body))
            } else {
                Err(Refusal::at(statement.range.start, Why::ForHeader))
            }
        }
        Owner::Switch { span } => {
            let Some(Stmt {
                kind: StmtKind::Switch(clauses),
                ..
            }) = statement_at(body, start(span))
            else {
                return Err(unplaced(span));
            };
            let at = inside.ok_or(unplaced(span))?;
            clauses
                .iter()
                .find(|c| c.open < at && at < c.close)
                .map(Found::Block)
                .ok_or(unplaced(span))
        }
        Owner::Split { branch, .. } => Err(unplaced(branch)),
    }
}

/// The anchor at `place` in `block`.
fn at(source: &str, block: &Block, place: Place) -> SourceAnchor {
    let statements = &block.statements;
    let place = match place {
        Place::Start if !statements.is_empty() => Place::Before(0),
        Place::End if !statements.is_empty() => Place::After(statements.len() - 1),
        other => other,
    };
    let (offset, indent, own_line) = match place {
        Place::Before(i) => {
            let s = statements[i].range.start;
            if starts_line(source, s) {
                (line_start(source, s), indentation(source, s), true)
            } else {
                (s, String::new(), false)
            }
        }
        Place::After(i) => {
            let s = &statements[i].range;
            match line_end_is_blank(source, s.end) {
                Some(next_line) => (next_line, indentation(source, s.start), true),
                None => (s.end, String::new(), false),
            }
        }
        Place::Start | Place::End => {
            if starts_line(source, block.close) {
                let indent = inner_indentation(&indentation(source, block.close));
                (line_start(source, block.close), indent, true)
            } else {
                (block.close, String::new(), false)
            }
        }
    };
    SourceAnchor {
        offset,
        indent,
        own_line,
        split: None,
        opens_else: false,
    }
}

/// The anchor of a barrier in an `else` the text lacks: after `last`, the body of the `if`'s
/// last arm.
fn opening_else(source: &str, last: &Block) -> SourceAnchor {
    let own_line = starts_line(source, last.close);
    let indent = if own_line {
        inner_indentation(&indentation(source, last.close))
    } else {
        String::new()
    };
    SourceAnchor {
        offset: last.close + 1,
        indent,
        own_line,
        split: None,
        opens_else: true,
    }
}

/// The indentation of a statement inside a block whose `}` is indented by `outer`: one step
/// more, a tab where the file indents with tabs.
fn inner_indentation(outer: &str) -> String {
    let step = if outer.contains('\t') { "\t" } else { "    " };
    format!("{outer}{step}")
}

/// The anchor of a site between two parts of a split `if`.
fn split(
    source: &str,
    body: &Block,
    branch: Span,
    accept: bool,
    anchor: &IrAnchor,
) -> Result<SourceAnchor, Refusal> {
    let at = start(branch);
    let statement = statement_at(body, at).filter(|s| s.range.start == at);
    let Some(Stmt {
        range: branch_range,
        kind: StmtKind::If(arms),
    }) = statement
    else {
        return Err(Refusal::at(at, Why::SplitChain));
    };
    if !accept || arms.len() != 1 {
        return Err(Refusal::at(at, Why::SplitChain));
    }
    let arm = &arms[0];
    let inner = &arm.body;
    let child = |span: Option<Span>| span.and_then(|s| inner.child_at(start(s)));
    let (Some(before), Some(after)) = (child(anchor.prev), child(anchor.next)) else {
        return Err(Refusal::at(at, Why::Unplaced));
    };
    if before >= after {
        let at = start(anchor.prev.unwrap_or_default());
        return Err(Refusal::at(at, Why::InsideStatement));
    }
    let crossing = super::crossing::crossing(source, inner, before, after);
    let first = inner.statements[after].range.start;
    let (offset, own_line) = if starts_line(source, first) && starts_line(source, at) {
        (line_start(source, first), true)
    } else {
        (first, false)
    };
    Ok(SourceAnchor {
        offset,
        indent: indentation(source, at),
        own_line,
        split: Some(SplitAnchor {
            branch: branch_range.clone(),
            condition: arm.condition.clone().unwrap_or(at..at),
            before,
            after,
            crossing,
        }),
        opens_else: false,
    })
}
