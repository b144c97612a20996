//! Opening outputs. An output is opened without blocking: opening a FIFO for writing waits
//! for a reader, and one that never comes held a command past any Ctrl-C. A FIFO no process
//! reads is refused at once; one that has a reader is written as a file is.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for writing, created when missing: appended to with `append`, else written
/// from its start (never truncated: a device or FIFO is written to, not replaced).
pub fn writer(path: &Path, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true);
    if append {
        options.append(true);
    } else {
        options.write(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ENXIO) {
            return io::Error::other("a FIFO that no process reads");
        }
        e
    })?;
    #[cfg(unix)]
    {
        // Writes block again, as they do on a file, once it is open.
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

/// Whether `path` is a FIFO or a socket: an output the check must not open, as its reader
/// would see the end of the stream when the check closed it.
pub fn is_stream(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_without_a_reader_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(is_stream(&fifo));
        let error = writer(&fifo, true).unwrap_err().to_string();
        assert!(error.contains("no process reads"), "{error}");
        let file = dir.path().join("file");
        assert!(!is_stream(&file));
        std::fs::write(&file, "kept").unwrap();
        assert!(!is_stream(&file));
        drop(writer(&file, true).unwrap());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    }
}
