//! A `Document` written as TOML: serde writes every key through the spec's own types, and
//! the written document is then laid out as a person reads it (a binding's `init` and a
//! dispatch's `bind` inline) and given comments above its tables and after its values.

use crate::document::Document;
use thiserror::Error;
use toml_edit::{DocumentMut, Item, Table, Value};

/// A table of a spec, by its place in the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The top level: the keys before the first table.
    Top,
    Dispatch(usize),
    Binding(usize),
    Check(usize),
}

/// Comments for a written spec. Each is one line: control characters but a tab (a line
/// break too) are written as their escapes, since TOML allows none in a comment.
#[derive(Clone, Debug, Default)]
pub struct Comments {
    /// Lines above a table (above the first key, for `Place::Top`).
    pub above: Vec<(Place, String)>,
    /// A comment after a key's value, in a table.
    pub after: Vec<(Place, &'static str, String)>,
}

/// Why a document could not be written: a value TOML cannot hold, or a comment for a table
/// or key the document does not have.
#[derive(Debug, Error)]
pub enum WriteError {
    #[error("the spec cannot be written as TOML: {0}")]
    Toml(#[from] toml::ser::Error),
    #[error("the written spec does not read back as TOML: {0}")]
    Layout(#[from] toml_edit::TomlError),
    #[error("a comment for {0:?}, which the spec does not have")]
    Missing(String),
}

/// `document` as spec.toml, with `comments`.
pub fn write(document: &Document, comments: &Comments) -> Result<String, WriteError> {
    let text = toml::to_string(document)?;
    let mut written: DocumentMut = text.parse()?;
    lay_out(&mut written);
    strings_on_one_line(written.as_table_mut());
    for (place, text) in &comments.above {
        let lines = format!("# {}\n", escaped(text));
        match place {
            Place::Top => {
                let table = written.as_table_mut();
                let first = table.iter().next().map(|(k, _)| k.to_string());
                let Some(first) = first else {
                    return Err(WriteError::Missing("the top level's first key".into()));
                };
                let mut key = table.key_mut(&first).expect("the first key is there");
                let decor = key.leaf_decor_mut();
                let before = decor.prefix().and_then(|p| p.as_str()).unwrap_or("");
                decor.set_prefix(format!("{before}{lines}"));
            }
            _ => {
                let table = table_at(&mut written, *place)?;
                let decor = table.decor_mut();
                let before = decor.prefix().and_then(|p| p.as_str()).unwrap_or("\n");
                decor.set_prefix(format!("{before}{lines}"));
            }
        }
    }
    for (place, key, text) in &comments.after {
        let table = match place {
            Place::Top => written.as_table_mut(),
            _ => table_at(&mut written, *place)?,
        };
        let value = table
            .get_mut(key)
            .and_then(Item::as_value_mut)
            .ok_or_else(|| WriteError::Missing(format!("{key} in {place:?}")))?;
        value
            .decor_mut()
            .set_suffix(format!("  # {}", escaped(text)));
    }
    Ok(written.to_string())
}

/// The table at `place` in an array of tables.
fn table_at(document: &mut DocumentMut, place: Place) -> Result<&mut Table, WriteError> {
    let (key, index) = match place {
        Place::Top => return Ok(document.as_table_mut()),
        Place::Dispatch(i) => ("dispatch", i),
        Place::Binding(i) => ("binding", i),
        Place::Check(i) => ("check", i),
    };
    document
        .get_mut(key)
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|tables| tables.get_mut(index))
        .ok_or_else(|| WriteError::Missing(format!("[[{key}]] {}", index + 1)))
}

/// A binding's `init` and a dispatch's `bind` as inline values, as docs/specs.md writes
/// them, in place of the sub-tables serde writes; every string on one line.
fn lay_out(document: &mut DocumentMut) {
    let inline = |table: &mut Table, key: &str| {
        let Some(item) = table.get_mut(key) else {
            return;
        };
        let taken = std::mem::take(item);
        *item = match taken {
            Item::Table(t) => Item::Value(t.into_inline_table().into()),
            Item::ArrayOfTables(a) => Item::Value(a.into_array().into()),
            other => other,
        };
        // The key was a table's header: written again as a value's key.
        if let Some(mut key) = table.key_mut(key) {
            key.leaf_decor_mut().clear();
        }
    };
    for (array, key) in [("binding", "init"), ("dispatch", "bind")] {
        if let Some(tables) = document
            .get_mut(array)
            .and_then(Item::as_array_of_tables_mut)
        {
            for table in tables.iter_mut() {
                inline(table, key);
            }
        }
    }
}

/// Every string of `table` and the tables under it as one line.
fn strings_on_one_line(table: &mut Table) {
    for (_, item) in table.iter_mut() {
        match item {
            Item::Value(value) => one_line(value),
            Item::Table(table) => strings_on_one_line(table),
            Item::ArrayOfTables(tables) => tables.iter_mut().for_each(strings_on_one_line),
            Item::None => {}
        }
    }
}

/// A string with a control character in it as a basic string, each one escaped, in place of
/// the multi-line string TOML writes for a line break: a label stays on its line, and no
/// terminal escape or carriage return is written raw.
fn one_line(value: &mut Value) {
    match value {
        Value::String(s) if s.value().contains(char::is_control) => {
            use toml_writer::ToTomlValue;
            let text = toml_writer::TomlStringBuilder::new(s.value())
                .as_basic()
                .to_toml_value();
            if let Ok(mut escaped) = text.parse::<Value>() {
                escaped.decor_mut().clear();
                *value = escaped;
            }
        }
        Value::Array(values) => values.iter_mut().for_each(one_line),
        Value::InlineTable(table) => table.iter_mut().for_each(|(_, v)| one_line(v)),
        _ => {}
    }
}

/// `line` as a comment may hold it.
fn escaped(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
