//! Turning naga spans into `file:line:column` locations for errors about the user's shader.

use crate::error::Location;
use naga::{Function, Span};

pub struct Locator<'s> {
    file: &'s str,
    source: Option<&'s str>,
}

impl<'s> Locator<'s> {
    pub fn new(file: &'s str, source: Option<&'s str>) -> Self {
        Locator { file, source }
    }

    pub fn at(&self, span: Span) -> Location {
        let position = self
            .source
            .filter(|_| span.is_defined())
            .map(|source| span.location(source))
            .map(|l| (l.line_number, l.line_position));
        Location {
            file: self.file.to_string(),
            position,
        }
    }

    /// An entry point has no span of its own: its first argument's, else its first
    /// statement's, points into it.
    pub fn entry(&self, function: &Function) -> Location {
        let argument = function
            .expressions
            .iter()
            .find(|(_, e)| matches!(e, naga::Expression::FunctionArgument(_)))
            .map(|(h, _)| function.expressions.get_span(h));
        let statement = function.body.span_iter().next().map(|(_, s)| *s);
        self.at(argument.or(statement).unwrap_or(Span::UNDEFINED))
    }

    /// Argument `index` of `function`, where naga kept its span (the argument's use).
    pub fn argument(&self, function: &Function, index: u32) -> Location {
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
