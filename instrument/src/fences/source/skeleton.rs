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

use naga::{
    Block, Expression, Function, Handle, LocalVariable, Module, Statement, Type, TypeInner,
};
use std::collections::{HashMap, HashSet};

/// The first line where the skeletons of `a` and `b` differ, if they do.
pub fn difference(a: &Module, b: &Module) -> Option<String> {
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
pub fn of_module(module: &Module) -> Vec<String> {
    let mut lines = Vec::new();
    let mut globals: Vec<String> = module
        .global_variables
        .iter()
        .map(|(_, g)| {
            format!(
                "global {} {:?} {}",
                g.name.as_deref().unwrap_or(""),
                g.space,
                type_name(module, g.ty)
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
                crate::fences::returns::hoist(&mut body);
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

/// A statement of the skeleton.
#[derive(Clone, PartialEq, Eq)]
enum Node {
    Line(String),
    If(String, Vec<Node>, Vec<Node>),
    Nested(String, Vec<Vec<Node>>),
}

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

struct Printer<'m> {
    module: &'m Module,
    function: &'m Function,
    /// Names given to loads of memory and to results, in the order they happen.
    names: HashMap<Handle<Expression>, String>,
    /// Locals stored once and never initialized, with the value stored.
    transparent: HashMap<Handle<LocalVariable>, Handle<Expression>>,
    uses: Vec<u32>,
}

impl<'m> Printer<'m> {
    fn new(module: &'m Module, function: &'m Function) -> Self {
        let mut uses = vec![0u32; function.expressions.len()];
        for (_, expr) in function.expressions.iter() {
            crate::fences::operands::of_expression(&mut expr.clone(), &mut |h| {
                uses[h.index()] += 1
            });
        }
        count_statement_uses(&function.body, &mut uses);
        Printer {
            module,
            function,
            names: HashMap::new(),
            transparent: transparent_locals(function),
            uses,
        }
    }

    fn name(&mut self, handle: Handle<Expression>) -> String {
        let name = format!("#{}", self.names.len());
        self.names.insert(handle, name.clone());
        name
    }

    fn block(&mut self, block: &Block) -> Vec<Node> {
        let mut out = Vec::new();
        for statement in block.iter() {
            self.statement(statement, &mut out);
        }
        out
    }

    fn statement(&mut self, statement: &Statement, out: &mut Vec<Node>) {
        let line = |text: String| Node::Line(text);
        match statement {
            Statement::Emit(range) => {
                for h in range.clone() {
                    if let Expression::Load { pointer } = self.function.expressions[h] {
                        if !self.is_local(pointer) {
                            let name = self.name(h);
                            let load = self.memory(pointer, "load");
                            out.push(line(format!("{name} = {load} {}", self.expr(pointer))));
                        }
                    }
                }
            }
            Statement::Block(inner) => {
                let nodes = self.block(inner);
                out.extend(nodes);
            }
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let condition = self.expr(*condition);
                let (a, r) = (self.block(accept), self.block(reject));
                out.push(Node::If(condition, a, r));
            }
            Statement::Switch { selector, cases } => {
                let head = format!("switch {}", self.expr(*selector));
                let blocks = cases
                    .iter()
                    .map(|c| {
                        let mut body = vec![line(format!("case {:?} {}", c.value, c.fall_through))];
                        body.extend(self.block(&c.body));
                        body
                    })
                    .collect();
                out.push(Node::Nested(head, blocks));
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                let b = self.block(body);
                let mut c = self.block(continuing);
                if let Some(e) = break_if {
                    c.push(line(format!("break if {}", self.expr(*e))));
                }
                out.push(Node::Nested("loop".into(), vec![b, c]));
            }
            Statement::Store { pointer, value } => {
                if let Expression::LocalVariable(l) = self.function.expressions[*pointer] {
                    // A local declared without a value is stored its zero value where it is
                    // declared; a split moves that declaration (see the module's notes).
                    let zero =
                        matches!(self.function.expressions[*value], Expression::ZeroValue(_));
                    if self.transparent.contains_key(&l) || zero {
                        return;
                    }
                }
                let store = self.memory(*pointer, "store");
                let text = format!("{store} {} = {}", self.expr(*pointer), self.expr(*value));
                out.push(line(text));
            }
            Statement::Atomic {
                pointer,
                fun,
                value,
                result,
            } => {
                let fun = match fun {
                    naga::AtomicFunction::Exchange {
                        compare: Some(compare),
                    } => format!("CompareExchange {}", self.expr(*compare)),
                    other => format!("{other:?}"),
                };
                let atomic = self.memory(*pointer, "atomic");
                let mut text = format!(
                    "{atomic} {fun} {} {}",
                    self.expr(*pointer),
                    self.expr(*value)
                );
                if let Some(r) = result.filter(|r| self.uses[r.index()] > 0) {
                    text = format!("{} = {text}", self.name(r));
                }
                out.push(line(text));
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                let arguments: Vec<String> = arguments.iter().map(|a| self.expr(*a)).collect();
                let callee = self.module.functions[*function]
                    .name
                    .clone()
                    .unwrap_or_default();
                let mut text = format!("call {callee}({})", arguments.join(", "));
                if let Some(r) = result.filter(|r| self.uses[r.index()] > 0) {
                    text = format!("{} = {text}", self.name(r));
                }
                out.push(line(text));
            }
            Statement::WorkGroupUniformLoad { pointer, result } => {
                let text = format!(
                    "{} = uniform load {}",
                    self.name(*result),
                    self.expr(*pointer)
                );
                out.push(line(text));
            }
            Statement::ControlBarrier(flags) => out.push(line(format!("barrier {flags:?}"))),
            Statement::MemoryBarrier(flags) => out.push(line(format!("barrier memory {flags:?}"))),
            Statement::Return { value } => {
                let value = value.map(|v| self.expr(v)).unwrap_or_default();
                out.push(line(format!("return {value}")));
            }
            Statement::Break => out.push(line("break".into())),
            Statement::Continue => out.push(line("continue".into())),
            Statement::Kill => out.push(line("discard".into())),
            Statement::ImageStore { .. }
            | Statement::ImageAtomic { .. }
            | Statement::RayQuery { .. }
            | Statement::RayPipelineFunction(_)
            | Statement::SubgroupBallot { .. }
            | Statement::SubgroupGather { .. }
            | Statement::SubgroupCollectiveOperation { .. }
            | Statement::CooperativeStore { .. } => {
                let text = format!("{statement:?}");
                let kind = text.split([' ', '(', '{']).next().unwrap_or("");
                out.push(line(format!("other {kind}")));
            }
        }
    }

    /// `kind` for an access of storage memory (or through a pointer argument), `kind` with
    /// the prefix `private ` for one of local, workgroup or private memory, which a storage
    /// barrier does not order.
    fn memory(&self, pointer: Handle<Expression>, kind: &str) -> String {
        let mut p = pointer;
        loop {
            match self.function.expressions[p] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => p = base,
                Expression::LocalVariable(_) => return format!("private {kind}"),
                Expression::GlobalVariable(g) => {
                    let space = self.module.global_variables[g].space;
                    return match space {
                        naga::AddressSpace::Storage { .. } => kind.to_string(),
                        _ => format!("private {kind}"),
                    };
                }
                _ => return kind.to_string(),
            }
        }
    }

    fn is_local(&self, pointer: Handle<Expression>) -> bool {
        match self.function.expressions[pointer] {
            Expression::LocalVariable(_) => true,
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                self.is_local(base)
            }
            _ => false,
        }
    }

    fn expr(&self, h: Handle<Expression>) -> String {
        if let Some(name) = self.names.get(&h) {
            return name.clone();
        }
        let e = |x: Handle<Expression>| self.expr(x);
        match self.function.expressions[h] {
            Expression::Literal(l) => format!("{l:?}"),
            Expression::Constant(c) => self.module.constants[c].name.clone().unwrap_or_default(),
            Expression::Override(o) => self.module.overrides[o].name.clone().unwrap_or_default(),
            Expression::ZeroValue(ty) => format!("zero<{}>", type_name(self.module, ty)),
            Expression::Compose { ty, ref components } => {
                let parts: Vec<String> = components.iter().map(|c| e(*c)).collect();
                format!("{}({})", type_name(self.module, ty), parts.join(", "))
            }
            Expression::Access { base, index } => format!("{}[{}]", e(base), e(index)),
            Expression::AccessIndex { base, index } => format!("{}.{index}", e(base)),
            Expression::Splat { size, value } => format!("splat{}({})", size as u8, e(value)),
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => format!("{}.{:?}", e(vector), &pattern[..size as usize]),
            Expression::FunctionArgument(i) => format!("arg{i}"),
            Expression::GlobalVariable(g) => {
                format!(
                    "@{}",
                    self.module.global_variables[g]
                        .name
                        .as_deref()
                        .unwrap_or("")
                )
            }
            Expression::LocalVariable(l) => {
                format!(
                    "%{}",
                    self.function.local_variables[l]
                        .name
                        .as_deref()
                        .unwrap_or("")
                )
            }
            Expression::Load { pointer } => match self.function.expressions[pointer] {
                Expression::LocalVariable(l) if self.transparent.contains_key(&l) => {
                    e(self.transparent[&l])
                }
                _ => format!("load({})", e(pointer)),
            },
            Expression::Binary { op, left, right } => format!("({} {op:?} {})", e(left), e(right)),
            Expression::Unary { op, expr } => format!("{op:?}({})", e(expr)),
            Expression::Select {
                condition,
                accept,
                reject,
            } => format!("select({}, {}, {})", e(condition), e(accept), e(reject)),
            Expression::Relational { fun, argument } => format!("{fun:?}({})", e(argument)),
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => {
                let args: Vec<String> = [Some(arg), arg1, arg2, arg3]
                    .into_iter()
                    .flatten()
                    .map(e)
                    .collect();
                format!("{fun:?}({})", args.join(", "))
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => format!("as<{kind:?}{convert:?}>({})", e(expr)),
            Expression::ArrayLength(p) => format!("arrayLength({})", e(p)),
            ref other => {
                let text = format!("{other:?}");
                format!("<{}>", text.split([' ', '(', '{']).next().unwrap_or(""))
            }
        }
    }
}

fn count_statement_uses(block: &Block, uses: &mut [u32]) {
    for statement in block.iter() {
        if !matches!(statement, Statement::Emit(_)) {
            crate::fences::operands::of_statement(&mut statement.clone(), &mut |h| {
                uses[h.index()] += 1
            });
        }
        crate::walk::nested_blocks_ref(statement, |inner| count_statement_uses(inner, uses));
    }
}

/// Locals without an initializer stored exactly once, directly, and otherwise only loaded.
fn transparent_locals(function: &Function) -> HashMap<Handle<LocalVariable>, Handle<Expression>> {
    let mut stores: HashMap<Handle<LocalVariable>, Vec<Handle<Expression>>> = HashMap::new();
    let mut opaque = std::collections::HashSet::new();
    for (_, expr) in function.expressions.iter() {
        match *expr {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                if let Expression::LocalVariable(l) = function.expressions[base] {
                    opaque.insert(l);
                }
            }
            Expression::Load { .. } => {}
            _ => {
                crate::fences::operands::of_expression(&mut expr.clone(), &mut |h| {
                    if let Expression::LocalVariable(l) = function.expressions[*h] {
                        opaque.insert(l);
                    }
                });
            }
        }
    }
    fn visit(
        block: &Block,
        function: &Function,
        stores: &mut HashMap<Handle<LocalVariable>, Vec<Handle<Expression>>>,
        opaque: &mut std::collections::HashSet<Handle<LocalVariable>>,
    ) {
        for statement in block.iter() {
            match *statement {
                Statement::Store { pointer, value } => {
                    let zero = matches!(function.expressions[value], Expression::ZeroValue(_));
                    if let (Expression::LocalVariable(l), false) =
                        (&function.expressions[pointer], zero)
                    {
                        stores.entry(*l).or_default().push(value);
                    }
                }
                Statement::Emit(_) => {}
                _ => {
                    crate::fences::operands::of_statement(&mut statement.clone(), &mut |h| {
                        if let Expression::LocalVariable(l) = function.expressions[*h] {
                            opaque.insert(l);
                        }
                    });
                }
            }
            crate::walk::nested_blocks_ref(statement, |inner| {
                visit(inner, function, stores, opaque)
            });
        }
    }
    visit(&function.body, function, &mut stores, &mut opaque);
    stores
        .into_iter()
        .filter(|(l, values)| {
            values.len() == 1 && !opaque.contains(l) && function.local_variables[*l].init.is_none()
        })
        .map(|(l, values)| (l, values[0]))
        .collect()
}

fn type_name(module: &Module, ty: Handle<Type>) -> String {
    let t = &module.types[ty];
    match t.inner {
        TypeInner::Scalar(s) => format!("{:?}{}", s.kind, s.width),
        TypeInner::Atomic(s) => format!("atomic<{:?}{}>", s.kind, s.width),
        TypeInner::Vector { size, scalar } => {
            format!("vec{}<{:?}{}>", size as u8, scalar.kind, scalar.width)
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => format!(
            "mat{}x{}<{:?}{}>",
            columns as u8, rows as u8, scalar.kind, scalar.width
        ),
        TypeInner::Array { base, size, stride } => {
            format!("array<{}, {size:?}, {stride}>", type_name(module, base))
        }
        TypeInner::Struct { ref members, .. } => {
            let members: Vec<String> = members
                .iter()
                .map(|m| {
                    format!(
                        "{}@{}: {}",
                        m.name.as_deref().unwrap_or(""),
                        m.offset,
                        type_name(module, m.ty)
                    )
                })
                .collect();
            format!(
                "struct {} {{{}}}",
                t.name.as_deref().unwrap_or(""),
                members.join(", ")
            )
        }
        ref other => {
            let text = format!("{other:?}");
            text.split([' ', '(', '{']).next().unwrap_or("").to_string()
        }
    }
}
