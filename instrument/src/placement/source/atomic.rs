//! Make-atomic in the user's text: the variable's declared type becomes its `atomic<...>`
//! counterpart, and each access is rewritten where it is written: a load `P` becomes
//! `atomicLoad(&P)`, a store `P = v;` becomes `atomicStore(&P, v);` (`P += v;` and `P++;`
//! load and store as the IR does), and a read-modify-write the IR fused (atomic/fuse.rs)
//! becomes one call, `atomicAdd(&P, d);`, its loading `let` (if it had one) deleted.

use super::refusal::{Refusal, Why};
use super::text::{rewrite, whole_lines, Edit};
use crate::wgsl::outline::{assignment, declared_type, FnOutline, Outline, StmtKind};
use naga::{BinaryOperator, Block, Expression, Function, Handle, Literal, Module, Span, Statement};
use std::ops::Range;

/// The edits that make the module-scope variable `name` atomic in `source`, whose module as
/// parsed is `module`; `fused` are the spans of the stores fused into atomic operations.
pub(crate) fn edits(
    source: &str,
    outline: &Outline,
    module: &Module,
    name: &str,
    fused: &[Span],
) -> Result<Vec<Edit>, Refusal> {
    let (handle, _) = module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some(name))
        .ok_or(Refusal::nowhere(Why::MakeAtomic {
            what: format!("no variable `{name}`"),
        }))?;
    let declared = range(module.global_variables.get_span(handle));
    let ty = declared_type(source, declared.clone(), name).ok_or(Refusal::at(
        declared.start,
        Why::MakeAtomic {
            what: "its declaration has no type written".into(),
        },
    ))?;
    let atomic = atomic_text(&source[ty.clone()]).ok_or(Refusal::at(
        ty.start,
        Why::MakeAtomic {
            what: format!(
                "its type `{}` is a struct or an alias, which other variables may share",
                &source[ty.clone()]
            ),
        },
    ))?;
    let mut edits = vec![Edit::replace(ty, atomic)];
    let functions = module
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), &e.function))
        .chain(
            module
                .functions
                .iter()
                .map(|(_, f)| (f.name.as_deref().unwrap_or(""), f)),
        );
    for (function_name, function) in functions {
        let Some(outline) = outline.function(function_name) else {
            continue;
        };
        let accesses = Accesses::of(function, handle);
        edits.extend(function_edits(source, outline, function, &accesses, fused)?);
    }
    Ok(edits)
}

fn range(span: Span) -> Range<usize> {
    span.to_range().unwrap_or(0..0)
}

/// `u32` and `i32` wrapped in `atomic<...>`, through `array<...>` to any depth.
fn atomic_text(ty: &str) -> Option<String> {
    let ty = ty.trim();
    if ty == "u32" || ty == "i32" {
        return Some(format!("atomic<{ty}>"));
    }
    let inner = ty.strip_prefix("array")?.trim_start().strip_prefix('<')?;
    let inner = inner.strip_suffix('>')?;
    let mut depth = 0i32;
    let comma = inner.char_indices().find_map(|(i, c)| {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
        None
    });
    Some(match comma {
        Some(i) => format!("array<{},{}>", atomic_text(&inner[..i])?, &inner[i + 1..]),
        None => format!("array<{}>", atomic_text(inner)?),
    })
}

/// The loads and stores of one variable in one function.
struct Accesses {
    loads: Vec<Handle<Expression>>,
    /// Each store's span and value.
    stores: Vec<(Span, Handle<Expression>)>,
}

impl Accesses {
    fn of(function: &Function, var: Handle<naga::GlobalVariable>) -> Accesses {
        let mut derived = vec![false; function.expressions.len()];
        let mut loads = Vec::new();
        for (handle, expr) in function.expressions.iter() {
            derived[handle.index()] = match *expr {
                Expression::GlobalVariable(g) => g == var,
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                    derived[base.index()]
                }
                _ => false,
            };
            if let Expression::Load { pointer } = *expr {
                if derived[pointer.index()] {
                    loads.push(handle);
                }
            }
        }
        let mut stores = Vec::new();
        collect_stores(&function.body, &derived, &mut stores);
        Accesses { loads, stores }
    }
}

fn collect_stores(block: &Block, derived: &[bool], out: &mut Vec<(Span, Handle<Expression>)>) {
    for (statement, span) in block.span_iter() {
        if let Statement::Store { pointer, value } = *statement {
            if derived[pointer.index()] {
                out.push((*span, value));
            }
        }
        crate::ir::walk::nested_blocks_ref(statement, |inner| collect_stores(inner, derived, out));
    }
}

fn function_edits(
    source: &str,
    outline: &FnOutline,
    function: &Function,
    accesses: &Accesses,
    fused: &[Span],
) -> Result<Vec<Edit>, Refusal> {
    let mut loads: Vec<(Edit, bool)> = Vec::new();
    let mut load_ranges = Vec::new();
    for &load in &accesses.loads {
        let r = range(function.expressions.get_span(load));
        let before = source[..r.start].trim_end();
        if before.ends_with('&') || source[r.clone()].starts_with('*') {
            return Err(Refusal::at(
                r.start,
                Why::MakeAtomic {
                    what: "it is loaded through a pointer kept in a `let`".into(),
                },
            ));
        }
        loads.push((
            Edit::replace(r.clone(), format!("atomicLoad(&{})", &source[r.clone()])),
            false,
        ));
        load_ranges.push((load, r));
    }
    let mut edits = Vec::new();
    for &(span, value) in &accesses.stores {
        let at = range(span).start;
        let block = outline.body.innermost(at);
        let statement = block
            .child_at(at)
            .map(|i| &block.statements[i])
            .filter(|s| matches!(s.kind, StmtKind::Simple))
            .ok_or(Refusal::at(
                at,
                Why::MakeAtomic {
                    what: "a store that is not a statement of its own".into(),
                },
            ))?;
        let whole = statement.range.clone();
        let (op_range, op) = assignment(source, whole.clone()).ok_or(Refusal::at(
            at,
            Why::MakeAtomic {
                what: "a store without an assignment".into(),
            },
        ))?;
        let lhs = whole.start..trim_end(source, op_range.start);
        // The load a compound assignment makes is written as its left side.
        for (edit, used) in loads.iter_mut() {
            if edit.range == lhs {
                *used = true;
            }
        }
        let rhs = trim_start(source, op_range.end)..trim_end(source, whole.end - 1);
        let place = rewrite(source, lhs.clone(), &mut loads);
        if place.starts_with('*') {
            return Err(Refusal::at(
                at,
                Why::MakeAtomic {
                    what: "it is stored through a pointer".into(),
                },
            ));
        }
        let text = if fused.contains(&span) {
            let store = Fused {
                op,
                value,
                place: &place,
                rhs: &rhs,
            };
            fused_text(source, function, &store, &mut loads, outline, &mut edits)?
        } else {
            stored_text(source, function, value, op, &place, &rhs, &mut loads, at)?
        };
        edits.push(Edit::replace(whole, text));
    }
    edits.extend(loads.into_iter().filter(|(_, used)| !used).map(|(e, _)| e));
    Ok(edits)
}

fn trim_end(source: &str, end: usize) -> usize {
    source[..end].trim_end().len()
}

fn trim_start(source: &str, start: usize) -> usize {
    start + (source[start..].len() - source[start..].trim_start().len())
}

/// `atomicStore(&P, v);` for a store that was not fused.
#[allow(clippy::too_many_arguments)]
fn stored_text(
    source: &str,
    function: &Function,
    value: Handle<Expression>,
    op: &str,
    place: &str,
    rhs: &Range<usize>,
    loads: &mut [(Edit, bool)],
    at: usize,
) -> Result<String, Refusal> {
    if op == "=" {
        let value = rewrite(source, rhs.clone(), loads);
        return Ok(format!("atomicStore(&{place}, {value});"));
    }
    if place.contains('(') {
        return Err(Refusal::at(at, Why::MakeAtomic {
            what: "a compound assignment whose place calls a function (it would be evaluated twice)".into(),
        }));
    }
    let operand = match op {
        "++" | "--" => literal_operand(function, value).ok_or(Refusal::at(
            at,
            Why::MakeAtomic {
                what: "an increment of a type other than u32 or i32".into(),
            },
        ))?,
        _ => format!("({})", rewrite(source, rhs.clone(), loads)),
    };
    let binary = match op {
        "++" => "+",
        "--" => "-",
        other => other.trim_end_matches('='),
    };
    Ok(format!(
        "atomicStore(&{place}, atomicLoad(&{place}) {binary} {operand});"
    ))
}

/// `atomicAdd(&P, d);` (or Sub, And, Or, Xor) for a fused read-modify-write; the `let` that
/// held its load, if any, is deleted.
/// A store the IR fused into an atomic operation.
struct Fused<'a> {
    /// The assignment operator as written.
    op: &'a str,
    value: Handle<Expression>,
    place: &'a str,
    rhs: &'a Range<usize>,
}

fn fused_text(
    source: &str,
    function: &Function,
    fused: &Fused,
    loads: &mut [(Edit, bool)],
    outline: &FnOutline,
    edits: &mut Vec<Edit>,
) -> Result<String, Refusal> {
    let (value, place, rhs) = (fused.value, fused.place, fused.rhs);
    let Expression::Binary { op, left, right } = function.expressions[value] else {
        return Err(Refusal::at(
            rhs.start,
            Why::MakeAtomic {
                what: "a fused store whose value is not a binary operation".into(),
            },
        ));
    };
    let is_load =
        |h: Handle<Expression>| matches!(function.expressions[h], Expression::Load { .. });
    let (load, operand) = if is_load(left) {
        (left, right)
    } else {
        (right, left)
    };
    let name = match op {
        BinaryOperator::Add => "atomicAdd",
        BinaryOperator::Subtract => "atomicSub",
        BinaryOperator::And => "atomicAnd",
        BinaryOperator::InclusiveOr => "atomicOr",
        BinaryOperator::ExclusiveOr => "atomicXor",
        _ => {
            return Err(Refusal::at(
                rhs.start,
                Why::MakeAtomic {
                    what: "a fused store of an operation with no atomic counterpart".into(),
                },
            ))
        }
    };
    let load_range = range(function.expressions.get_span(load));
    for (edit, used) in loads.iter_mut() {
        if edit.range == load_range {
            *used = true;
        }
    }
    if function.named_expressions.contains_key(&load) {
        let block = outline.body.innermost(load_range.start);
        let holder = block
            .child_at(load_range.start)
            .map(|i| &block.statements[i])
            .filter(
                |s| matches!(&s.kind, StmtKind::Decl(d) if d.init.as_ref() == Some(&load_range)),
            )
            .ok_or(Refusal::at(
                load_range.start,
                Why::MakeAtomic {
                    what: "a fused load kept in a declaration that holds more than the load".into(),
                },
            ))?;
        edits.push(Edit::replace(
            whole_lines(source, holder.range.clone()),
            String::new(),
        ));
    }
    let operand_range = range(function.expressions.get_span(operand));
    let inside = rhs.start <= operand_range.start && operand_range.end <= rhs.end;
    let operand_text = match fused.op {
        // `P op= d`: the right side is the operand.
        "+=" | "-=" | "&=" | "|=" | "^=" => rewrite(source, rhs.clone(), loads),
        "=" if inside && !operand_range.is_empty() => rewrite(source, operand_range, loads),
        _ => literal_operand(function, operand).ok_or(Refusal::at(
            rhs.start,
            Why::MakeAtomic {
                what: "a fused operand with no text of its own".into(),
            },
        ))?,
    };
    Ok(format!("{name}(&{place}, {operand_text});"))
}

/// The literal `expr`, as WGSL.
fn literal_operand(function: &Function, expr: Handle<Expression>) -> Option<String> {
    let mut literal = &function.expressions[expr];
    if let Expression::Binary { right, .. } = literal {
        literal = &function.expressions[*right];
    }
    match *literal {
        Expression::Literal(Literal::U32(v)) => Some(format!("{v}u")),
        Expression::Literal(Literal::I32(v)) => Some(format!("{v}i")),
        _ => None,
    }
}
