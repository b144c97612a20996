//! SIGINT (Ctrl-C) and SIGTERM (`kill`, a scheduler's time limit) stop every command the same
//! way: the first stops it after the work in flight, so that its summary covers what
//! finished, and goes on to a campaign's running items; the second quits at once. The exit
//! status says which signal it was: 130 (128 + SIGINT) or 143 (128 + SIGTERM), as a shell
//! reports a process the signal killed. The handler is installed as the process starts
//! (`install`), so that a command that ignored the signals it inherited (a shell's background
//! job) still takes them; until the command says that it stops at its flag (`stop_flag`),
//! the first signal quits at once, as for `merge`, `instrument` and the listings, which have
//! nothing in flight to finish; so it does while a command's start-up work, which gathers
//! nothing and cannot stop part way, runs (`start_up`).
//!
//! SIGHUP is what a campaign's item gets from the kernel when the campaign dies without
//! passing a signal on (SIGKILL): it stops the item the same way (exit 129), and since the
//! kernel may send it once per thread of the dying campaign, a repeated SIGHUP quits nothing.
//!
//! The handler only writes the signal's number to a pipe (all a signal handler may safely
//! do); a thread of its own reads it and does the rest.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use wgstress_campaign::children::Children;

/// A signal that stops a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: `kill`, or Slurm and Kubernetes at a job's time limit.
    Terminate,
    /// SIGHUP: the campaign that runs this item died.
    Hangup,
}

impl Signal {
    fn of(number: i32) -> Option<Signal> {
        match number {
            libc::SIGINT => Some(Signal::Interrupt),
            libc::SIGTERM => Some(Signal::Terminate),
            libc::SIGHUP => Some(Signal::Hangup),
            _ => None,
        }
    }

    fn number(self) -> i32 {
        match self {
            Signal::Interrupt => libc::SIGINT,
            Signal::Terminate => libc::SIGTERM,
            Signal::Hangup => libc::SIGHUP,
        }
    }

    /// 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
    pub fn exit_status(self) -> u8 {
        128 + self.number() as u8
    }
}

/// What the signal thread shares with the command.
pub struct Handler {
    /// Up at the first signal: the run loops stop after the work in flight.
    stop: Arc<AtomicBool>,
    /// The first signal's number, 0 before it.
    first: AtomicI32,
    /// Whether the command watches `stop`; until then the first signal quits at once.
    watched: AtomicBool,
    /// A campaign's running items, which every signal reaches too.
    children: Mutex<Vec<Arc<Children>>>,
    notes: AtomicBool,
}

static HANDLER: OnceLock<Handler> = OnceLock::new();
/// The pipe's writing end, for the signal handler.
static PIPE: AtomicI32 = AtomicI32::new(-1);

/// The flag the command's loops watch, set by the first SIGINT or SIGTERM, which from now on
/// stops the command rather than quit it (`notes`: whether that is said on stderr).
pub fn stop_flag(notes: bool) -> Arc<AtomicBool> {
    let handler = install();
    handler.notes.store(notes, Ordering::SeqCst);
    handler.watched.store(true, Ordering::SeqCst);
    handler.stop.clone()
}

/// Start-up work that gathers nothing and cannot stop part way (the shaders instrumented,
/// naga's and the driver's compiles: minutes for a large shader): while the returned guard
/// lives, the first signal quits at once, as before `stop_flag`, since a summary would hold
/// nothing yet. Once it is dropped, the first signal stops the command at its flag again.
pub fn start_up() -> StartUp {
    let handler = install();
    StartUp(handler.watched.swap(false, Ordering::SeqCst))
}

/// Start-up under way; holds whether the command watched its flag before.
pub struct StartUp(bool);

impl Drop for StartUp {
    fn drop(&mut self) {
        if let Some(handler) = HANDLER.get() {
            handler.watched.store(self.0, Ordering::SeqCst);
        }
    }
}

/// Makes every signal reach `children` too (a campaign's items, each in a process group of
/// its own, so that a terminal's Ctrl-C reaches them only this way, once); `serve` gives one
/// set of items per page.
pub fn forward_to(children: Arc<Children>) {
    let handler = install();
    handler
        .children
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(children);
}

/// Undoes `forward_to(children)`: items whose run is over are no longer signalled.
#[cfg(unix)]
pub fn stop_forwarding_to(children: &Arc<Children>) {
    let handler = install();
    handler
        .children
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|c| !Arc::ptr_eq(c, children));
}

/// What must not outlive the process when a signal quits it at once (`_exit` runs no
/// destructor): a command's child process groups, its temporary directories. Each runs once,
/// on the signal thread, before the process ends.
type Cleanup = Box<dyn Fn() + Send>;
static AT_QUIT: Mutex<Vec<(u64, Cleanup)>> = Mutex::new(Vec::new());
static NEXT_CLEANUP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A cleanup that runs if a signal quits the process, until this is dropped (when what it
/// cleans up was cleaned up the ordinary way).
pub struct AtQuit(u64);

/// Runs `cleanup` if a signal quits the process while the returned guard lives.
pub fn at_quit(cleanup: impl Fn() + Send + 'static) -> AtQuit {
    install();
    let key = NEXT_CLEANUP.fetch_add(1, Ordering::SeqCst);
    AT_QUIT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, Box::new(cleanup)));
    AtQuit(key)
}

impl Drop for AtQuit {
    fn drop(&mut self) {
        AT_QUIT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(key, _)| *key != self.0);
    }
}

/// Runs every registered cleanup, newest first (a child before the directory it writes in).
fn clean_up() {
    let cleanups = std::mem::take(&mut *AT_QUIT.lock().unwrap_or_else(|e| e.into_inner()));
    for (_, cleanup) in cleanups.iter().rev() {
        cleanup();
    }
}

/// Waits for the end, when a signal is quitting the process: the signal thread is tearing
/// the command's children down (`at_quit`) and ends the process next, with the signal's
/// status. What the command saw meanwhile (its child killed, Chromium's connection closed)
/// came of the teardown, and is not the command's to report.
pub fn hold_if_quitting() {
    let Some(handler) = HANDLER.get() else {
        return;
    };
    if handler.first.load(Ordering::SeqCst) != 0 && !handler.watched.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// The signal that stopped the command, if one did.
pub fn received() -> Option<Signal> {
    HANDLER
        .get()
        .and_then(|h| Signal::of(h.first.load(Ordering::SeqCst)))
}

/// Takes SIGINT and SIGTERM from now on (once; later calls return the same handler).
pub fn install() -> &'static Handler {
    HANDLER.get_or_init(|| {
        let handler = Handler {
            stop: Arc::new(AtomicBool::new(false)),
            first: AtomicI32::new(0),
            watched: AtomicBool::new(false),
            children: Mutex::new(Vec::new()),
            notes: AtomicBool::new(false),
        };
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } == 0 {
            PIPE.store(fds[1], Ordering::SeqCst);
            let read = fds[0];
            std::thread::spawn(move || listen(read));
            for signal in [Signal::Interrupt, Signal::Terminate, Signal::Hangup] {
                // SAFETY: a zeroed sigaction with its handler set is a valid argument; the
                // handler only calls write(2), which is async-signal-safe.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal.number(), &action, std::ptr::null_mut());
                }
            }
        }
        handler
    })
}

extern "C" fn on_signal(number: libc::c_int) {
    let byte = number as u8;
    // SAFETY: writes one byte from a live local to the pipe's writing end.
    unsafe {
        libc::write(PIPE.load(Ordering::Relaxed), (&byte as *const u8).cast(), 1);
    }
}

/// The signal thread: the first signal stops the command, the second quits at once; each
/// goes on to a campaign's children.
fn listen(read: i32) {
    loop {
        let mut byte = 0u8;
        // SAFETY: reads one byte into a live local.
        let n = unsafe { libc::read(read, (&mut byte as *mut u8).cast(), 1) };
        if n != 1 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        let Some(signal) = Signal::of(i32::from(byte)) else {
            continue;
        };
        let Some(handler) = HANDLER.get() else {
            continue;
        };
        if signal == Signal::Hangup && handler.first.load(Ordering::SeqCst) != 0 {
            continue;
        }
        let children = handler
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for children in &children {
            children.signal(signal.number());
        }
        let first =
            handler
                .first
                .compare_exchange(0, signal.number(), Ordering::SeqCst, Ordering::SeqCst);
        if first.is_err() || !handler.watched.load(Ordering::SeqCst) {
            clean_up();
            // SAFETY: ends the process without running its exit handlers, which may wait for
            // the GPU (see status::exit_now); what was logged is flushed line by line.
            unsafe { libc::_exit(i32::from(signal.exit_status())) }
        }
        handler.stop.store(true, Ordering::SeqCst);
        if handler.notes.load(Ordering::SeqCst) {
            let name = match signal {
                Signal::Interrupt => "Ctrl-C",
                Signal::Terminate => "SIGTERM",
                Signal::Hangup => "SIGHUP (the campaign ended)",
            };
            eprintln!(
                "\nwgstress: {name}: stopping after the work in flight (another Ctrl-C or SIGTERM quits now)"
            );
        }
    }
}
