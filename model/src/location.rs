//! Places in files, as every error that points into a spec, a plan or a baseline shows them.

use std::path::{Path, PathBuf};

/// A place in a file, shown as `file:line:column`: lines from 1, columns in characters
/// from 1. Every error that points into a spec, a plan or a baseline is built with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Location {
    /// The place of byte `offset` of `text`, the contents of `file`.
    pub fn of(file: &Path, text: &str, offset: usize) -> Location {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Location {
            file: file.to_path_buf(),
            line,
            column,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::Location;
    use std::path::Path;

    #[test]
    fn locations_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = x\n";
        let at = |offset| Location::of(Path::new("p.toml"), text, offset).to_string();
        assert_eq!(at(0), "p.toml:1:1");
        assert_eq!(at(6), "p.toml:2:1");
        assert_eq!(at(11), "p.toml:2:5");
        assert_eq!(at(text.find('x').unwrap()), "p.toml:2:6");
        assert_eq!(at(1000), "p.toml:3:1", "past the end: the end");
    }
}
