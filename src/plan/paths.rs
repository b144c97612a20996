//! Output paths, checked before any work: each writable, none the same file as an input or
//! another output. Results are only worth gathering if they can be saved.

use anyhow::{anyhow, bail, Result};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// Checks that `path` can be written: a file can be created there, or the existing one
/// opened for writing. An existing file is left as it was; a file this creates is removed.
pub fn writable(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{}: {flag} names a directory", path.display());
    }
    let existed = path.exists();
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| anyhow!("{}: cannot write {flag}: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Which file `path` is. An existing file is its device and inode, so that a hard link or a
/// symbolic link to an input is that input whatever its name; a path that does not exist yet
/// is its canonical directory joined with the file name.
#[derive(PartialEq)]
enum Identity {
    File { device: u64, inode: u64 },
    Path(PathBuf),
}

fn identity(path: &Path) -> Identity {
    use std::os::unix::fs::MetadataExt;
    if let Ok(meta) = std::fs::metadata(path) {
        return Identity::File {
            device: meta.dev(),
            inode: meta.ino(),
        };
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Identity::Path(match (dir.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    })
}

/// Fails when two of `paths` (flag, path) are the same file.
pub fn distinct(paths: &[(&str, &Path)]) -> Result<()> {
    let ids: Vec<Identity> = paths.iter().map(|(_, p)| identity(p)).collect();
    for (i, (flag_a, _)) in paths.iter().enumerate() {
        for (j, (flag_b, b)) in paths.iter().enumerate().skip(i + 1) {
            if ids[i] == ids[j] {
                bail!(
                    "{}: {flag_a} and {flag_b} name the same file; give {flag_b} another path",
                    b.display()
                );
            }
        }
    }
    Ok(())
}

/// Fails when the output `path` of `flag` is one of the files under the directories `dirs`
/// that the command reads (merge's logs: every file there, whatever its name).
pub fn outside(flag: &str, path: &Path, dirs: &[PathBuf]) -> Result<()> {
    let output = identity(path);
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.path();
            // Not followed: a link to a directory could lead in a circle.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(file);
            } else if identity(&file) == output {
                bail!(
                    "{}: {flag} names {}, a file the command reads; give {flag} another path",
                    path.display(),
                    file.display()
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_is_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing/x.svg");
        let error = writable(&missing, "--svg").unwrap_err().to_string();
        assert!(error.contains("cannot write --svg"), "{error}");
        let fresh = dir.path().join("x.svg");
        writable(&fresh, "--svg").unwrap();
        assert!(!fresh.exists(), "the check leaves no file behind");
        std::fs::write(&fresh, "kept").unwrap();
        writable(&fresh, "--svg").unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "kept");
    }

    #[test]
    fn the_same_file_by_two_names_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.wgsl");
        std::fs::write(&a, "").unwrap();
        let b = dir.path().join(".").join("a.wgsl");
        assert!(distinct(&[("SHADER", &a), ("-o", &b)]).is_err());
        let c = dir.path().join("c.wgsl");
        assert!(distinct(&[("SHADER", &a), ("-o", &c)]).is_ok());
    }

    #[test]
    fn a_hard_link_to_an_input_is_that_input() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.wgsl");
        std::fs::write(&a, "source").unwrap();
        let link = dir.path().join("link.wgsl");
        std::fs::hard_link(&a, &link).unwrap();
        let error = distinct(&[("SHADER", &a), ("-o", &link)])
            .unwrap_err()
            .to_string();
        assert!(error.contains("name the same file"), "{error}");
        let copy = dir.path().join("copy.wgsl");
        std::fs::write(&copy, "source").unwrap();
        assert!(distinct(&[("SHADER", &a), ("-o", &copy)]).is_ok());
    }
}
