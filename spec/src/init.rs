//! Initial contents of application buffers.

mod typed;

pub use typed::{ElementType, Fill, List, Range};

use crate::error::{Result, SpecError};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Written `init = { kind = "NAME", ... }`, read as `init = { NAME = { ... } }`
/// (`app::tagged`), so that an error in any key points at it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Init {
    #[default]
    Zeros,
    /// start, start + 1, ...
    Iota {
        #[serde(default)]
        start: u32,
    },
    Constant {
        value: u32,
    },
    /// Seeded pseudo-random words below `below` (all 32 bits when absent).
    Random {
        seed: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        below: Option<u32>,
    },
    /// These words (Rust applications); missing words are zero.
    Words {
        words: Vec<u32>,
    },
    /// Little-endian words from a file; missing words are zero.
    File {
        path: PathBuf,
    },
    /// `values` of `type` (u32, i32, f32); missing values are zero.
    Values(List),
    /// One value of `type` in every element.
    Fill(Fill),
    /// `values` of `type`, repeated to fill the binding (the last repetition may be cut short).
    Repeat(List),
    /// `start`, `start + step`, ... of `type`.
    Range(Range),
}

impl Init {
    /// Whether these are the default contents, which a spec leaves out.
    pub fn is_zeros(&self) -> bool {
        *self == Init::Zeros
    }

    pub fn resolve_paths(&mut self, dir: &Path) {
        if let Init::File { path } = self {
            *path = dir.join(&*path);
        }
    }

    /// What is wrong with these contents for a binding of `words` words, if anything: a list
    /// longer than the binding, an empty pattern, a range that leaves its type. Files are read
    /// later, when the buffers are made.
    pub fn check(&self, words: u32) -> std::result::Result<(), String> {
        let fits = |len: usize, what: &str| {
            if len > words as usize {
                Err(format!(
                    "{len} {what} do not fit a binding of {words} words"
                ))
            } else {
                Ok(())
            }
        };
        match self {
            Init::Words { words } => fits(words.len(), "initial words"),
            Init::Values(list) => fits(list.words.len(), "initial values"),
            Init::Repeat(list) if list.words.is_empty() => {
                Err("a repeated pattern needs at least one value".into())
            }
            Init::Repeat(list) => fits(list.words.len(), "pattern values"),
            Init::Range(range) => range.check(words),
            Init::Random { below: Some(0), .. } => Err(
                "random words `below = 0` leave no value to draw: give 1 or more, or leave \
                 `below` out for all 32 bits"
                    .into(),
            ),
            Init::Zeros
            | Init::Iota { .. }
            | Init::Constant { .. }
            | Init::Random { .. }
            | Init::File { .. }
            | Init::Fill(_) => Ok(()),
        }
    }

    /// Whether a file's contents can be read into a binding of `words` words: a regular file
    /// that fits (a spec is checked before the device opens). It is read, within the bound:
    /// a file in /proc says it holds 0 bytes and gives more.
    pub fn check_file(&self, words: u32) -> Result<()> {
        if let Init::File { path } = self {
            wgstress_model::read::bytes(path, u64::from(words) * 4, &holds(words))?;
        }
        Ok(())
    }

    /// The first `words` words of these contents.
    pub fn words(&self, words: u32) -> Result<Vec<u32>> {
        self.check(words).map_err(SpecError::Input)?;
        let n = words as usize;
        Ok(match self {
            Init::Zeros => vec![0; n],
            Init::Iota { start } => (0..words).map(|i| start.wrapping_add(i)).collect(),
            Init::Constant { value } => vec![*value; n],
            Init::Fill(fill) => vec![fill.word; n],
            Init::Random { seed, below } => {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(*seed);
                (0..n)
                    .map(|_| match below {
                        Some(b) if *b > 0 => rng.random_range(0..*b),
                        _ => rng.random(),
                    })
                    .collect()
            }
            Init::Words { words: given } | Init::Values(List { words: given, .. }) => {
                let mut out = given.clone();
                out.resize(n, 0);
                out
            }
            Init::Repeat(list) => list.words.iter().copied().cycle().take(n).collect(),
            Init::Range(range) => range.words(words),
            Init::File { path } => file_words(path, words)?,
        })
    }
}

/// Contents as a binding's `init` writes them: `kind` beside the kind's keys.
pub(crate) fn tagged<S: serde::Serializer>(
    init: &Init,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    crate::tagged::serialize(serializer, &[], init)
}

fn holds(words: u32) -> String {
    format!("a binding of {words} words holds")
}

/// Little-endian words from `path`, zero past its end.
fn file_words(path: &Path, words: u32) -> Result<Vec<u32>> {
    let n = words as usize;
    let bytes = wgstress_model::read::bytes(path, u64::from(words) * 4, &holds(words))?;
    let mut out = vec![0; n];
    for (word, chunk) in out.iter_mut().zip(bytes.chunks(4)) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        *word = u32::from_le_bytes(b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
