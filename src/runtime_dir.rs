//! The XDG runtime directory the system libraries under wgpu expect. When the Vulkan loader
//! opens Mesa's drivers, Mesa's window-system code asks libwayland for a display, and
//! libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on
//! stderr when the variable is missing or not an absolute path: twice per device command, in
//! a form that reads as wgstress's own error and that `--quiet` could not hide. wgstress
//! draws nothing on screen, so any private directory satisfies it.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The variable libwayland reads.
const VARIABLE: &str = "XDG_RUNTIME_DIR";

/// Sets XDG_RUNTIME_DIR for this process to a private directory when it is missing or not an
/// absolute path, as libwayland requires. Called first thing in `main`, before any thread
/// exists (setting a variable races with threads that read the environment).
pub fn ensure() {
    let set = std::env::var_os(VARIABLE).is_some_and(|dir| Path::new(&dir).is_absolute());
    if set {
        return;
    }
    if let Some(dir) = private_dir() {
        std::env::set_var(VARIABLE, dir);
    }
}

/// `wgstress-runtime-UID` in the temporary directory, made for this user alone (mode 0700)
/// or reused when it already is; else one for this process. None when neither can be made:
/// the libraries' message is then the only harm.
fn private_dir() -> Option<PathBuf> {
    // /proc/self belongs to the process's user.
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let base = std::env::temp_dir();
    let shared = base.join(format!("wgstress-runtime-{uid}"));
    let own = base.join(format!("wgstress-runtime-{uid}-{}", std::process::id()));
    [shared, own].into_iter().find(|dir| usable(dir, uid))
}

/// Whether `dir` is, or now is, a directory of `uid`'s that no one else can enter.
fn usable(dir: &Path, uid: u32) -> bool {
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    // Not followed: a link someone else planted is not this user's directory.
    std::fs::symlink_metadata(dir).is_ok_and(|meta| {
        meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_others_can_enter_is_not_used() {
        let uid = std::fs::metadata("/proc/self").unwrap().uid();
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("fresh");
        assert!(usable(&fresh, uid));
        assert_eq!(
            std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(!usable(&open, uid));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fresh, &link).unwrap();
        assert!(!usable(&link, uid));
    }
}
