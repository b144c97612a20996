//! Bounded file reads. Every file wgstress reads goes through `open` and is read up to what
//! it may hold and no further: `/dev/zero` as a spec's `init` file once grew memory without
//! bound (5.8 GB in 12 s) because the size check ran after the whole file was read, and as a
//! campaign's plan or baseline it reached 23 GB. Only regular files are read: a device never
//! ends, and opening a FIFO waits for a writer that may never come, past any Ctrl-C.

use crate::error::{FileError, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most a WGSL shader or an app spec may hold: far past any real application (a 50 MB
/// shader of small functions is the heaviest the tests load), far below memory.
pub const SOURCE_BYTES: u64 = 256 << 20;

/// The most a device profile may hold: its patch-finding grid at 4,096 distances x 1,024
/// locations of the three tests, pretty-printed.
pub const PROFILE_BYTES: u64 = 256 << 20;

/// The most an environment file (`mutants --search`) may hold: one environment and a death
/// rate per mutant, a few kilobytes in practice.
pub const ENV_BYTES: u64 = 1 << 20;

/// The most a campaign plan or a baseline may hold: a plan of 20,000 items is about 2 MB.
pub const PLAN_BYTES: u64 = 16 << 20;

/// The most a command's JSON-lines log may hold for `merge` to read it: a line per batch,
/// about a kilobyte, four a second for a day and more.
pub const LOG_BYTES: u64 = 512 << 20;

/// Whether the file at `path` may be read: a regular file of at most `limit` bytes, its size
/// as the file system gives it (without reading). `holds` says what bounds it, for the
/// message ("a binding of 4 words holds").
pub(crate) fn check(path: &Path, limit: u64, holds: &str) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| FileError::io(path, e))?;
    if meta.is_dir() {
        return Err(FileError::Input(format!(
            "{}: a directory, not a file",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(FileError::Input(format!(
            "{}: not a regular file (a device, a FIFO or a socket): give a file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(too_big(path, meta.len(), limit, holds));
    }
    Ok(meta.len())
}

fn too_big(path: &Path, size: u64, limit: u64, holds: &str) -> FileError {
    FileError::Input(format!(
        "{}: {size} bytes, more than {holds} ({limit} bytes)",
        path.display()
    ))
}

/// The regular file at `path`, opened for reading, and its size; refused past `limit` bytes.
/// The type is checked before opening, so a FIFO is never opened, and again on the open file,
/// which is opened without blocking, in case the path was swapped in between.
pub(crate) fn open(path: &Path, limit: u64, holds: &str) -> Result<(File, u64)> {
    check(path, limit, holds)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    if !meta.is_file() {
        return Err(FileError::Input(format!(
            "{}: not a regular file (a device, a FIFO or a socket): give a file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(too_big(path, meta.len(), limit, holds));
    }
    Ok((file, meta.len()))
}

/// The bytes of the regular file at `path`, refused past `limit` bytes.
pub fn bytes(path: &Path, limit: u64, holds: &str) -> Result<Vec<u8>> {
    let (file, size) = open(path, limit, holds)?;
    // The file may have grown since, or be one whose size the file system does not know
    // (/proc): one byte past the limit tells.
    let mut out = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| FileError::io(path, e))?;
    if out.len() as u64 > limit {
        return Err(too_big(path, out.len() as u64, limit, holds));
    }
    Ok(out)
}

/// The last `most` bytes of the regular file at `path`, whatever its size (a command's
/// stderr, of which only the last lines matter).
pub fn tail(path: &Path, most: u64) -> Result<Vec<u8>> {
    let (mut file, size) = open(path, u64::MAX, "any file holds")?;
    file.seek(SeekFrom::Start(size.saturating_sub(most)))
        .map_err(|e| FileError::io(path, e))?;
    let mut out = Vec::new();
    file.take(most)
        .read_to_end(&mut out)
        .map_err(|e| FileError::io(path, e))?;
    Ok(out)
}

/// The text of the regular file at `path` (UTF-8), refused past `limit` bytes. A byte order
/// mark, which some editors write, is dropped: it is no part of the text, and columns on the
/// first line are then counted as an editor shows them.
pub fn text(path: &Path, limit: u64, holds: &str) -> Result<String> {
    let mut bytes = bytes(path, limit, holds)?;
    if bytes.starts_with("\u{feff}".as_bytes()) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|_| {
        FileError::io(
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

/// Every file under `dir`, at any depth, through links: a link to a directory is followed,
/// and each directory is visited once (by device and inode), so that a link back to a
/// directory above (`ln -s . again`) ends the walk instead of looping without end. An
/// unreadable directory is an error naming it.
pub fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    use std::collections::HashSet;
    use std::os::unix::fs::MetadataExt;
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let meta = std::fs::metadata(&dir).map_err(|e| FileError::io(&dir, e))?;
        if !seen.insert((meta.dev(), meta.ino())) {
            continue;
        }
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| FileError::io(&dir, e))? {
            entries.push(entry.map_err(|e| FileError::io(&dir, e))?.path());
        }
        entries.sort();
        // Popped in name order.
        for path in entries.into_iter().rev() {
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    Ok(files)
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
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("plan.toml");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = bytes(&fifo, 4, "x").unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        let error = tail(&fifo, 4).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }

    #[test]
    fn a_walk_through_links_back_up_ends() {
        let dir = tempfile::tempdir().unwrap();
        let shard = dir.path().join("shard");
        std::fs::create_dir(&shard).unwrap();
        std::fs::write(shard.join("log"), "").unwrap();
        std::os::unix::fs::symlink(".", shard.join("a")).unwrap();
        std::os::unix::fs::symlink(".", shard.join("b")).unwrap();
        std::os::unix::fs::symlink(dir.path(), shard.join("up")).unwrap();
        let files = files_under(dir.path()).unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(files[0].ends_with("log"));
    }

    #[test]
    fn tail_reads_the_end_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stderr");
        std::fs::write(&path, b"first\nlast\n").unwrap();
        assert_eq!(tail(&path, 5).unwrap(), b"last\n");
        assert_eq!(tail(&path, 100).unwrap(), b"first\nlast\n");
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.wgsl");
        std::fs::write(&path, "\u{feff}fn f() {}\n").unwrap();
        assert_eq!(source(&path).unwrap(), "fn f() {}\n");
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
