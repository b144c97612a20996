//! The process's one browser: the server of the page, a headless Chromium showing it, and
//! the page's WebSocket, started by the first `open` and kept for the process's life (a new
//! one only when the page has gone). Chromium runs in a process group of its own with its
//! profile in a directory of its own; both go when the process exits (`atexit`), when the
//! process dies by a signal no handler sees (the kernel kills Chromium, `PR_SET_PDEATHSIG`;
//! its profile is removed by the next process that starts a browser), or when a host whose
//! page went is replaced.

use crate::adapter::{self, Opened};
use crate::connection::{self, Connection, Failure, Role};
use crate::device::{self, BrowserDevice};
use crate::listen::{self, Arrival, PageFile};
use crate::token::token;
use serde_json::{json, Map};
use std::net::{IpAddr, SocketAddr};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, Once};
use std::time::{Duration, Instant};
use tungstenite::WebSocket;
use wgstress_chromium::{ChromiumError, DevTools, PageEvent};
use wgstress_device::{DeviceError, Gpu};

/// The page: an executor and nothing else.
const FILES: &[PageFile] = &[
    (
        "",
        include_str!("../page/index.html"),
        "text/html; charset=utf-8",
    ),
    (
        "executor.js",
        include_str!("../page/executor.js"),
        "text/javascript; charset=utf-8",
    ),
];

/// How long the page may take to connect back once loaded, and a device to open: Chromium's
/// start and its GPU process's are CPU-bound, many times slower on a machine whose cores are
/// all busy, and a slow start is not a failure.
const CONNECT: Duration = Duration::from_secs(120);

/// The beginning of a profile directory's name; the process id follows.
const PROFILE_PREFIX: &str = "wgstress-browser-";

struct Host {
    connection: Arc<Connection>,
    /// "Chromium" or "Chrome", from the executable's name.
    product: &'static str,
    /// What DevTools says the browser is ("HeadlessChrome/148.0.7778.167"): the user agent
    /// gives only the major version ("Chrome/148.0.0.0").
    version: String,
    http: SocketAddr,
    socket: SocketAddr,
    /// Kept open: the page is the DevTools session's target.
    _devtools: DevTools,
    /// Declared last: Chromium is killed once the rest is dropped.
    _chromium: Chromium,
}

static HOST: Mutex<Option<Arc<Host>>> = Mutex::new(None);

fn hosts() -> MutexGuard<'static, Option<Arc<Host>>> {
    // The slot is set or taken whole: a thread that panicked holding it left it whole.
    HOST.lock().unwrap_or_else(|e| e.into_inner())
}

/// A device in the process's browser page, opened with `features` (for `needed_by`, which
/// errors name), with every limit its adapter has. The first call starts the browser; a
/// later one makes another device in the same page, or starts a new browser where the page
/// has gone.
pub fn open(features: wgpu_types::Features, needed_by: &str) -> Result<Gpu, DeviceError> {
    let host = host()?;
    open_on(
        &host.connection,
        &|opened| host.browser(opened),
        features,
        needed_by,
    )
}

/// A device opened on the page at `connection`, in the browser `browser` names from the
/// page's answer ("Chromium 148.0.7778.167").
pub(crate) fn open_on(
    connection: &Arc<Connection>,
    browser: &dyn Fn(&Opened) -> String,
    features: wgpu_types::Features,
    needed_by: &str,
) -> Result<Gpu, DeviceError> {
    let names = adapter::webgpu_names(features).map_err(|name| {
        DeviceError::Open(format!(
            "{needed_by} needs the device feature {name}, which has no WebGPU name: a browser \
             cannot offer it"
        ))
    })?;
    let opened = opened(connection, &names)?;
    if let Some(feature) = opened.missing.first() {
        return Err(DeviceError::Open(format!(
            "{needed_by} needs the device feature {}, which {} does not offer",
            adapter::wgpu_name(feature),
            adapter::name(&opened.info)
        )));
    }
    let number = opened
        .device
        .ok_or_else(|| DeviceError::Open("the browser page opened no device".into()))?;
    let device = BrowserDevice::new(connection.clone(), number, features);
    Ok(Gpu::new(
        Arc::new(device),
        adapter::info(&opened, &browser(&opened)),
        adapter::limits(&opened.limits),
    ))
}

/// The page's answer to `open` with the WebGPU features `names`.
pub(crate) fn opened(connection: &Connection, names: &[&str]) -> Result<Opened, DeviceError> {
    let mut request = Map::new();
    request.insert("op".into(), "open".into());
    request.insert("features".into(), json!(names));
    let opened = connection
        .call(request, CONNECT)
        .map_err(|failure| match failure {
            Failure::TimedOut => DeviceError::Open(format!(
                "the browser page opened no device within {} s",
                CONNECT.as_secs()
            )),
            Failure::Closed(why) => DeviceError::Open(why),
            failure => device::error("open", failure),
        })?;
    serde_json::from_value(opened)
        .map_err(|e| DeviceError::Open(format!("the browser page's answer to open: {e}")))
}

/// Ends the process's browser, if it has one: its devices are lost from then on, and the
/// next `open` starts a new one.
pub fn close() {
    // Taken out of the slot first: Chromium is killed as the host is dropped, not under the
    // lock.
    let host = hosts().take();
    drop(host);
}

/// Where the page is served (HTTP) and where its WebSocket is taken (both on 127.0.0.1),
/// once a browser has been started: requests without the page's token are refused there.
pub fn addresses() -> Option<(SocketAddr, SocketAddr)> {
    hosts().as_ref().map(|host| (host.http, host.socket))
}

/// The running host, or a new one where there is none or its page has gone.
fn host() -> Result<Arc<Host>, DeviceError> {
    let mut slot = hosts();
    if let Some(host) = slot.as_ref() {
        if host.connection.closed().is_none() {
            return Ok(host.clone());
        }
    }
    // The old browser goes before a new one starts.
    *slot = None;
    let host = Arc::new(Host::start()?);
    *slot = Some(host.clone());
    Ok(host)
}

fn open_error(what: &str, reason: impl std::fmt::Display) -> DeviceError {
    DeviceError::Open(format!("the browser device: {what}: {reason}"))
}

impl Host {
    /// "Chromium 148.0.7778.167": DevTools' version, else the user agent's.
    fn browser(&self, opened: &Opened) -> String {
        let version = if self.version.contains("Chrome/") {
            &self.version
        } else {
            &opened.user_agent
        };
        adapter::browser(self.product, version)
    }

    fn start() -> Result<Host, DeviceError> {
        sweep_profiles();
        let token = token().map_err(|e| open_error("no random token", e))?;
        let loopback = IpAddr::from([127, 0, 0, 1]);
        let (http, socket, sockets) = listen::listen((loopback, 0).into(), loopback, &token, FILES)
            .map_err(|e| open_error("no server", e))?;
        let url = format!(
            "http://{http}/{token}/?ws={}&max={}",
            socket.port(),
            connection::MAX_MESSAGE
        );
        let profile = std::env::temp_dir().join(format!(
            "{PROFILE_PREFIX}{}-{}",
            std::process::id(),
            &token[..8]
        ));
        let chromium_error = |e: ChromiumError| open_error("Chromium", e);
        let product = match wgstress_chromium::executable() {
            Ok(path) if !path.to_string_lossy().contains("chromium") => "Chrome",
            _ => "Chromium",
        };
        let command = wgstress_chromium::command(&profile).map_err(chromium_error)?;
        let chromium = Chromium::start(command, profile.clone())
            .map_err(|e| open_error("cannot start Chromium", e))?;
        let address = wgstress_chromium::devtools_address(&profile, &mut || chromium.try_wait())
            .map_err(chromium_error)?;
        let mut devtools = DevTools::connect(&address).map_err(chromium_error)?;
        let version = devtools.open_page().map_err(chromium_error)?;
        devtools.navigate(&url).map_err(chromium_error)?;
        let page = connected(&mut devtools, &sockets)?;
        let connection = Connection::new(page, Role::Server, Some(token), None)
            .map_err(|e| open_error("the page's WebSocket", e))?;
        Ok(Host {
            connection,
            product,
            version,
            http,
            socket,
            _devtools: devtools,
            _chromium: chromium,
        })
    }
}

/// The page's WebSocket once it connects; what the page said meanwhile (its console and
/// exceptions) is in the error when it does not.
fn connected(
    devtools: &mut DevTools,
    sockets: &Receiver<Arrival>,
) -> Result<WebSocket<std::net::TcpStream>, DeviceError> {
    let deadline = Instant::now() + CONNECT;
    let mut said = Vec::new();
    loop {
        match sockets.recv_timeout(Duration::from_millis(50)) {
            // The first page's socket is taken; a later one (the page reloaded) closes.
            Ok((socket, _)) => return Ok(socket),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(open_error("the page's WebSocket", "the server stopped"))
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        // The page's events, waited for a little at a time.
        let _ = devtools.wait(Duration::from_millis(50));
        said.extend(devtools.take_events().into_iter().map(|e| match e {
            PageEvent::Console(line) => line,
            PageEvent::Exception(text) => format!("uncaught {text}"),
        }));
        if Instant::now() > deadline {
            let said = said
                .last()
                .map(|l| format!(" (its last words: {l})"))
                .unwrap_or_default();
            return Err(open_error(
                "the page",
                format!(
                    "it did not connect back within {} s{said}",
                    CONNECT.as_secs()
                ),
            ));
        }
    }
}

/// Chromium's process group and profile.
struct Chromium {
    child: Mutex<Child>,
    group: libc::pid_t,
    profile: PathBuf,
}

/// The Chromium the process has running, for `atexit` to end.
static RUNNING: Mutex<Option<(libc::pid_t, PathBuf)>> = Mutex::new(None);

fn running() -> MutexGuard<'static, Option<(libc::pid_t, PathBuf)>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

extern "C" fn at_exit() {
    // A thread that holds the lock at exit is one that is ending the browser itself.
    if let Ok(mut running) = RUNNING.try_lock() {
        if let Some((group, profile)) = running.take() {
            wgstress_chromium::kill_group(group);
            let _ = std::fs::remove_dir_all(profile);
        }
    }
}

impl Chromium {
    /// Starts `command` as the leader of a new process group, from a thread that lives as
    /// long as the process: `PR_SET_PDEATHSIG` fires when the thread that started the child
    /// ends, not the process, and the first `open` may be on a thread that soon ends (a
    /// test's).
    fn start(mut command: Command, profile: PathBuf) -> std::io::Result<Chromium> {
        static AT_EXIT: Once = Once::new();
        AT_EXIT.call_once(|| {
            // SAFETY: at_exit is a function that never unwinds.
            unsafe {
                libc::atexit(at_exit);
            }
        });
        let (sender, started) = mpsc::channel();
        std::thread::Builder::new()
            .name("wgstress-browser-chromium".into())
            .spawn(move || {
                command.process_group(0);
                // Linux only: elsewhere the atexit handler alone ends Chromium.
                // SAFETY: prctl(2) is async-signal-safe, and the closure allocates nothing.
                #[cfg(target_os = "linux")]
                unsafe {
                    command.pre_exec(|| {
                        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                        Ok(())
                    });
                }
                let _ = sender.send(command.spawn());
                loop {
                    std::thread::park();
                }
            })?;
        let child = started
            .recv()
            .map_err(|_| std::io::Error::other("the thread starting Chromium ended"))??;
        let group = child.id() as libc::pid_t;
        *running() = Some((group, profile.clone()));
        Ok(Chromium {
            child: Mutex::new(child),
            group,
            profile,
        })
    }

    fn try_wait(&self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .try_wait()
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let mut running = running();
        wgstress_chromium::kill_group(self.group);
        let _ = self.child.lock().unwrap_or_else(|e| e.into_inner()).wait();
        let _ = std::fs::remove_dir_all(&self.profile);
        if running
            .as_ref()
            .is_some_and(|(group, _)| *group == self.group)
        {
            *running = None;
        }
    }
}

/// Removes the profiles of processes that are gone (killed before their `atexit` ran).
fn sweep_profiles() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PROFILE_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if !alive(pid) {
            let _ = std::fs::remove_dir_all(Path::new(&entry.path()));
        }
    }
}

fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let answered = unsafe { libc::kill(pid, 0) };
    answered == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_process_is_alive() {
        assert!(alive(std::process::id() as libc::pid_t));
    }
}
