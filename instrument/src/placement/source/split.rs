//! Splitting a non-uniform `if` in the user's text, as split.rs does in the IR:
//! `if c { A; B }` with a barrier between A and B becomes
//! `if c { A } storageBarrier(); if c { B }`. A declaration in A that B uses becomes a `var`
//! declared before the `if` (assigned where it was declared), so B still sees it; a
//! condition that could change between the parts (it reads memory or calls a function) is
//! evaluated once, into a `let` before the `if`, as the IR evaluates it once.

use super::crossing::crossing_decls;
use super::locate::SplitAnchor;
use super::refusal::{Refusal, Why};
use super::text::{indentation, line_start, starts_line, whole_lines, Edit};
use super::types::{wgsl_inner, wgsl_type};
use crate::wgsl::outline::{
    block_references, refers_outside, Block, Decl, FnOutline, Stmt, StmtKind,
};
use naga::{Expression, Function, Handle, Module};
use std::collections::BTreeSet;
use std::ops::Range;

/// Edits order: barriers first, then what goes before the `if`.
const PRELUDE: u8 = 1;

/// What the split of one `if` needs to know of the module.
pub(crate) struct Context<'a> {
    pub source: &'a str,
    pub outline: &'a FnOutline,
    pub module: &'a Module,
    pub function: &'a Function,
    pub info: &'a naga::valid::FunctionInfo,
    pub condition: Handle<Expression>,
    /// A name the source does not use, for a condition evaluated once.
    pub fresh: String,
    /// Every word of the source: a moved declaration's new name is none of them.
    pub words: &'a [&'a str],
}

/// A declaration a split moved before its `if`: the block it went to (the offset of its
/// `{`) and the name it has there.
pub(crate) struct Hoisted {
    block: usize,
    name: String,
}

/// The edits that split the `if` of `splits` (anchors of one branch) at each of their
/// boundaries. `hoisted`: what the splits of the function before this one (in source order)
/// moved, which this one adds to.
pub(crate) fn edits(
    context: &Context,
    splits: &[&SplitAnchor],
    hoisted: &mut Vec<Hoisted>,
) -> Result<Vec<Edit>, Refusal> {
    let source = context.source;
    let branch = splits[0].branch.clone();
    let at = branch.start;
    let holder = context.outline.body.innermost(at);
    let index = holder
        .child_at(at)
        .ok_or(Refusal::at(at, Why::SplitChain))?;
    let Stmt {
        kind: StmtKind::If(arms),
        ..
    } = &holder.statements[index]
    else {
        return Err(Refusal::at(at, Why::SplitChain));
    };
    let inner = &arms[0].body;
    let boundaries: BTreeSet<usize> = splits.iter().map(|s| s.after).collect();
    let own_lines = starts_line(source, at)
        && boundaries
            .iter()
            .all(|&b| starts_line(source, inner.statements[b].range.start));
    let indent = indentation(source, at);
    let mut edits = Vec::new();
    let condition_text = source[splits[0].condition.clone()].to_string();
    let condition = if stable(context.function, context.condition) {
        condition_text
    } else {
        let declaration = format!("let {} = {condition_text};", context.fresh);
        edits.push(prelude(source, at, &indent, own_lines, declaration));
        edits.push(Edit::replace(
            splits[0].condition.clone(),
            context.fresh.clone(),
        ));
        context.fresh.clone()
    };
    let mut moved = BTreeSet::new();
    let place = Place {
        block: holder.open,
        at,
        indent: &indent,
        own_line: own_lines,
    };
    for &after in &boundaries {
        for (i, decl) in crossing_decls(source, inner, after - 1, after) {
            if moved.insert(i) {
                check_name(context, holder, index, &decl.name)?;
                edits.extend(hoist(context, (inner, i), decl, &place, hoisted)?);
            }
        }
        let first = inner.statements[after].range.start;
        let edit = if own_lines {
            let text =
                format!("{indent}}}\n{indent}storageBarrier();\n{indent}if {condition} {{\n");
            Edit::insert(line_start(source, first), text, 0)
        } else {
            let text = format!("}} storageBarrier(); if {condition} {{ ");
            Edit::insert(first, text, 0)
        };
        edits.push(edit);
    }
    Ok(edits)
}

/// `text` on a line of its own before the `if` at `at`, or inline before it.
fn prelude(source: &str, at: usize, indent: &str, own_line: bool, text: String) -> Edit {
    if own_line {
        Edit::insert(line_start(source, at), format!("{indent}{text}\n"), PRELUDE)
    } else {
        Edit::insert(at, format!("{text} "), PRELUDE)
    }
}

/// Where a split puts what goes before its `if`: the block holding the `if`, the `if`'s
/// offset and indentation, and whether it starts a line.
struct Place<'a> {
    block: usize,
    at: usize,
    indent: &'a str,
    own_line: bool,
}

/// The edits that move `decl` (statement `index` of `block`, the branch) before the `if`:
/// `var name: T;` there, and the declaration made an assignment (or, for `const` and `var`
/// without initializer, moved whole). Where an earlier split of the same block moved a
/// declaration of that name, this one's variable takes a name the source does not use, in
/// its declaration and in every later statement of the branch that names it (ct-octree's
/// pop declares `b` in two branches one after the other, and a fix can split both).
fn hoist(
    context: &Context,
    (block, index): (&Block, usize),
    decl: &Decl,
    place: &Place,
    hoisted: &mut Vec<Hoisted>,
) -> Result<Vec<Edit>, Refusal> {
    let source = context.source;
    let statement = &block.statements[index];
    let keyword = &source[decl.keyword.clone()];
    let text = &source[statement.range.clone()];
    let removed = Edit::replace(whole_lines(source, statement.range.clone()), String::new());
    let earlier = hoisted
        .iter()
        .any(|h| h.block == place.block && h.name == decl.name);
    let taken = Refusal::at(
        statement.range.start,
        Why::NameTaken {
            name: decl.name.clone(),
        },
    );
    let before_if = |text: String| prelude(source, place.at, place.indent, place.own_line, text);
    // A `var` naga initializes at its declaration (a constant initializer) moves whole.
    let initialized = keyword == "var" && local_init(context, decl, statement.range.clone());
    let moves_whole = keyword == "const" || (keyword == "var" && decl.init.is_none());
    match (keyword, &decl.init) {
        _ if moves_whole || initialized => match earlier {
            true => Err(taken),
            false => Ok(vec![before_if(text.to_string()), removed]),
        },
        (_, Some(init)) => {
            let ty = match &decl.ty {
                Some(ty) => source[ty.clone()].to_string(),
                None => type_of(context, decl, statement.range.clone()).ok_or(Refusal::at(
                    statement.range.start,
                    Why::NoType {
                        name: decl.name.clone(),
                    },
                ))?,
            };
            let name = match earlier {
                false => decl.name.clone(),
                true => (2..)
                    .map(|n| format!("{}_{n}", decl.name))
                    .find(|n| {
                        !context.words.contains(&n.as_str())
                            && !hoisted.iter().any(|h| h.name == *n)
                    })
                    .unwrap_or_default(),
            };
            let mut edits = vec![
                before_if(format!("var {name}: {ty};")),
                Edit::replace(statement.range.start..init.start, format!("{name} = ")),
            ];
            if earlier {
                edits.extend(
                    block_references(source, block, index + 1, &decl.name)
                        .into_iter()
                        .map(|range| Edit::replace(range, name.clone())),
                );
            }
            hoisted.push(Hoisted {
                block: place.block,
                name,
            });
            Ok(edits)
        }
        (_, None) => Err(Refusal::at(
            statement.range.start,
            Why::NoType {
                name: decl.name.clone(),
            },
        )),
    }
}

/// Whether the IR's local for the `var` declared in `range` has an initializer.
fn local_init(context: &Context, decl: &Decl, range: Range<usize>) -> bool {
    let function = context.function;
    function.local_variables.iter().any(|(h, l)| {
        l.name.as_deref() == Some(decl.name.as_str())
            && l.init.is_some()
            && function
                .local_variables
                .get_span(h)
                .to_range()
                .is_some_and(|r| range.start <= r.start && r.end <= range.end)
    })
}

/// The WGSL type of a `let` or `var` declared in `range`, from the IR.
fn type_of(context: &Context, decl: &Decl, range: Range<usize>) -> Option<String> {
    let function = context.function;
    let inside = |span: naga::Span| {
        span.to_range()
            .is_some_and(|r| range.start <= r.start && r.end <= range.end)
    };
    let named = function
        .named_expressions
        .iter()
        .find(|(h, name)| **name == decl.name && inside(function.expressions.get_span(**h)));
    if let Some((handle, _)) = named {
        return match &context.info[*handle].ty {
            naga::proc::TypeResolution::Handle(ty) => wgsl_type(context.module, *ty),
            naga::proc::TypeResolution::Value(inner) => wgsl_inner(context.module, inner),
        };
    }
    let local = function.local_variables.iter().find(|(h, l)| {
        l.name.as_deref() == Some(decl.name.as_str())
            && inside(function.local_variables.get_span(*h))
    })?;
    wgsl_type(context.module, local.1.ty)
}

/// Refuses a name that moving it before the `if` (statement `index` of `holder`) would clash
/// with: declared elsewhere in that block, named after the `if` there other than in a block
/// that declares its own (such a name would now be the moved one), or a parameter of the
/// function when the block is its body. ct-octree's pop declares `b` in two branches one
/// after the other; the second is its own.
fn check_name(context: &Context, holder: &Block, index: usize, name: &str) -> Result<(), Refusal> {
    let source = context.source;
    let taken = holder.statements.iter().enumerate().any(|(i, s)| {
        let declares = matches!(&s.kind, StmtKind::Decl(d) if d.name == name);
        i != index && (declares || (i > index && refers_outside(source, s, name)))
    }) || (holder.open == context.outline.body.open
        && context.outline.parameters.iter().any(|p| p == name));
    if taken {
        let at = holder.statements[index].range.start;
        return Err(Refusal::at(
            at,
            Why::NameTaken {
                name: name.to_string(),
            },
        ));
    }
    Ok(())
}

/// Whether evaluating `condition` again gives the same value: it reads no memory and calls
/// nothing, except through `let` values and arguments, which do not change.
fn stable(function: &Function, condition: Handle<Expression>) -> bool {
    if function.named_expressions.contains_key(&condition) {
        return true;
    }
    let mut expr = function.expressions[condition].clone();
    // Anything not known to be a pure operation counts as unstable: the condition then goes
    // into a `let`, which is right whatever it is.
    let leaf_ok = matches!(
        expr,
        Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
            | Expression::FunctionArgument(_)
            | Expression::Binary { .. }
            | Expression::Unary { .. }
            | Expression::Select { .. }
            | Expression::Splat { .. }
            | Expression::Swizzle { .. }
            | Expression::Compose { .. }
            | Expression::Access { .. }
            | Expression::AccessIndex { .. }
            | Expression::As { .. }
            | Expression::Math { .. }
            | Expression::Relational { .. }
    );
    let mut operands_ok = true;
    crate::ir::operands::of_expression(&mut expr, &mut |h| {
        operands_ok &= stable(function, *h);
    });
    leaf_ok && operands_ok
}
