//! The parts of the README its tests read: sections by heading and fenced code blocks.
#![allow(dead_code)]

use std::path::Path;

/// The README's text.
pub fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The text of the `## HEADING` section, up to the next `## ` heading.
pub fn section<'a>(markdown: &'a str, heading: &str) -> &'a str {
    let start = markdown
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("the README has no `## {heading}` section"));
    let body = &markdown[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |i| i + 4);
    &body[..end]
}

/// A fenced code block: the language after its opening fence, and its lines.
#[derive(Debug)]
pub struct Block {
    pub lang: String,
    pub text: String,
}

impl Block {
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.text.lines()
    }
}

/// The fenced code blocks of `markdown`, in order (fences may be indented, as inside HTML).
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(lang) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        lang: lang.trim().to_string(),
                        text: String::new(),
                    });
                }
            }
            Some(block) => {
                if trimmed == "```" {
                    found.extend(open.take());
                } else {
                    block.text.push_str(line);
                    block.text.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    found
}

#[test]
fn blocks_and_sections_are_found() {
    let text = "# t\n\n## A\n\n```sh\nx y\n```\n\ntext\n\n  ```toml\n  a = 1\n  ```\n## B\n\n```\nz\n```\n";
    let a = section(text, "A");
    assert!(a.starts_with("## A\n") && !a.contains("## B"), "{a:?}");
    let found = blocks(a);
    assert_eq!(found.len(), 2);
    assert_eq!(
        (found[0].lang.as_str(), found[0].text.as_str()),
        ("sh", "x y\n")
    );
    assert_eq!(
        (found[1].lang.as_str(), found[1].text.as_str()),
        ("toml", "  a = 1\n")
    );
    assert_eq!(blocks(section(text, "B"))[0].text, "z\n");
}
