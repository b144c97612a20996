//! Numbering of instrumented places (assertion calls, loops) with their source positions.

use crate::manifest::Site;
use naga::Span;

pub struct Sites<'s> {
    source: Option<&'s str>,
    list: Vec<Site>,
}

impl<'s> Sites<'s> {
    pub fn new(source: Option<&'s str>) -> Self {
        Sites {
            source,
            list: Vec::new(),
        }
    }

    /// Registers a place in `function` at `span` and returns its id.
    pub fn add(&mut self, function: &str, span: Span) -> u32 {
        let id = self.list.len() as u32;
        let position = self
            .source
            .filter(|_| span.is_defined())
            .map(|source| span.location(source));
        self.list.push(Site {
            id,
            function: function.to_string(),
            line: position.map(|p| p.line_number),
            column: position.map(|p| p.line_position),
        });
        id
    }

    pub fn into_vec(self) -> Vec<Site> {
        self.list
    }
}
