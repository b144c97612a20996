//! The statement outline of WGSL source: each function's body as blocks of statements with
//! their byte ranges, so that an edit found on naga's IR (a barrier before a statement, a
//! branch split in two) can be made on the user's own text. naga keeps spans of expressions
//! and of some statements only (a `let` is an `Emit` of its value's span; a statement's span
//! stops before its `;`); the outline gives the whole statement, from its first token to its
//! `;` or closing `}`.
//!
//! It reads structure only: braces, parentheses, brackets, the keywords that open compound
//! statements and the `;` that ends a simple one. The source has passed naga's parser before
//! it is outlined, so the outline trusts it to be well formed.

mod lex;
mod parse;

use lex::Token;
use std::ops::Range;

/// The functions of a source, in source order.
pub(crate) struct Outline {
    pub functions: Vec<FnOutline>,
}

pub(crate) struct FnOutline {
    pub name: String,
    pub parameters: Vec<String>,
    /// The parameter list's text, between its parentheses.
    pub signature: Range<usize>,
    pub body: Block,
}

/// `{ statements }`: `open` is the byte offset of `{`, `close` of `}`.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub open: usize,
    pub close: usize,
    pub statements: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    /// From the first token (attributes included) to past the `;` or the closing `}`.
    pub range: Range<usize>,
    pub kind: StmtKind,
}

#[derive(Clone, Debug)]
pub(crate) enum StmtKind {
    /// Assignments, calls, `return`, `break`, `break if`, `continue`, `discard`, `_ = e`.
    Simple,
    Decl(Decl),
    /// `if`, then each `else if`, then the `else` (without a condition).
    If(Vec<Arm>),
    /// `for`, `while` or `loop`.
    Loop {
        body: Block,
    },
    Block(Block),
    Switch(Vec<Block>),
    Continuing(Block),
}

/// `let`, `var` or `const`.
#[derive(Clone, Debug)]
pub(crate) struct Decl {
    pub keyword: Range<usize>,
    pub name: String,
    /// The declared type's text, if written.
    pub ty: Option<Range<usize>>,
    /// The initializer's text, if any.
    pub init: Option<Range<usize>>,
}

#[derive(Clone, Debug)]
pub(crate) struct Arm {
    /// The condition's text (within its parentheses, if it has them); `None` for `else`.
    pub condition: Option<Range<usize>>,
    pub body: Block,
}

impl Outline {
    pub(crate) fn of(source: &str) -> Outline {
        let tokens = lex::tokens(source, 0, source.len());
        Outline {
            functions: parse::functions(source, &tokens),
        }
    }

    pub(crate) fn function(&self, name: &str) -> Option<&FnOutline> {
        self.functions.iter().find(|f| f.name == name)
    }
}

impl Stmt {
    /// The blocks nested directly in this statement.
    pub(crate) fn blocks(&self) -> Vec<&Block> {
        match &self.kind {
            StmtKind::Simple | StmtKind::Decl(_) => Vec::new(),
            StmtKind::If(arms) => arms.iter().map(|a| &a.body).collect(),
            StmtKind::Loop { body, .. } | StmtKind::Block(body) | StmtKind::Continuing(body) => {
                vec![body]
            }
            StmtKind::Switch(clauses) => clauses.iter().collect(),
        }
    }

    pub(crate) fn contains(&self, offset: usize) -> bool {
        self.range.contains(&offset)
    }
}

impl Block {
    /// The index of the statement directly in this block that holds `offset`.
    pub(crate) fn child_at(&self, offset: usize) -> Option<usize> {
        self.statements.iter().position(|s| s.contains(offset))
    }

    /// The innermost block holding `offset` (this one, or one nested in it).
    pub(crate) fn innermost(&self, offset: usize) -> &Block {
        let nested = self
            .child_at(offset)
            .and_then(|i| {
                self.statements[i]
                    .blocks()
                    .into_iter()
                    .find(|b| b.open < offset && offset < b.close)
            })
            .map(|b| b.innermost(offset));
        nested.unwrap_or(self)
    }

    /// The block opened by the `{` at `open`, this one or one nested in it.
    pub(crate) fn opened_at(&self, open: usize) -> Option<&Block> {
        if self.open == open {
            return Some(self);
        }
        let i = self.child_at(open)?;
        self.statements[i]
            .blocks()
            .into_iter()
            .find_map(|b| b.opened_at(open))
    }
}

/// Whether `text` names `name` as a whole word outside comments.
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    !named(text, 0..text.len(), name).is_empty()
}

/// Where `source` within `range` names `name` as a whole word outside comments.
fn named(source: &str, range: Range<usize>, name: &str) -> Vec<Range<usize>> {
    lex::tokens(source, range.start, range.end)
        .into_iter()
        .filter(|t| t.kind == lex::TokenKind::Word && &source[t.range.clone()] == name)
        .map(|t| t.range)
        .collect()
}

/// Whether statement `stmt` names a `name` declared outside it (`outside_references`).
pub(crate) fn refers_outside(source: &str, stmt: &Stmt, name: &str) -> bool {
    !outside_references(source, stmt, name).is_empty()
}

/// Where statement `stmt` names a `name` declared outside it: in its own text (not in its
/// blocks), or in one of its blocks before that block declares `name` itself. A block that
/// declares `name` and uses it after is shadowing, which refers to nothing outside. A
/// declaration's own name is no reference, its type and initializer may be.
pub(crate) fn outside_references(source: &str, stmt: &Stmt, name: &str) -> Vec<Range<usize>> {
    if let StmtKind::Decl(decl) = &stmt.kind {
        return [&decl.ty, &decl.init]
            .into_iter()
            .flatten()
            .flat_map(|range| named(source, range.clone(), name))
            .collect();
    }
    let blocks = stmt.blocks();
    let mut found = Vec::new();
    let mut start = stmt.range.start;
    for block in &blocks {
        found.extend(named(source, start..block.open, name));
        start = block.close + 1;
    }
    found.extend(named(
        source,
        start.min(stmt.range.end)..stmt.range.end,
        name,
    ));
    for block in &blocks {
        found.extend(block_references(source, block, 0, name));
    }
    found.sort_by_key(|r| r.start);
    found
}

/// Where the statements of `block` from `from` on name a `name` declared outside the block,
/// up to a declaration of its own.
pub(crate) fn block_references(
    source: &str,
    block: &Block,
    from: usize,
    name: &str,
) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for inner in block.statements.iter().skip(from) {
        found.extend(outside_references(source, inner, name));
        if matches!(&inner.kind, StmtKind::Decl(d) if d.name == name) {
            break;
        }
    }
    found
}

/// Every word (identifier, keyword, number) of `source`.
pub(crate) fn words(source: &str) -> Vec<&str> {
    lex::tokens(source, 0, source.len())
        .into_iter()
        .filter(|t: &Token| t.kind == lex::TokenKind::Word)
        .map(|t| &source[t.range])
        .collect()
}

/// The assignment operator of the simple statement at `range` (`=`, `+=`, ..., `++`, `--`):
/// its range and text, the first at bracket depth 0.
pub(crate) fn assignment(source: &str, range: Range<usize>) -> Option<(Range<usize>, &str)> {
    const OPERATORS: [&str; 13] = [
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--",
    ];
    let mut depth = 0i32;
    for token in lex::tokens(source, range.start, range.end) {
        let text = &source[token.range.clone()];
        match text {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            _ if depth == 0 && OPERATORS.contains(&text) => return Some((token.range, text)),
            _ => {}
        }
    }
    None
}

/// The type written in the declaration of module-scope variable `name` within `range`.
pub(crate) fn declared_type(source: &str, range: Range<usize>, name: &str) -> Option<Range<usize>> {
    let tokens = lex::tokens(source, range.start, range.end);
    let at = tokens
        .windows(2)
        .position(|w| &source[w[0].range.clone()] == name && &source[w[1].range.clone()] == ":")?;
    let first = tokens.get(at + 2)?;
    let last = tokens[at + 2..]
        .iter()
        .take_while(|t| &source[t.range.clone()] != ";" && &source[t.range.clone()] != "=")
        .last()?;
    Some(first.range.start..last.range.end)
}

#[cfg(test)]
mod tests;
