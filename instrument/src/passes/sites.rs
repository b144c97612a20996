//! Numbering of instrumented places (assertion calls, loops) with their source positions.

use crate::manifest::Site;
use crate::wgsl::locate::Locator;
use naga::Span;

pub(crate) struct Sites<'l, 's> {
    locator: &'l Locator<'s>,
    list: Vec<Site>,
}

impl<'l, 's> Sites<'l, 's> {
    pub(crate) fn new(locator: &'l Locator<'s>) -> Self {
        Sites {
            locator,
            list: Vec::new(),
        }
    }

    /// Registers a place in `function` at `span` and returns its id.
    pub(crate) fn add(&mut self, function: &str, span: Span) -> u32 {
        let id = self.list.len() as u32;
        let position = self.locator.position(span);
        self.list.push(Site {
            id,
            function: function.to_string(),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
        });
        id
    }

    pub(crate) fn into_vec(self) -> Vec<Site> {
        self.list
    }
}
