//! The outline's parser: a recursive descent over tokens that knows WGSL's statement forms
//! and nothing of expressions beyond bracket nesting.

use super::lex::Token;
use super::{Arm, Block, Decl, FnOutline, Stmt, StmtKind};

struct Parser<'a> {
    source: &'a str,
    tokens: &'a [Token],
}

/// Every `fn` at the top level of the source.
pub(crate) fn functions(source: &str, tokens: &[Token]) -> Vec<FnOutline> {
    let p = Parser { source, tokens };
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if p.is(i, "{") || p.is(i, "(") || p.is(i, "[") {
            i = p.matching(i) + 1;
        } else if p.is(i, "fn") && i + 2 < tokens.len() {
            let name = p.text(i + 1).to_string();
            let open = i + 2;
            let close = p.matching(open);
            let parameters = p.parameters(open, close);
            let mut body = close + 1;
            while body < tokens.len() && !p.is(body, "{") {
                body += 1;
            }
            if body >= tokens.len() {
                break;
            }
            let (block, next) = p.block(body);
            out.push(FnOutline {
                name,
                parameters,
                signature: p.end(open)..p.start(close),
                body: block,
            });
            i = next;
        } else {
            i += 1;
        }
    }
    out
}

impl Parser<'_> {
    fn text(&self, i: usize) -> &str {
        self.tokens
            .get(i)
            .map_or("", |t| &self.source[t.range.clone()])
    }

    fn is(&self, i: usize, text: &str) -> bool {
        self.text(i) == text
    }

    fn start(&self, i: usize) -> usize {
        self.tokens
            .get(i)
            .map_or(self.source.len(), |t| t.range.start)
    }

    fn end(&self, i: usize) -> usize {
        self.tokens
            .get(i)
            .map_or(self.source.len(), |t| t.range.end)
    }

    /// The index of the bracket closing the one at `open` (the last token if unmatched).
    fn matching(&self, open: usize) -> usize {
        let mut depth = 0i32;
        for i in open..self.tokens.len() {
            match self.text(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                }
                _ => {}
            }
        }
        self.tokens.len().saturating_sub(1)
    }

    /// From `i`, the first token at bracket depth 0 that is one of `stops`.
    fn find(&self, mut i: usize, stops: &[&str]) -> usize {
        while i < self.tokens.len() {
            let t = self.text(i);
            if stops.contains(&t) {
                return i;
            }
            i = match t {
                "(" | "[" => self.matching(i) + 1,
                _ => i + 1,
            };
        }
        i
    }

    /// The parameter names between the parentheses at `open` and `close`.
    fn parameters(&self, open: usize, close: usize) -> Vec<String> {
        let mut names = Vec::new();
        let mut i = open + 1;
        while i < close {
            i = self.attributes(i);
            if self.is(i + 1, ":") {
                names.push(self.text(i).to_string());
            }
            i = self.find(i, &[",", ")"]) + 1;
        }
        names
    }

    /// Past any attributes (`@name`, `@name(...)`) at `i`.
    fn attributes(&self, mut i: usize) -> usize {
        while self.is(i, "@") {
            i += 2;
            if self.is(i, "(") {
                i = self.matching(i) + 1;
            }
        }
        i
    }

    /// The block opened at token `open`, and the index past its `}`.
    fn block(&self, open: usize) -> (Block, usize) {
        let close = self.matching(open);
        let mut statements = Vec::new();
        let mut i = open + 1;
        while i < close {
            if self.is(i, ";") {
                i += 1;
                continue;
            }
            let (statement, next) = self.statement(i);
            statements.push(statement);
            i = next.max(i + 1);
        }
        let block = Block {
            open: self.start(open),
            close: self.start(close),
            statements,
        };
        (block, close + 1)
    }

    fn statement(&self, first: usize) -> (Stmt, usize) {
        let i = self.attributes(first);
        let start = self.start(first);
        let (kind, next) = match self.text(i) {
            "{" => {
                let (b, next) = self.block(i);
                (StmtKind::Block(b), next)
            }
            "if" => self.if_(i),
            "for" => {
                let open = self.find(self.matching(i + 1) + 1, &["{"]);
                self.loop_(open)
            }
            "while" | "loop" => {
                let open = self.find(i + 1, &["{"]);
                self.loop_(open)
            }
            "switch" => self.switch(i),
            "continuing" => {
                let (b, next) = self.block(i + 1);
                (StmtKind::Continuing(b), next)
            }
            "let" | "var" | "const" => {
                let end = self.find(i, &[";", "}"]);
                (StmtKind::Decl(self.decl(i, end)), end + 1)
            }
            _ => {
                let end = self.find(i, &[";", "}"]);
                (StmtKind::Simple, end + 1)
            }
        };
        let end = self.end(next.saturating_sub(1));
        let range = start..end;
        (Stmt { range, kind }, next)
    }

    fn loop_(&self, open: usize) -> (StmtKind, usize) {
        let (body, next) = self.block(open);
        (StmtKind::Loop { body }, next)
    }

    fn if_(&self, mut i: usize) -> (StmtKind, usize) {
        let mut arms = Vec::new();
        loop {
            // At `if`: the condition runs to the body's `{`.
            let open = self.find(i + 1, &["{"]);
            let condition = self.condition(i + 1, open);
            let (body, next) = self.block(open);
            arms.push(Arm {
                condition: Some(condition),
                body,
            });
            if !self.is(next, "else") {
                return (StmtKind::If(arms), next);
            }
            if self.is(next + 1, "if") {
                i = next + 1;
                continue;
            }
            let (body, next) = self.block(next + 1);
            arms.push(Arm {
                condition: None,
                body,
            });
            return (StmtKind::If(arms), next);
        }
    }

    /// The text of a condition from token `from` to `to` (exclusive), without one pair of
    /// parentheses around all of it.
    fn condition(&self, from: usize, to: usize) -> std::ops::Range<usize> {
        if self.is(from, "(") && self.matching(from) + 1 == to {
            return self.end(from)..self.start(to - 1);
        }
        self.start(from)..self.end(to.saturating_sub(1))
    }

    fn switch(&self, i: usize) -> (StmtKind, usize) {
        let open = self.find(i + 1, &["{"]);
        let close = self.matching(open);
        let mut clauses = Vec::new();
        let mut j = open + 1;
        while j < close {
            if self.is(j, "{") {
                let (b, next) = self.block(j);
                clauses.push(b);
                j = next;
            } else {
                j += 1;
            }
        }
        (StmtKind::Switch(clauses), close + 1)
    }

    /// `let`/`var`/`const` at `i`, its `;` at `end`.
    fn decl(&self, i: usize, end: usize) -> Decl {
        let mut name = i + 1;
        if self.is(name, "<") {
            while name < end && !self.is(name, ">") {
                name += 1;
            }
            name += 1;
        }
        let after = name + 1;
        let eq = self.find(after, &["=", ";"]).min(end);
        let ty = self
            .is(after, ":")
            .then(|| self.start(after + 1)..self.end(eq - 1));
        let init = (eq < end && self.is(eq, "=")).then(|| self.start(eq + 1)..self.end(end - 1));
        Decl {
            keyword: self.start(i)..self.end(i),
            name: self.text(name).to_string(),
            ty,
            init,
        }
    }
}
