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

/// Where `path` points, for comparing paths that may not exist yet: the canonical path of
/// an existing file, else the canonical directory joined with the file name.
fn identity(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (dir.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// Fails when two of `paths` (flag, path) are the same file.
pub fn distinct(paths: &[(&str, &Path)]) -> Result<()> {
    for (i, (flag_a, a)) in paths.iter().enumerate() {
        for (flag_b, b) in &paths[i + 1..] {
            if identity(a) == identity(b) {
                bail!(
                    "{}: {flag_a} and {flag_b} name the same file; give {flag_b} another path",
                    b.display()
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
}
