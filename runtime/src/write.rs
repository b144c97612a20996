//! Whole-file writes. Every file wgstress writes whole goes through `replace`: the contents go
//! to a new file beside the old one, which is then renamed over it. A reader never sees half a
//! file, a killed write leaves the old file as it was, and another name of the old file (a hard
//! link) keeps what it held: `-o` naming a hard link to the user's shader must not change the
//! shader.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `contents` as the file at `path`, replacing any file there. A symbolic link is
/// followed, so the file it names is the one replaced; an existing file's permissions carry
/// over to the new one. A device or a pipe there (`/dev/null`, `/dev/stdout`, a FIFO) is
/// written to, not replaced: run as root, a file renamed over `/dev/full` took the device's
/// place, and every later write to it succeeded.
pub fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let target = resolved(path);
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return wgstress_model::open::writer(&target, false)?.write_all(contents);
    }
    let staged = staging_name(&target);
    let result = stage(&target, &staged, contents).and_then(|()| std::fs::rename(&staged, &target));
    if result.is_err() {
        let _ = std::fs::remove_file(&staged);
    }
    result
}

/// The file `path` names, through any symbolic links; `path` itself when nothing is there.
fn resolved(path: &Path) -> PathBuf {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        if let Ok(real) = path.canonicalize() {
            return real;
        }
    }
    path.to_path_buf()
}

/// A name in `target`'s directory that no other wgstress process writes at once.
fn staging_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.wgstress-{}", std::process::id()))
}

fn stage(target: &Path, staged: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(staged)?;
    file.write_all(contents)?;
    if let Ok(meta) = std::fs::metadata(target) {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_keeps_what_the_file_held() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("shader.wgsl");
        let link = dir.path().join("link.wgsl");
        std::fs::write(&source, "source").unwrap();
        std::fs::hard_link(&source, &link).unwrap();
        replace(&link, b"instrumented").unwrap();
        assert_eq!(std::fs::read_to_string(&source).unwrap(), "source");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "instrumented");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "no staging file is left behind");
    }

    #[test]
    fn a_symbolic_link_stays_a_link_to_the_new_contents() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.wgsl");
        let link = dir.path().join("link.wgsl");
        std::fs::write(&file, "old").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        replace(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
    }

    #[test]
    fn a_device_is_written_to_and_stays_a_device() {
        use std::os::unix::fs::FileTypeExt;
        let is_device = |path: &str| {
            std::fs::metadata(path)
                .unwrap()
                .file_type()
                .is_char_device()
        };
        if !is_device("/dev/full") || !is_device("/dev/null") {
            return; // a machine without them: nothing to check
        }
        let full = replace(Path::new("/dev/full"), b"x").unwrap_err();
        assert_eq!(full.kind(), std::io::ErrorKind::StorageFull, "{full}");
        assert!(is_device("/dev/full"));
        replace(Path::new("/dev/null"), b"x").unwrap();
        assert!(is_device("/dev/null"));
    }

    #[test]
    fn a_missing_directory_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let error = replace(&dir.path().join("missing/out.wgsl"), b"x");
        assert!(error.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
