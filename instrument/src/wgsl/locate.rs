//! Turning naga spans into `file:line:column` locations for errors about the user's shader,
//! and into the line and column of instrumented places.

use crate::error::ShaderLocation;
use crate::wgsl::lines::LineIndex;
use naga::{Function, Span};
use std::cell::OnceCell;

pub(crate) struct Locator<'s> {
    file: &'s str,
    source: Option<&'s str>,
    /// Built the first time a position is asked for: a shader that instruments without an
    /// error or a numbered place never needs it.
    lines: OnceCell<LineIndex>,
}

impl<'s> Locator<'s> {
    pub(crate) fn new(file: &'s str, source: Option<&'s str>) -> Self {
        Locator {
            file,
            source,
            lines: OnceCell::new(),
        }
    }

    pub(crate) fn at(&self, span: Span) -> ShaderLocation {
        ShaderLocation {
            file: self.file.to_string(),
            position: self.position(span),
        }
    }

    /// The 1-based line and column of `span`, when there is source text and a span.
    pub(crate) fn position(&self, span: Span) -> Option<(u32, u32)> {
        let source = self.source.filter(|_| span.is_defined())?;
        Some(
            self.lines
                .get_or_init(|| LineIndex::new(source))
                .position(span),
        )
    }

    /// An entry point has no span of its own: its first argument's, else its first
    /// statement's, points into it.
    pub(crate) fn entry(&self, function: &Function) -> ShaderLocation {
        let argument = function
            .expressions
            .iter()
            .find(|(_, e)| matches!(e, naga::Expression::FunctionArgument(_)))
            .map(|(h, _)| function.expressions.get_span(h));
        let statement = function.body.span_iter().next().map(|(_, s)| *s);
        self.at(argument.or(statement).unwrap_or(Span::UNDEFINED))
    }

    /// Argument `index` of `function`, where naga kept its span (the argument's use).
    pub(crate) fn argument(&self, function: &Function, index: u32) -> ShaderLocation {
        let span = function
            .expressions
            .iter()
            .find(|(_, e)| **e == naga::Expression::FunctionArgument(index))
            .map(|(h, _)| function.expressions.get_span(h));
        match span {
            Some(span) => self.at(span),
            None => self.entry(function),
        }
    }
}
