//! Initial contents of application buffers.

use crate::error::{Error, Result};
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
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
}

impl Init {
    pub(crate) fn resolve_paths(&mut self, dir: &Path) {
        if let Init::File { path } = self {
            *path = dir.join(&*path);
        }
    }

    /// The first `words` words of these contents.
    pub fn words(&self, words: u32) -> Result<Vec<u32>> {
        let n = words as usize;
        Ok(match self {
            Init::Zeros => vec![0; n],
            Init::Iota { start } => (0..words).map(|i| start.wrapping_add(i)).collect(),
            Init::Constant { value } => vec![*value; n],
            Init::Random { seed, below } => {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(*seed);
                (0..n)
                    .map(|_| match below {
                        Some(b) if *b > 0 => rng.random_range(0..*b),
                        _ => rng.random(),
                    })
                    .collect()
            }
            Init::Words { words: given } => {
                if given.len() > n {
                    return Err(Error::Input(format!(
                        "{} initial words do not fit a binding of {words} words",
                        given.len()
                    )));
                }
                let mut out = given.clone();
                out.resize(n, 0);
                out
            }
            Init::File { path } => {
                let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
                if bytes.len() > n * 4 {
                    return Err(Error::Input(format!(
                        "{}: {} bytes do not fit a binding of {words} words",
                        path.display(),
                        bytes.len()
                    )));
                }
                let mut out = vec![0; n];
                for (word, chunk) in out.iter_mut().zip(bytes.chunks(4)) {
                    let mut b = [0u8; 4];
                    b[..chunk.len()].copy_from_slice(chunk);
                    *word = u32::from_le_bytes(b);
                }
                out
            }
        })
    }
}
