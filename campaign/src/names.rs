//! Readable names that are safe as file names: for items, adapters and hosts.

/// A file or directory name made of `text`: letters, digits, `.`, `_` and `-`.
pub(crate) fn safe_name(text: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || "._-".contains(c) => c,
            _ => '-',
        })
        .collect();
    match name.trim_matches(['-', '.']) {
        "" => "unnamed".to_string(),
        n => n.to_string(),
    }
}

/// Lower-case letters, digits, dots and single dashes, at most 48 characters: readable
/// file names for items and adapters.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    out.trim_matches(['-', '.']).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_safe_for_every_file_system() {
        assert_eq!(super::safe_name("node-1.cluster"), "node-1.cluster");
        assert_eq!(super::safe_name("a/b c"), "a-b-c");
        assert_eq!(super::safe_name(".."), "unnamed");
    }
}
