//! Tables a spec writes internally tagged, their kind beside the kind's own keys (a
//! `[[check]]`'s `kind = "all-equal"` and `value = 1024`, a binding's `init = { kind =
//! "fill", value = 3 }`), rewritten in the parsed document as externally tagged ones
//! (`all-equal = { value = 1024 }`) before serde reads them.
//!
//! serde reads an internally tagged enum, and a struct with a flattened part, through a
//! buffer of its own that keeps no place in the file: a wrong value there was reported at its
//! table. Rewritten, every value is read by toml's deserializer where it stands, so an error
//! points at its own key or value, a kind that is not one at the kind's value, and a missing
//! key at the table.

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::Serialize;
use std::ops::Range;
use toml::de::{DeString, DeTable, DeValue};
use toml::Spanned;

/// What is wrong with a tagged table before serde can read it, and where.
#[derive(Debug)]
pub(crate) struct Untagged {
    pub span: Range<usize>,
    pub message: String,
}

/// How a table is written internally tagged, and where its variant goes.
pub(crate) struct Tagged {
    /// The key that names the variant.
    pub tag: &'static str,
    /// The keys of the table's own, read beside the variant (a check's `binding`): they stay
    /// where they are.
    pub own: &'static [&'static str],
    /// The key the variant goes under, beside the own keys; with none, the variant is the
    /// whole table.
    pub into: Option<&'static str>,
    /// The variants' names, for a table without one.
    pub variants: &'static [&'static str],
}

impl Tagged {
    /// Rewrites `value`, when it is a table, as externally tagged. A value that is not a
    /// table is left for serde to refuse as the wrong type.
    pub(crate) fn rewrite(&self, value: &mut Spanned<DeValue<'_>>) -> Result<(), Untagged> {
        let span = value.span();
        let DeValue::Table(table) = value.get_mut() else {
            return Ok(());
        };
        let choices = || self.variants.join(", ");
        let (tag_key, tag_value) = table.remove_entry(self.tag).ok_or_else(|| Untagged {
            span: span.clone(),
            message: format!("missing field `{}`: give one of {}", self.tag, choices()),
        })?;
        let variant = match tag_value.get_ref() {
            DeValue::String(name) => Spanned::new(tag_value.span(), name.clone()),
            other => {
                return Err(Untagged {
                    span: tag_value.span(),
                    message: format!(
                        "`{}` takes a name in quotes, one of {}; found {}",
                        self.tag,
                        choices(),
                        other.type_str()
                    ),
                })
            }
        };
        let mut fields = DeTable::new();
        let mut kept = DeTable::new();
        for (key, item) in std::mem::take(table) {
            let name: &str = key.get_ref();
            if self.own.contains(&name) && self.into != Some(name) {
                kept.insert(key, item);
            } else {
                fields.insert(key, item);
            }
        }
        // The kind's name is the variant's key, spanned as the tag's value: toml points an
        // unknown kind there. The variant's table is spanned as the whole one: toml points a
        // missing key there.
        let mut outer = DeTable::new();
        outer.insert(variant, Spanned::new(span.clone(), DeValue::Table(fields)));
        match self.into {
            Some(into) => {
                let key = Spanned::new(tag_key.span(), DeString::Borrowed(into));
                kept.insert(key, Spanned::new(span, DeValue::Table(outer)));
                *table = kept;
            }
            None => *table = outer,
        }
        Ok(())
    }
}

/// An externally tagged enum value's variant name and keys, as serde writes it (a unit
/// variant is its name alone): what `serialize` writes beside the tag.
pub(crate) fn variant<V: Serialize>(value: &V) -> Result<(String, toml::Table), String> {
    match toml::Value::try_from(value).map_err(|e| e.to_string())? {
        toml::Value::String(name) => Ok((name, toml::Table::new())),
        toml::Value::Table(table) if table.len() == 1 => {
            let (name, fields) = table.into_iter().next().expect("a table of one entry");
            match fields {
                toml::Value::Table(fields) => Ok((name, fields)),
                other => Err(format!(
                    "the variant `{name}` holds {} where its keys were expected",
                    other.type_str()
                )),
            }
        }
        other => Err(format!("{} is not a variant with keys", other.type_str())),
    }
}

/// Serializes an internally tagged value, as a spec writes it: `kind` and the variant's own
/// keys beside `own`'s, in one table (`Tagged::rewrite` reads it back).
pub(crate) fn serialize<S: Serializer, V: Serialize>(
    serializer: S,
    own: &[(&'static str, toml::Value)],
    value: &V,
) -> Result<S::Ok, S::Error> {
    let (kind, fields) = variant(value).map_err(S::Error::custom)?;
    let mut map = serializer.serialize_map(Some(own.len() + 1 + fields.len()))?;
    for (key, value) in own {
        map.serialize_entry(key, value)?;
    }
    map.serialize_entry("kind", &kind)?;
    for (key, value) in &fields {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

/// The names serde's derive gives a struct's fields or an enum's variants, read from the
/// derive itself, so that no list written here can drift from the type.
pub(crate) fn names_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    // The probe always refuses: it only wants what the derive hands it.
    let _ = T::deserialize(Probe(&mut names));
    names
}

/// A deserializer that notes the names a derive passes to `deserialize_struct` or
/// `deserialize_enum`, and refuses everything.
struct Probe<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("names only"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = variants;
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields)]
    enum Shape {
        Square { side: u32 },
        Dot,
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Drawn {
        name: String,
        shape: Shape,
    }

    const DRAWN: Tagged = Tagged {
        tag: "kind",
        own: &["name", "shape"],
        into: Some("shape"),
        variants: &["square", "dot"],
    };

    /// `text` read as a `Drawn`; an error as `offset: message`.
    fn read(text: &str) -> Result<Drawn, (usize, String)> {
        let document = DeTable::parse(text).unwrap();
        let span = document.span();
        let mut value = Spanned::new(span.clone(), DeValue::Table(document.into_inner()));
        DRAWN
            .rewrite(&mut value)
            .map_err(|u| (u.span.start, u.message))?;
        let DeValue::Table(table) = value.into_inner() else {
            unreachable!("a rewritten table stays a table")
        };
        Drawn::deserialize(toml::de::Deserializer::from(Spanned::new(span, table)))
            .map_err(|e| (e.span().map_or(0, |s| s.start), e.message().to_string()))
    }

    /// The error for `text`, as `line:column: message`.
    fn refused(text: &str) -> String {
        let (offset, message) = read(text).expect_err(text);
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = offset - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("{line}:{column}: {message}")
    }

    #[test]
    fn a_tagged_table_reads_as_its_variant_beside_its_own_keys() {
        let square = Shape::Square { side: 3 };
        let drawn = read("name = \"a\"\nkind = \"square\"\nside = 3\n").unwrap();
        assert_eq!(
            drawn,
            Drawn {
                name: "a".into(),
                shape: square
            }
        );
        let dot = read("kind = \"dot\"\nname = \"b\"\n").unwrap();
        assert_eq!(dot.shape, Shape::Dot);
    }

    #[test]
    fn each_error_points_at_its_own_key() {
        let cases = [
            (
                "name = \"a\"\nkind = \"square\"\nside = \"3\"\n",
                "3:8: invalid type: string \"3\"",
            ),
            (
                "name = \"a\"\nkind = \"circle\"\n",
                "2:8: unknown variant `circle`",
            ),
            (
                "name = \"a\"\nkind = \"square\"\nsize = 3\n",
                "3:1: unexpected keys in table: size",
            ),
            (
                "name = \"a\"\nkind = \"square\"\n",
                "1:1: missing field `side`",
            ),
            (
                "name = 4\nkind = \"dot\"\n",
                "1:8: invalid type: integer `4`",
            ),
            (
                "name = \"a\"\nside = 3\n",
                "1:1: missing field `kind`: give one of square, dot",
            ),
            (
                "name = \"a\"\nkind = 2\n",
                "2:8: `kind` takes a name in quotes, one of square, dot; found integer",
            ),
            // The key the variant goes under is not one the table may write itself.
            (
                "name = \"a\"\nkind = \"square\"\nside = 1\nshape = 1\n",
                "4:1: unexpected keys in table: shape",
            ),
        ];
        for (text, expected) in cases {
            let error = refused(text);
            assert!(error.starts_with(expected), "{text}: {error}");
        }
    }

    #[test]
    fn names_come_from_the_derive() {
        assert_eq!(names_of::<Drawn>(), ["name", "shape"]);
        assert_eq!(names_of::<Shape>(), ["square", "dot"]);
    }
}
