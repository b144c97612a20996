//! Bounded file reads. Every file wgstress reads is read up to what it may hold and no
//! further: `/dev/zero` as a spec's `init` file once grew memory without bound (5.8 GB in
//! 12 s) because the size check ran after the whole file was read. Only regular files are
//! read: a device never ends, and opening a FIFO waits for a writer that may never come.

use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The most a WGSL shader or an app spec may hold: far past any real application (a 50 MB
/// shader of small functions is the heaviest the tests load), far below memory.
pub const SOURCE_BYTES: u64 = 256 << 20;

/// The most a device profile may hold: its patch-finding grid at 4,096 distances x 1,024
/// locations of the three tests, pretty-printed.
pub const PROFILE_BYTES: u64 = 256 << 20;

/// The most an environment file (`mutants --search`) may hold: one environment and a death
/// rate per mutant, a few kilobytes in practice.
pub const ENV_BYTES: u64 = 1 << 20;

/// Whether the file at `path` may be read: a regular file of at most `limit` bytes, its size
/// as the file system gives it (without reading). `holds` says what bounds it, for the
/// message ("a binding of 4 words holds").
pub fn check(path: &Path, limit: u64, holds: &str) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::Input(format!(
            "{}: a directory, not a file",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(Error::Input(format!(
            "{}: not a regular file (a device, a FIFO or a socket): give a file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(too_big(path, meta.len(), limit, holds));
    }
    Ok(meta.len())
}

fn too_big(path: &Path, size: u64, limit: u64, holds: &str) -> Error {
    Error::Input(format!(
        "{}: {size} bytes, more than {holds} ({limit} bytes)",
        path.display()
    ))
}

/// The bytes of the regular file at `path`, refused past `limit` bytes.
pub fn bytes(path: &Path, limit: u64, holds: &str) -> Result<Vec<u8>> {
    let size = check(path, limit, holds)?;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // The file may have grown since: one byte past the limit tells.
    let mut out = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(path, e))?;
    if out.len() as u64 > limit {
        return Err(too_big(path, out.len() as u64, limit, holds));
    }
    Ok(out)
}

/// The text of the regular file at `path` (UTF-8), refused past `limit` bytes.
pub fn text(path: &Path, limit: u64, holds: &str) -> Result<String> {
    String::from_utf8(bytes(path, limit, holds)?).map_err(|_| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ),
        )
    })
}

/// A WGSL shader or an app spec.
pub fn source(path: &Path) -> Result<String> {
    text(path, SOURCE_BYTES, "a shader or spec may hold")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_past_its_bound_is_refused_and_one_within_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words.bin");
        std::fs::write(&path, [1u8, 2, 3, 4, 5]).unwrap();
        assert_eq!(bytes(&path, 5, "five bytes").unwrap(), [1, 2, 3, 4, 5]);
        let error = bytes(&path, 4, "a binding of 1 words holds")
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("words.bin: 5 bytes, more than a binding of 1 words holds (4 bytes)"),
            "{error}"
        );
    }

    #[test]
    fn devices_and_directories_are_refused_without_reading() {
        let error = bytes(Path::new("/dev/zero"), 4, "x")
            .unwrap_err()
            .to_string();
        assert!(error.contains("/dev/zero: not a regular file"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let error = bytes(dir.path(), 4, "x").unwrap_err().to_string();
        assert!(error.contains("a directory, not a file"), "{error}");
    }

    #[test]
    fn text_must_be_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.wgsl");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let error = source(&path).unwrap_err().to_string();
        assert!(error.contains("valid UTF-8"), "{error}");
    }
}
