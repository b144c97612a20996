//! `wgstress serve`'s side of the page: the page served at an address of the user's choice
//! (127.0.0.1 by default) with a token of its own, each page that connects with it held as a
//! device, and that device lent to one item process at a time: the item connects to
//! 127.0.0.1 with a secret made for it, and its requests and the page's answers are passed
//! on, under ids of this side's (an answer to an item that has ended goes nowhere), with the
//! page's token added. When the item's socket closes, the devices it left open are dropped.
//!
//! What the page sends is data: answers passed on whole to the item that asked, `lost`
//! passed on, `hello` (a name, which the caller makes safe) and `consent`; an unasked
//! message longer than `MAX_EVENT` closes the page.

use crate::adapter::{self, Opened};
use crate::connection::{self, Connection, Role};
use crate::host::opened;
use crate::listen::{self, Arrival, PageFile};
use crate::token::{same, token};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};
use wgstress_device::DeviceError;

/// The served page: the executor, and the view of the items a person looks at.
const FILES: &[PageFile] = &[
    (
        "",
        include_str!("../page/serve.html"),
        "text/html; charset=utf-8",
    ),
    (
        "executor.js",
        include_str!("../page/executor.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "serve.js",
        include_str!("../page/serve.js"),
        "text/javascript; charset=utf-8",
    ),
];

/// The longest name a page may give itself, in characters.
const MAX_NAME: usize = 64;

/// How often waits look at whether the page has gone.
const POLL: Duration = Duration::from_millis(100);

/// The page's server and the desk where items come for their devices.
pub struct PageServer {
    url: String,
    http: SocketAddr,
    socket: SocketAddr,
    token: String,
    arrivals: Mutex<Receiver<Arrival>>,
    desk: Arc<Desk>,
}

impl PageServer {
    /// Serves the page over HTTP at `listen` (port 0: the system picks), its WebSocket on
    /// another port of the same address, and the items' relay on 127.0.0.1.
    pub fn start(listen: SocketAddr) -> std::io::Result<PageServer> {
        let token = token().map_err(|e| std::io::Error::other(e.to_string()))?;
        let (http, socket, arrivals) = listen::listen(listen, listen.ip(), &token, FILES)?;
        let desk = Desk::start()?;
        // A page opened from another machine must be told an address it can reach: the
        // one given, unless it is "every address", where this machine's own stands in.
        let shown = match http.ip() {
            ip if ip.is_unspecified() => SocketAddr::new(IpAddr::from([127, 0, 0, 1]), http.port()),
            _ => http,
        };
        let url = format!(
            "http://{shown}/{token}/?ws={}&max={}",
            socket.port(),
            connection::MAX_MESSAGE
        );
        Ok(PageServer {
            url,
            http,
            socket,
            token,
            arrivals: Mutex::new(arrivals),
            desk,
        })
    }

    /// The page's address, with its token: whoever has it can be a device.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Where HTTP and the WebSocket listen.
    pub fn addresses(&self) -> (SocketAddr, SocketAddr) {
        (self.http, self.socket)
    }

    /// The next page that connects with the token, waiting at most `timeout`.
    pub fn next_page(&self, timeout: Duration) -> Option<ServedPage> {
        let arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
        let (socket, peer) = match arrivals.recv_timeout(timeout) {
            Ok(arrival) => arrival,
            Err(_) => return None,
        };
        ServedPage::new(socket, peer, &self.token, self.desk.clone()).ok()
    }
}

/// What the page said of itself and agreed to, and the item it is lent to.
#[derive(Default)]
struct Said {
    /// The page's `hello`: the name it gave (possibly empty), once it has.
    hello: Option<String>,
    consent: bool,
    /// Where the page's `lost` news goes: the item it is lent to now, by its number.
    lent_to: Option<(u64, Sender<Value>)>,
    /// The number of the last item lent the page.
    lent: u64,
}

struct Shared {
    connection: Arc<Connection>,
    said: Mutex<Said>,
    changed: Condvar,
}

impl Shared {
    fn said(&self) -> MutexGuard<'_, Said> {
        self.said.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A page that connected with the token: a device to lend.
pub struct ServedPage {
    shared: Arc<Shared>,
    peer: SocketAddr,
    desk: Arc<Desk>,
}

/// What an item needs to reach a lent page: the relay's address, and a secret for it alone.
#[derive(Clone)]
pub struct Lease {
    pub address: SocketAddr,
    pub secret: String,
}

/// News of the items for the page to show.
pub enum News<'a> {
    /// The items it will run, in order, each with whether it waits for consent.
    Plan {
        items: &'a [(String, bool)],
    },
    Started {
        item: usize,
    },
    Ended {
        item: usize,
        result: &'a str,
        passed: bool,
    },
    /// Every item has run, or the rest will not (why).
    Done {
        why: &'a str,
    },
}

impl ServedPage {
    fn new(
        socket: WebSocket<TcpStream>,
        peer: SocketAddr,
        token: &str,
        desk: Arc<Desk>,
    ) -> std::io::Result<ServedPage> {
        let (events, news) = mpsc::channel();
        let connection =
            Connection::new(socket, Role::Server, Some(token.to_string()), Some(events))?;
        let shared = Arc::new(Shared {
            connection,
            said: Mutex::default(),
            changed: Condvar::new(),
        });
        let reader = Arc::downgrade(&shared);
        std::thread::Builder::new()
            .name("wgstress-serve-page".into())
            .spawn(move || take_news(reader, news))?;
        Ok(ServedPage { shared, peer, desk })
    }

    /// Where the page's socket came from.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Why the page has gone, once it has.
    pub fn gone(&self) -> Option<String> {
        self.shared.connection.closed()
    }

    /// The name the page gave itself (empty for none), waiting at most `timeout` for its
    /// `hello`; None where none came or the page went.
    pub fn name(&self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        self.wait_for(|said| said.hello.clone(), &|| Instant::now() > deadline)
    }

    /// What `found` reads from what the page said, once it says it; None where the page went,
    /// or `give_up` said so, first.
    fn wait_for<T>(
        &self,
        found: impl Fn(&Said) -> Option<T>,
        give_up: &dyn Fn() -> bool,
    ) -> Option<T> {
        let mut said = self.shared.said();
        loop {
            if let Some(it) = found(&said) {
                return Some(it);
            }
            if self.gone().is_some() || give_up() {
                return None;
            }
            said = self
                .shared
                .changed
                .wait_timeout(said, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// wgpu's description of the page's adapter, from a device opened for it and dropped.
    pub fn adapter(&self) -> Result<wgpu_types::AdapterInfo, DeviceError> {
        let connection = &self.shared.connection;
        let opened: Opened = opened(connection, &[])?;
        if let Some(device) = opened.device {
            let mut drop = Map::new();
            drop.insert("op".into(), "drop-device".into());
            drop.insert("device".into(), device.into());
            connection.tell(drop);
        }
        let browser = adapter::browser_of_agent(&opened.user_agent);
        Ok(adapter::info(&opened, &browser))
    }

    /// Waits until the person at the page agrees to run items that may hang the machine;
    /// false where the page went, or `give_up` said so, first.
    pub fn consent(&self, give_up: &dyn Fn() -> bool) -> bool {
        self.wait_for(|said| said.consent.then_some(()), give_up)
            .is_some()
    }

    /// Lends the page to the next item that comes with the returned secret (one item: a
    /// secret lent before and not used is void).
    pub fn lend(&self) -> std::io::Result<Lease> {
        let secret = token().map_err(|e| std::io::Error::other(e.to_string()))?;
        self.desk.expect(&secret, Arc::downgrade(&self.shared));
        Ok(Lease {
            address: self.desk.address,
            secret,
        })
    }

    /// Shows `news` on the page.
    pub fn tell(&self, news: News) {
        let mut message = Map::new();
        match news {
            News::Plan { items } => {
                message.insert("event".into(), "plan".into());
                let items: Vec<Value> = items
                    .iter()
                    .map(|(name, gated)| serde_json::json!({ "name": name, "mayHang": gated }))
                    .collect();
                message.insert("items".into(), items.into());
            }
            News::Started { item } => {
                message.insert("event".into(), "started".into());
                message.insert("item".into(), item.into());
            }
            News::Ended {
                item,
                result,
                passed,
            } => {
                message.insert("event".into(), "ended".into());
                message.insert("item".into(), item.into());
                message.insert("result".into(), result.into());
                message.insert("passed".into(), passed.into());
            }
            News::Done { why } => {
                message.insert("event".into(), "done".into());
                message.insert("why".into(), why.into());
            }
        }
        self.shared.connection.notify(message);
    }

    /// Closes the page's socket.
    pub fn close(&self, why: &str) {
        self.shared.connection.shut(why.to_string());
    }
}

/// The page's unasked messages, as they come, until the page goes.
fn take_news(shared: Weak<Shared>, news: Receiver<Value>) {
    loop {
        let message = match news.recv_timeout(POLL) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                if shared.connection.closed().is_some() {
                    shared.changed.notify_all();
                    return;
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if message.to_string().len() > MAX_EVENT {
            shared.connection.shut(format!(
                "the page sent an unasked message over {MAX_EVENT} bytes"
            ));
            shared.changed.notify_all();
            return;
        }
        let mut said = shared.said();
        match message["event"].as_str() {
            Some("hello") if said.hello.is_none() => {
                let name = message["name"].as_str().unwrap_or_default();
                said.hello = Some(name.chars().take(MAX_NAME).collect());
            }
            Some("consent") => said.consent = true,
            Some("lost") => {
                if let Some((_, item)) = &said.lent_to {
                    let _ = item.send(message);
                }
            }
            _ => {}
        }
        drop(said);
        shared.changed.notify_all();
    }
}

/// The longest unasked message a page may send (a `hello` with its name, `consent`, `lost`
/// with its reason), in bytes of JSON.
pub const MAX_EVENT: usize = 4096;

/// Where items come for their pages: a WebSocket listener on 127.0.0.1 that takes only the
/// secrets lent, each once.
struct Desk {
    address: SocketAddr,
    expected: Mutex<Vec<(String, Weak<Shared>)>>,
}

impl Desk {
    fn start() -> std::io::Result<Arc<Desk>> {
        let listener = TcpListener::bind((IpAddr::from([127, 0, 0, 1]), 0))?;
        let desk = Arc::new(Desk {
            address: listener.local_addr()?,
            expected: Mutex::default(),
        });
        let weak = Arc::downgrade(&desk);
        std::thread::Builder::new()
            .name("wgstress-serve-relay".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    let Some(desk) = weak.upgrade() else { return };
                    let Ok(stream) = stream else { continue };
                    desk.arrive(stream);
                }
            })?;
        Ok(desk)
    }

    fn expected(&self) -> MutexGuard<'_, Vec<(String, Weak<Shared>)>> {
        self.expected.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the next item that comes with `secret` for `page`, in place of any other
    /// secret lent for it.
    fn expect(&self, secret: &str, page: Weak<Shared>) {
        let mut expected = self.expected();
        expected.retain(|(_, p)| !p.ptr_eq(&page) && p.strong_count() > 0);
        expected.push((secret.to_string(), page));
    }

    /// An item's socket: handshaken if its path is a secret lent (which is then void), and
    /// relayed to its page on a thread of its own.
    fn arrive(&self, stream: TcpStream) {
        if stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .is_err()
        {
            return;
        }
        let mut page = None;
        // The error's type is tungstenite's (an HTTP response), not ours to make smaller.
        #[allow(clippy::result_large_err)]
        let check = |request: &tungstenite::handshake::server::Request,
                     response: tungstenite::handshake::server::Response| {
            let given = request.uri().path().strip_prefix('/').unwrap_or_default();
            let mut expected = self.expected();
            // Every secret compared, each in constant time.
            let found = expected.iter().position(|(secret, _)| same(given, secret));
            match found {
                Some(at) => {
                    page = expected.remove(at).1.upgrade();
                    Ok(response)
                }
                None => Err(listen::refusal()),
            }
        };
        let Ok(socket) =
            tungstenite::accept_hdr_with_config(stream, check, Some(connection::config()))
        else {
            return;
        };
        let Some(page) = page else { return };
        if socket.get_ref().set_read_timeout(None).is_err() {
            return;
        }
        let _ = std::thread::Builder::new()
            .name("wgstress-serve-item".into())
            .spawn(move || relay(socket, page));
    }
}

/// Passes an item's requests to its page and the answers back until the item's socket
/// closes; then drops the devices the item left open in the page.
fn relay(mut socket: WebSocket<TcpStream>, page: Arc<Shared>) {
    let Ok(clone) = socket.get_ref().try_clone() else {
        return;
    };
    let mut writer = WebSocket::from_raw_socket(clone, Role::Server, Some(connection::config()));
    let (back, answers) = mpsc::channel::<Value>();
    let number = {
        let mut said = page.said();
        said.lent += 1;
        said.lent_to = Some((said.lent, back.clone()));
        said.lent
    };
    // Ids of the item's `open` requests, and the devices it holds open.
    let opening: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let devices: Arc<Mutex<BTreeSet<u64>>> = Arc::default();
    let ended = Arc::new(AtomicBool::new(false));
    let writing = {
        let (opening, devices, ended) = (opening.clone(), devices.clone(), ended.clone());
        std::thread::Builder::new()
            .name("wgstress-serve-answers".into())
            .spawn(move || loop {
                let answer = match answers.recv_timeout(POLL) {
                    Ok(answer) => answer,
                    Err(RecvTimeoutError::Timeout) if !ended.load(Ordering::SeqCst) => continue,
                    Err(_) => return,
                };
                let asked = answer["id"].to_string();
                if lock(&opening).remove(&asked) {
                    if let Some(device) = answer["ok"]["device"].as_u64() {
                        lock(&devices).insert(device);
                    }
                }
                if writer.send(Message::text(answer.to_string())).is_err() {
                    return;
                }
            })
    };
    loop {
        let text = match socket.read() {
            Ok(Message::Text(text)) => text.to_string(),
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        let Ok(Value::Object(request)) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        match request.get("op").and_then(Value::as_str) {
            Some("open") => {
                lock(&opening).insert(request.get("id").cloned().unwrap_or_default().to_string());
            }
            Some("drop-device") => {
                if let Some(device) = request.get("device").and_then(Value::as_u64) {
                    lock(&devices).remove(&device);
                }
            }
            Some(_) => {}
            None => continue,
        }
        if !page.connection.relay(request, back.clone()) {
            break;
        }
    }
    ended.store(true, Ordering::SeqCst);
    {
        // The next item's relay may have begun already: only this one's is taken back.
        let mut said = page.said();
        if said.lent_to.as_ref().is_some_and(|(n, _)| *n == number) {
            said.lent_to = None;
        }
    }
    drop(back);
    if let Ok(writing) = writing {
        let _ = writing.join();
    }
    for device in std::mem::take(&mut *lock(&devices)) {
        let mut drop = Map::new();
        drop.insert("op".into(), "drop-device".into());
        drop.insert("device".into(), device.into());
        page.connection.tell(drop);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // One insert or remove at a time: a thread that panicked holding it left it whole.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
