//! The merged report as text, and as an HTML page with SVG charts; the JSON is the report's
//! own serialisation.

mod cells;
mod html;
mod svg;
mod text;

pub use html::html;
pub use text::text;
