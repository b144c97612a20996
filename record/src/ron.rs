//! Just enough of RON (Rusty Object Notation) to read a wgpu trace, keeping what a generic
//! value loses: the names of structs, tuple structs and enum variants (`CreateBuffer(...)`,
//! `Buffer((buffer: ...))`), which say what each action is.

/// A RON value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ron {
    /// `Name(field: value, ...)` or `(field: value, ...)`.
    Struct(Option<String>, Vec<(String, Ron)>),
    /// `Name(value, ...)` or `(value, ...)`; `Some(x)` is one of these.
    Tuple(Option<String>, Vec<Ron>),
    /// A bare name: a unit variant or struct, `None`.
    Unit(String),
    List(Vec<Ron>),
    Map(Vec<(Ron, Ron)>),
    Str(String),
    /// A number as written: the reader converts it to the type it needs.
    Number(String),
    Bool(bool),
}

impl Ron {
    /// The name of a struct, tuple or unit value.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Ron::Struct(n, _) | Ron::Tuple(n, _) => n.as_deref(),
            Ron::Unit(n) => Some(n),
            _ => None,
        }
    }

    /// A struct's field.
    pub(crate) fn field(&self, name: &str) -> Option<&Ron> {
        match self {
            Ron::Struct(_, fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A tuple's item.
    pub(crate) fn item(&self, index: usize) -> Option<&Ron> {
        match self {
            Ron::Tuple(_, items) => items.get(index),
            Ron::List(items) => items.get(index),
            _ => None,
        }
    }

    pub(crate) fn items(&self) -> &[Ron] {
        match self {
            Ron::Tuple(_, items) | Ron::List(items) => items,
            _ => &[],
        }
    }

    /// The value inside `Some(...)`, or this value itself; `None` for `None`.
    pub(crate) fn some(&self) -> Option<&Ron> {
        match self {
            Ron::Unit(n) if n == "None" => None,
            Ron::Tuple(Some(n), items) if n == "Some" && items.len() == 1 => Some(&items[0]),
            other => Some(other),
        }
    }

    pub(crate) fn u64(&self) -> Option<u64> {
        match self {
            Ron::Number(text) => {
                let t = text.replace('_', "");
                match t.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => t.parse().ok(),
                }
            }
            // A newtype around a number: `Id(3)`.
            Ron::Tuple(_, items) if items.len() == 1 => items[0].u64(),
            _ => None,
        }
    }

    pub(crate) fn f64(&self) -> Option<f64> {
        match self {
            Ron::Number(text) => text.replace('_', "").parse().ok(),
            _ => None,
        }
    }

    pub(crate) fn str(&self) -> Option<&str> {
        match self {
            Ron::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Where the text stopped being RON, as a byte offset and what was wrong.
#[derive(Debug, PartialEq)]
pub(crate) struct RonError {
    pub(crate) at: usize,
    pub(crate) what: String,
}

/// Parses one RON value (after any `#![enable(...)]` attributes).
pub(crate) fn parse(text: &str) -> Result<Ron, RonError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.space();
    while p.s[p.i..].starts_with(b"#![") {
        while p.i < p.s.len() && p.s[p.i] != b']' {
            p.i += 1;
        }
        p.i += 1;
        p.space();
    }
    let value = p.value()?;
    p.space();
    if p.i != p.s.len() {
        return Err(p.error("text after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> RonError {
        RonError {
            at: self.i,
            what: what.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn space(&mut self) {
        loop {
            while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                self.i += 1;
            }
            if self.s[self.i..].starts_with(b"//") {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            } else if self.s[self.i..].starts_with(b"/*") {
                match self.s[self.i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(k) => self.i += k + 4,
                    None => self.i = self.s.len(),
                }
            } else {
                return;
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), RonError> {
        self.space();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", c as char)))
        }
    }

    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        if self.s[self.i..].starts_with(b"r#") {
            self.i += 2;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).replace("r#", ""))
    }

    fn value(&mut self) -> Result<Ron, RonError> {
        self.space();
        match self.peek() {
            None => Err(self.error("expected a value")),
            Some(b'[') => {
                self.i += 1;
                let items = self.sequence(b']', |p| p.value())?;
                Ok(Ron::List(items))
            }
            Some(b'{') => {
                self.i += 1;
                let entries = self.sequence(b'}', |p| {
                    let key = p.value()?;
                    p.expect(b':')?;
                    Ok((key, p.value()?))
                })?;
                Ok(Ron::Map(entries))
            }
            Some(b'(') => self.parenthesised(None),
            Some(b'"') => self.string().map(Ron::Str),
            Some(b'r') if self.at_raw_string() => self.raw_string().map(Ron::Str),
            Some(b'b') if self.s.get(self.i + 1) == Some(&b'"') => {
                self.i += 1;
                self.string().map(Ron::Str)
            }
            Some(b'\'') => {
                self.i += 1;
                let start = self.i;
                while self.peek().is_some_and(|c| c != b'\'') {
                    self.i += 1;
                }
                let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                Ok(Ron::Str(text))
            }
            Some(c) if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => {
                let start = self.i;
                self.i += 1;
                while self.peek().is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'+' | b'-')
                }) {
                    self.i += 1;
                }
                Ok(Ron::Number(
                    String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
                ))
            }
            Some(_) => {
                let name = self.ident().ok_or_else(|| self.error("expected a value"))?;
                match name.as_str() {
                    "true" => return Ok(Ron::Bool(true)),
                    "false" => return Ok(Ron::Bool(false)),
                    "inf" | "NaN" => return Ok(Ron::Number(name)),
                    _ => {}
                }
                self.space();
                if self.peek() == Some(b'(') {
                    self.parenthesised(Some(name))
                } else {
                    Ok(Ron::Unit(name))
                }
            }
        }
    }

    /// `(field: value, ...)` or `(value, ...)`, after an optional name.
    fn parenthesised(&mut self, name: Option<String>) -> Result<Ron, RonError> {
        self.expect(b'(')?;
        self.space();
        // A struct when the first thing inside is `name:` (and not `name::`).
        let save = self.i;
        let is_struct = match self.ident() {
            Some(_) => {
                self.space();
                self.peek() == Some(b':') && self.s.get(self.i + 1) != Some(&b':')
            }
            None => false,
        };
        self.i = save;
        if is_struct {
            let fields = self.sequence(b')', |p| {
                p.space();
                let field = p.ident().ok_or_else(|| p.error("expected a field name"))?;
                p.expect(b':')?;
                Ok((field, p.value()?))
            })?;
            Ok(Ron::Struct(name, fields))
        } else {
            let items = self.sequence(b')', |p| p.value())?;
            Ok(Ron::Tuple(name, items))
        }
    }

    /// Items separated by commas (a trailing one allowed) up to `close`.
    fn sequence<T>(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<T, RonError>,
    ) -> Result<Vec<T>, RonError> {
        let mut out = Vec::new();
        loop {
            self.space();
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok(out);
            }
            out.push(item(self)?);
            self.space();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {}
                _ => return Err(self.error(&format!("expected `,` or `{}`", close as char))),
            }
        }
    }

    fn string(&mut self) -> Result<String, RonError> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error("a string without its end")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    let c = self.s.get(self.i + 1).copied();
                    self.i += 2;
                    match c {
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(b'r') => out.push(b'\r'),
                        Some(b'0') => out.push(0),
                        Some(b'u') => {
                            // \u{XXXX}
                            let end = self.s[self.i..]
                                .iter()
                                .position(|&c| c == b'}')
                                .ok_or_else(|| self.error("a \\u escape without its end"))?;
                            let hex = String::from_utf8_lossy(&self.s[self.i + 1..self.i + end])
                                .into_owned();
                            self.i += end + 1;
                            let ch = u32::from_str_radix(&hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error("a \\u escape that is no character"))?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        Some(b'x') => {
                            let hex =
                                String::from_utf8_lossy(&self.s[self.i..self.i + 2]).into_owned();
                            self.i += 2;
                            out.push(
                                u8::from_str_radix(&hex, 16)
                                    .map_err(|_| self.error("a \\x escape"))?,
                            );
                        }
                        Some(c) => out.push(c),
                        None => return Err(self.error("a string without its end")),
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// `r"..."` or `r#"..."#`, not a raw identifier `r#name`.
    fn at_raw_string(&self) -> bool {
        let hashes = self.s[self.i + 1..]
            .iter()
            .take_while(|&&c| c == b'#')
            .count();
        self.s.get(self.i + 1 + hashes) == Some(&b'"')
    }

    fn raw_string(&mut self) -> Result<String, RonError> {
        self.i += 1; // r
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.i += 1;
        }
        self.expect(b'"')?;
        let mut end = vec![b'"'];
        end.extend(std::iter::repeat_n(b'#', hashes));
        let k = self.s[self.i..]
            .windows(end.len())
            .position(|w| w == end.as_slice())
            .ok_or_else(|| self.error("a raw string without its end"))?;
        let text = String::from_utf8_lossy(&self.s[self.i..self.i + k]).into_owned();
        self.i += k + end.len();
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_structs_tuples_and_options() {
        let text = r#"[
            Init(desc: (label: None, required_features: 0), backend: Vulkan),
            CreateBuffer(PointerId(0x1), (label: Some("total"), size: 4, usage: 132, mapped_at_creation: false)),
            WriteBuffer(id: PointerId(2), data: File("data1.bin"), offset: 0, size: 16, queued: true),
            // a comment
            Submit(1, [RunComputePass(base: (commands: [Dispatch((256, 1, 1))]))]),
        ]"#;
        let v = parse(text).unwrap();
        let actions = v.items();
        assert_eq!(actions.len(), 4);
        assert_eq!(actions[0].name(), Some("Init"));
        assert_eq!(
            actions[0].field("backend"),
            Some(&Ron::Unit("Vulkan".into()))
        );
        let buffer = &actions[1];
        assert_eq!(buffer.item(0).unwrap().u64(), Some(1));
        let desc = buffer.item(1).unwrap();
        assert_eq!(
            desc.field("label").unwrap().some().unwrap().str(),
            Some("total")
        );
        assert_eq!(desc.field("size").unwrap().u64(), Some(4));
        assert_eq!(
            actions[2].field("data").unwrap().item(0).unwrap().str(),
            Some("data1.bin")
        );
        let dispatch = &actions[3].item(1).unwrap().items()[0]
            .field("base")
            .unwrap()
            .field("commands")
            .unwrap()
            .items()[0];
        assert_eq!(dispatch.name(), Some("Dispatch"));
        assert_eq!(dispatch.item(0).unwrap().item(0).unwrap().u64(), Some(256));
    }

    #[test]
    fn strings_keep_their_escapes_and_errors_say_where() {
        assert_eq!(
            parse(r#""a\"b\n\u{e9}""#).unwrap(),
            Ron::Str("a\"b\né".into())
        );
        assert_eq!(parse(r##"r#"x"y"#"##).unwrap(), Ron::Str("x\"y".into()));
        let error = parse("(a: 1, b: )").unwrap_err();
        assert_eq!(error.at, 10);
    }
}
