//! Output paths, checked before any work: each writable, none the same file as an input or
//! another output. Results are only worth gathering if they can be saved.

use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// What a command reads and where it writes, checked together before any work: every output
/// writable, and none of them another output or an input, whatever names link them. The one
/// check every command's plan makes of its outputs.
#[derive(Default)]
pub struct Files {
    /// Files the command reads: (what, path).
    inputs: Vec<(String, PathBuf)>,
    /// Directories whose every file the command may read (merge's shard directories).
    trees: Vec<PathBuf>,
    /// Files the command writes: (flag, path).
    outputs: Vec<(String, PathBuf)>,
}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }

    /// A file the command reads.
    pub fn input(&mut self, what: &str, path: &Path) -> &mut Files {
        self.inputs.push((what.to_string(), path.to_path_buf()));
        self
    }

    /// Files the command reads, (what, path).
    pub fn inputs<'a>(
        &mut self,
        files: impl IntoIterator<Item = &'a (&'static str, PathBuf)>,
    ) -> &mut Files {
        for (what, path) in files {
            self.input(what, path);
        }
        self
    }

    /// A directory whose files, at any depth and through any links, the command reads.
    pub fn tree(&mut self, dir: &Path) -> &mut Files {
        self.trees.push(dir.to_path_buf());
        self
    }

    /// A file the command writes, named by `flag`.
    pub fn output(&mut self, flag: &str, path: &Path) -> &mut Files {
        self.outputs.push((flag.to_string(), path.to_path_buf()));
        self
    }

    /// Fails when an output cannot be written, or is an input or another output.
    pub fn check(&self) -> Result<()> {
        for (flag, path) in &self.outputs {
            writable(path, flag)?;
        }
        let outputs: Vec<Identity> = self.outputs.iter().map(|(_, p)| identity(p)).collect();
        for (i, (flag_b, b)) in self.outputs.iter().enumerate() {
            for (what, a) in &self.inputs {
                if identity(a) == outputs[i] {
                    bail!(
                        "{}: {what} and {flag_b} name the same file; give {flag_b} another path",
                        b.display()
                    );
                }
            }
            for (j, (flag_a, _)) in self.outputs.iter().enumerate().take(i) {
                if outputs[j] == outputs[i] {
                    bail!(
                        "{}: {flag_a} and {flag_b} name the same file; give {flag_b} another path",
                        b.display()
                    );
                }
            }
        }
        if self.outputs.is_empty() || self.trees.is_empty() {
            return Ok(());
        }
        // Walked as the command's reader walks them; what cannot be read here, the command
        // reports when it reads.
        let files = self
            .trees
            .iter()
            .filter_map(|d| wgstress_model::read::files_under(d).ok());
        for file in files.flatten() {
            let id = identity(&file);
            if let Some(i) = outputs.iter().position(|o| *o == id) {
                let (flag, path) = &self.outputs[i];
                bail!(
                    "{}: {flag} names {}, a file the command reads; give {flag} another path",
                    path.display(),
                    file.display()
                );
            }
        }
        Ok(())
    }
}

/// Checks that `path` can be written: a file can be created there, or the existing one
/// opened for writing. `Files::check` makes this check of every output; alone it is for the
/// files a command edits in place (`fences --fix`), which are inputs by design. An existing file is left as it was; a file this creates is removed.
/// A FIFO or socket is not opened (its reader would see the end of the stream): it is
/// checked writable by its permissions, and opened without blocking when written.
pub fn writable(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{}: {flag} names a directory", path.display());
    }
    if wgstress_model::open::is_stream(path) {
        return match access_writable(path) {
            true => Ok(()),
            false => bail!("{}: cannot write {flag}: permission denied", path.display()),
        };
    }
    let existed = path.exists();
    wgstress_model::open::writer(path, true)
        .map_err(|e| anyhow!("{}: cannot write {flag}: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Checks that files can be written into `dir`, a directory the command makes if it is
/// missing and fills with new files (`record` and `import`'s `--out`): the directory made and
/// a file created in it, as `writable` checks a file, then both removed again, so that a
/// command refused later leaves nothing behind. Whether `dir` may hold files already is the
/// command's to check.
pub fn writable_dir(dir: &Path, flag: &str) -> Result<()> {
    let cannot = |e: std::io::Error| anyhow!("{}: cannot write {flag}: {e}", dir.display());
    // Deepest first, as they are removed.
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
        .collect();
    let probed = std::fs::create_dir_all(dir).map_err(cannot).and_then(|()| {
        let probe = dir.join(".wgstress-probe");
        let existed = std::fs::symlink_metadata(&probe).is_ok();
        wgstress_model::open::writer(&probe, true).map_err(cannot)?;
        if !existed {
            let _ = std::fs::remove_file(&probe);
        }
        Ok(())
    });
    for made in missing {
        let _ = std::fs::remove_dir(made);
    }
    probed
}

#[cfg(unix)]
fn access_writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path this function owns.
    unsafe { libc::access(name.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(unix))]
fn access_writable(_: &Path) -> bool {
    true
}

/// Which file `path` is. An existing file is its device and inode, so that a hard link or a
/// symbolic link to an input is that input whatever its name; a path that does not exist yet
/// is its canonical directory (through any links) joined with the file name.
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
    fn an_output_directory_is_checked_by_making_it_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("new/spec");
        writable_dir(&fresh, "--out").unwrap();
        assert!(
            !dir.path().join("new").exists(),
            "the check leaves no directory behind"
        );
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        writable_dir(&empty, "--out").unwrap();
        assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "kept").unwrap();
        let error = writable_dir(&file.join("spec"), "--out")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("notes.txt/spec: cannot write --out: "),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    }

    #[test]
    fn the_same_file_by_two_names_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.wgsl");
        std::fs::write(&a, "").unwrap();
        let b = dir.path().join(".").join("a.wgsl");
        assert!(Files::new()
            .input("SHADER", &a)
            .output("-o", &b)
            .check()
            .is_err());
        let c = dir.path().join("c.wgsl");
        assert!(Files::new()
            .input("SHADER", &a)
            .output("-o", &c)
            .check()
            .is_ok());
        assert!(Files::new()
            .output("-o", &c)
            .output("--log", &c)
            .check()
            .is_err());
    }

    #[test]
    fn a_hard_link_to_an_input_is_that_input() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.wgsl");
        std::fs::write(&a, "source").unwrap();
        let link = dir.path().join("link.wgsl");
        std::fs::hard_link(&a, &link).unwrap();
        let error = Files::new()
            .input("SHADER", &a)
            .output("-o", &link)
            .check()
            .unwrap_err()
            .to_string();
        assert!(error.contains("name the same file"), "{error}");
        let copy = dir.path().join("copy.wgsl");
        std::fs::write(&copy, "source").unwrap();
        assert!(Files::new()
            .input("SHADER", &a)
            .output("-o", &copy)
            .check()
            .is_ok());
    }

    #[test]
    fn a_file_read_through_a_linked_directory_is_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere/deep");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let log = elsewhere.join("shard.jsonl");
        std::fs::write(&log, "{}\n").unwrap();
        let via = dir.path().join("via");
        std::fs::create_dir(&via).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), via.join("link")).unwrap();
        // Two links back up: the walk ends.
        std::os::unix::fs::symlink(".", via.join("here")).unwrap();
        std::os::unix::fs::symlink("..", via.join("up")).unwrap();
        let error = Files::new()
            .tree(&via)
            .output("--html", &log)
            .check()
            .unwrap_err()
            .to_string();
        assert!(error.contains("a file the command reads"), "{error}");
        let fresh = dir.path().join("report.html");
        assert!(Files::new()
            .tree(&via)
            .output("--html", &fresh)
            .check()
            .is_ok());
    }

    #[test]
    fn a_fifo_output_is_checked_without_opening_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // Opening it would wait for a reader, or refuse one that is missing.
        assert!(Files::new().output("-o", &fifo).check().is_ok());
    }
}
