//! Printing one function's skeleton: its statements as nodes, values as trees.

use super::node::Node;
use super::uses::{count_statement_uses, transparent_locals};
use crate::ir::memory::writable_storage;
use crate::ir::statement::{Jump, Memory, Nested, Step};
use naga::{
    Block, Expression, Function, Handle, LocalVariable, Module, Statement, Type, TypeInner,
};
use std::collections::HashMap;

pub(crate) struct Printer<'m> {
    module: &'m Module,
    function: &'m Function,
    /// Names given to loads of memory and to results, in the order they happen.
    names: HashMap<Handle<Expression>, String>,
    /// Locals stored once and never initialized, with the value stored.
    transparent: HashMap<Handle<LocalVariable>, Handle<Expression>>,
    uses: Vec<u32>,
}

impl<'m> Printer<'m> {
    pub(crate) fn new(module: &'m Module, function: &'m Function) -> Self {
        let mut uses = vec![0u32; function.expressions.len()];
        for (_, expr) in function.expressions.iter() {
            crate::ir::operands::of_expression(&mut expr.clone(), &mut |h| uses[h.index()] += 1);
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

    pub(crate) fn block(&mut self, block: &Block) -> Vec<Node> {
        let mut out = Vec::new();
        for statement in block.iter() {
            self.statement(statement, &mut out);
        }
        out
    }

    fn statement(&mut self, statement: &Statement, out: &mut Vec<Node>) {
        let line = |text: String| Node::Line(text);
        match Step::of(statement) {
            Step::Emit(range) => {
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
            Step::Nested(Nested::Block(inner)) => {
                let nodes = self.block(inner);
                out.extend(nodes);
            }
            Step::Nested(Nested::If {
                condition,
                accept,
                reject,
            }) => {
                let condition = self.expr(*condition);
                let (a, r) = (self.block(accept), self.block(reject));
                out.push(Node::If(condition, a, r));
            }
            Step::Nested(Nested::Switch { selector, cases }) => {
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
            Step::Nested(Nested::Loop {
                body,
                continuing,
                break_if,
            }) => {
                let b = self.block(body);
                let mut c = self.block(continuing);
                if let Some(e) = break_if {
                    c.push(line(format!("break if {}", self.expr(*e))));
                }
                out.push(Node::Nested("loop".into(), vec![b, c]));
            }
            Step::Memory(Memory::Store { pointer, value }) => {
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
            Step::Memory(Memory::Atomic {
                pointer,
                fun,
                value,
                result,
            }) => {
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
                if let Some(r) = result.copied().filter(|r| self.uses[r.index()] > 0) {
                    text = format!("{} = {text}", self.name(r));
                }
                out.push(line(text));
            }
            Step::Call {
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
                if let Some(r) = result.copied().filter(|r| self.uses[r.index()] > 0) {
                    text = format!("{} = {text}", self.name(r));
                }
                out.push(line(text));
            }
            Step::Memory(Memory::UniformLoad { pointer, result }) => {
                let text = format!(
                    "{} = uniform load {}",
                    self.name(*result),
                    self.expr(*pointer)
                );
                out.push(line(text));
            }
            Step::Barrier {
                control: true,
                flags,
            } => out.push(line(format!("barrier {flags:?}"))),
            Step::Barrier {
                control: false,
                flags,
            } => out.push(line(format!("barrier memory {flags:?}"))),
            Step::Jump(Jump::Return { value }) => {
                let value = value.map(|v| self.expr(*v)).unwrap_or_default();
                out.push(line(format!("return {value}")));
            }
            Step::Jump(Jump::Break) => out.push(line("break".into())),
            Step::Jump(Jump::Continue) => out.push(line("continue".into())),
            Step::Jump(Jump::Kill) => out.push(line("discard".into())),
            // Named by naga's variant: `other ImageStore`, `other SubgroupBallot`, ...
            Step::Memory(Memory::Texel { .. }) | Step::Subgroup { .. } | Step::Other { .. } => {
                let text = format!("{statement:?}");
                let kind = text.split([' ', '(', '{']).next().unwrap_or("");
                out.push(line(format!("other {kind}")));
            }
        }
    }

    /// `kind` for an access of storage the dispatch writes (or through a pointer argument),
    /// `kind` with the prefix `private ` for one of local, workgroup, private or uniform
    /// memory or a read-only buffer, which a storage barrier does not order (memory.rs).
    fn memory(&self, pointer: Handle<Expression>, kind: &str) -> String {
        let mut p = pointer;
        loop {
            match self.function.expressions[p] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => p = base,
                Expression::LocalVariable(_) => return format!("private {kind}"),
                Expression::GlobalVariable(g) => {
                    let space = self.module.global_variables[g].space;
                    return match space {
                        space if writable_storage(space) => kind.to_string(),
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

pub(crate) fn type_name(module: &Module, ty: Handle<Type>) -> String {
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
