//! A page's console call as the browser's own console shows it: a first argument that is a
//! string is a format (`%s`, `%d` and `%i`, `%f`, `%o` and `%O`, `%c`, `%%`), filled from the
//! arguments after it; the arguments left over follow, each after a space. Arguments are
//! DevTools `RemoteObject`s.

use serde_json::Value;

/// An argument as the console shows it by itself.
fn plain(arg: &Value) -> String {
    match &arg["value"] {
        Value::String(s) => s.clone(),
        Value::Null => arg["unserializableValue"]
            .as_str()
            .or(arg["description"].as_str())
            .unwrap_or(match arg["type"].as_str() {
                Some("undefined") => "undefined",
                _ => "null",
            })
            .to_string(),
        // A number as JavaScript prints it, whichever way the JSON wrote it.
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), js_float),
        other => other.to_string(),
    }
}

/// The number an argument is, as JavaScript's `Number()` and `parseFloat` take it.
fn number(arg: &Value) -> Option<f64> {
    match &arg["value"] {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = s.trim_start();
            let end = s
                .char_indices()
                .take_while(|&(i, c)| {
                    c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))
                })
                .map(|(i, c)| i + c.len_utf8())
                .last()?;
            s[..end].parse().ok()
        }
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// A float as JavaScript prints it (no `.0` on a whole number).
fn js_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if x == x.trunc() && x.abs() < 1e21 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The console line of a call with `args`.
pub(crate) fn format(args: &[Value]) -> String {
    let Some(first) = args.first() else {
        return String::new();
    };
    let mut rest = args[1..].iter();
    let mut out = String::new();
    match first["value"]
        .as_str()
        .filter(|_| first["type"] == "string")
    {
        Some(format) => {
            let mut chars = format.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                let Some(&spec) = chars.peek() else {
                    out.push('%');
                    break;
                };
                if spec == '%' {
                    chars.next();
                    out.push('%');
                    continue;
                }
                if !"sdifoOc".contains(spec) {
                    out.push('%');
                    continue;
                }
                let Some(arg) = rest.next() else {
                    // No argument left: the directive stays as written.
                    out.push('%');
                    continue;
                };
                chars.next();
                match spec {
                    's' | 'o' | 'O' => out.push_str(&plain(arg)),
                    'd' | 'i' => {
                        out.push_str(&number(arg).map_or("NaN".into(), |x| js_float(x.trunc())))
                    }
                    'f' => out.push_str(&number(arg).map_or("NaN".into(), js_float)),
                    // A style: the console shows none of it.
                    _ => {}
                }
            }
        }
        None => out.push_str(&plain(first)),
    }
    for arg in rest {
        out.push(' ');
        out.push_str(&plain(arg));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format;
    use serde_json::json;

    fn string(s: &str) -> serde_json::Value {
        json!({ "type": "string", "value": s })
    }

    fn num(x: f64) -> serde_json::Value {
        json!({ "type": "number", "value": x, "description": x.to_string() })
    }

    #[test]
    fn a_format_is_filled_as_the_browser_fills_it() {
        let args = [
            string("%d of %i, %f s, %s%c, %o and %%d"),
            num(3.7),
            string("42abc"),
            num(2.5),
            string("done"),
            string("color: red"),
            json!({ "type": "object", "description": "Array(2)" }),
            num(1.0),
        ];
        assert_eq!(format(&args), "3 of 42, 2.5 s, done, Array(2) and %d 1");
    }

    #[test]
    fn a_call_without_a_format_joins_its_arguments() {
        assert_eq!(format(&[num(1.0), string("a b")]), "1 a b");
        assert_eq!(format(&[string("%d left")]), "%d left");
        assert_eq!(
            format(&[json!({ "type": "undefined" }), string("x")]),
            "undefined x"
        );
    }
}
