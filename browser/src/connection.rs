//! The page's WebSocket: a writer behind a lock and a reader thread that hands each answer to
//! the request waiting for it (a channel per request, or the relay of a `serve` item that
//! sent it), so that several threads use the page at once. A socket that closes fails every
//! waiting and later request. Where the page's token is known, every message carries it both
//! ways, and a message from the page without it closes the socket.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
pub(crate) use tungstenite::protocol::Role;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

/// The largest message either way. A read-back comes as base64 inside JSON, a third over
/// its bytes: reads of 256 MiB in one batch are 342 MiB of text, and the rest is room for
/// the JSON around them. It stays under V8's longest string (2^29 - 24 characters), which
/// the page's `JSON.stringify` of its answer must fit in.
pub(crate) const MAX_MESSAGE: usize = 384 << 20;

pub(crate) fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
}

/// Why a request got no `ok`.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The page answered with an error.
    Page {
        kind: String,
        what: String,
        message: String,
    },
    /// No answer within the request's timeout.
    TimedOut,
    /// The socket closed (the page or the browser went away), with why.
    Closed(String),
    /// The request is longer than `MAX_MESSAGE` (its length).
    TooLarge(usize),
}

/// Who waits for an answer.
enum Waiter {
    Call(Sender<Result<Value, Failure>>),
    /// A relayed item's request: the answer goes back to it whole, under its own `id`.
    Relay {
        id: Value,
        back: Sender<Value>,
    },
}

#[derive(Default)]
struct State {
    waiting: HashMap<u64, Waiter>,
    /// Why the socket closed, once it has.
    closed: Option<String>,
    /// Devices the page reported lost, with the reason.
    lost: HashMap<u64, String>,
}

pub(crate) struct Connection {
    writer: Mutex<WebSocket<TcpStream>>,
    state: Mutex<State>,
    next: AtomicU64,
    /// The page's token, where this side knows it (not a relayed item's).
    token: Option<String>,
    /// Where the page's unasked messages go (`serve`'s consent, `lost`), if anywhere.
    events: Option<Sender<Value>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is one insert, remove or send: a thread that panicked
    // holding one left it whole.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Connection {
    /// Takes over the page's socket (handshaken, this side being `role`), starting the thread
    /// that reads it. `token`: the page's, which every message then carries; `events`: where
    /// the page's unasked messages go.
    pub(crate) fn new(
        socket: WebSocket<TcpStream>,
        role: Role,
        token: Option<String>,
        events: Option<Sender<Value>>,
    ) -> std::io::Result<Arc<Connection>> {
        socket.get_ref().set_nodelay(true)?;
        // The writing half: a second WebSocket over a clone of the stream that only ever
        // writes. The reading half answers the page's pings and close on its own clone; the
        // page sends neither but when it goes.
        let writer =
            WebSocket::from_raw_socket(socket.get_ref().try_clone()?, role, Some(config()));
        let connection = Arc::new(Connection {
            writer: Mutex::new(writer),
            state: Mutex::default(),
            next: AtomicU64::new(1),
            token,
            events,
        });
        let reader = connection.clone();
        std::thread::Builder::new()
            .name("wgstress-browser-reader".into())
            .spawn(move || reader.read(socket))?;
        Ok(connection)
    }

    fn read(&self, mut socket: WebSocket<TcpStream>) {
        let why = loop {
            let text = match socket.read() {
                Ok(Message::Text(text)) => text.to_string(),
                Ok(Message::Binary(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
                Ok(Message::Close(_)) => break "the browser page closed".to_string(),
                Ok(_) => continue,
                Err(tungstenite::Error::Capacity(e)) => {
                    break format!(
                    "the browser page sent a message over the largest, {MAX_MESSAGE} bytes ({e})"
                )
                }
                Err(e) => break format!("the browser page closed ({e})"),
            };
            let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if let Some(token) = &self.token {
                let given = value
                    .get("token")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !crate::token::same(given, token) {
                    break "the browser page sent a message without its token".to_string();
                }
            }
            if value.get("event").is_some() {
                if value["event"] == "lost" {
                    if let Some(device) = value["device"].as_u64() {
                        let reason = value["reason"].as_str().unwrap_or("lost").to_string();
                        lock(&self.state).lost.insert(device, reason);
                    }
                }
                if let Some(events) = &self.events {
                    let _ = events.send(value);
                }
                continue;
            }
            let Some(id) = value["id"].as_u64() else {
                continue;
            };
            // An answer nobody waits for is one whose request timed out.
            let waiter = lock(&self.state).waiting.remove(&id);
            match waiter {
                Some(Waiter::Call(waiter)) => {
                    let _ = waiter.send(answer(value));
                }
                Some(Waiter::Relay { id, back }) => {
                    value["id"] = id;
                    // An item that has ended takes no more answers.
                    let _ = back.send(value);
                }
                None => {}
            }
        };
        self.close(why);
    }

    /// Fails every waiting request and every later one with `why`.
    fn close(&self, why: String) {
        let mut state = lock(&self.state);
        for (_, waiter) in state.waiting.drain() {
            if let Waiter::Call(waiter) = waiter {
                let _ = waiter.send(Err(Failure::Closed(why.clone())));
            }
        }
        state.closed.get_or_insert(why);
    }

    /// Why the socket closed, if it has.
    pub(crate) fn closed(&self) -> Option<String> {
        lock(&self.state).closed.clone()
    }

    /// Why the page said device `device` was lost, if it did.
    pub(crate) fn lost(&self, device: u64) -> Option<String> {
        lock(&self.state).lost.get(&device).cloned()
    }

    /// Sends `request` (its `id` added) and waits at most `timeout` for its answer.
    pub(crate) fn call(
        &self,
        mut request: Map<String, Value>,
        timeout: Duration,
    ) -> Result<Value, Failure> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        request.insert("id".into(), id.into());
        self.sign(&mut request);
        let text = Value::Object(request).to_string();
        if text.len() > MAX_MESSAGE {
            return Err(Failure::TooLarge(text.len()));
        }
        let (sender, receiver) = mpsc::channel();
        {
            let mut state = lock(&self.state);
            if let Some(why) = &state.closed {
                return Err(Failure::Closed(why.clone()));
            }
            state.waiting.insert(id, Waiter::Call(sender));
        }
        if let Err(e) = self.send(text) {
            self.close(format!("the browser page closed ({e})"));
        }
        match receiver.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                lock(&self.state).waiting.remove(&id);
                Err(Failure::TimedOut)
            }
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Closed(
                self.closed()
                    .unwrap_or_else(|| "the browser page closed".into()),
            )),
        }
    }

    /// Sends `request` (its `id` added) without waiting for the answer, which is dropped.
    pub(crate) fn tell(&self, mut request: Map<String, Value>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        request.insert("id".into(), id.into());
        self.sign(&mut request);
        if self.closed().is_none() {
            let _ = self.send(Value::Object(request).to_string());
        }
    }

    /// Sends a relayed item's `request` under an `id` of this side's; its answer goes to
    /// `back` whole, under the item's own `id`. False where the socket has closed.
    pub(crate) fn relay(&self, mut request: Map<String, Value>, back: Sender<Value>) -> bool {
        let own = self.next.fetch_add(1, Ordering::Relaxed);
        let id = request
            .insert("id".into(), own.into())
            .unwrap_or(Value::Null);
        self.sign(&mut request);
        {
            let mut state = lock(&self.state);
            if state.closed.is_some() {
                return false;
            }
            state.waiting.insert(own, Waiter::Relay { id, back });
        }
        if let Err(e) = self.send(Value::Object(request).to_string()) {
            self.close(format!("the browser page closed ({e})"));
            return false;
        }
        true
    }

    /// Sends an unasked message (`serve`'s news of its items) to the page.
    pub(crate) fn notify(&self, mut message: Map<String, Value>) {
        self.sign(&mut message);
        if self.closed().is_none() {
            let _ = self.send(Value::Object(message).to_string());
        }
    }

    /// Closes the socket: the page sees it close, and every request fails with `why`.
    pub(crate) fn shut(&self, why: String) {
        // The reason first: the reading half, on a thread of its own, sees the socket end and
        // records why it closed as it saw it, and the first reason recorded stands.
        self.close(why);
        let mut writer = lock(&self.writer);
        let _ = writer.close(None);
        let _ = writer.flush();
        // The reading half's clone of the same socket ends too.
        let _ = writer.get_ref().shutdown(std::net::Shutdown::Both);
    }

    /// The page's token in `message`, where this side knows it.
    fn sign(&self, message: &mut Map<String, Value>) {
        if let Some(token) = &self.token {
            message.insert("token".into(), token.clone().into());
        }
    }

    fn send(&self, text: String) -> tungstenite::Result<()> {
        lock(&self.writer).send(Message::text(text))
    }
}

/// A page's answer as `ok` or its `error`.
fn answer(mut value: Value) -> Result<Value, Failure> {
    if let Some(error) = value.get("error") {
        let field = |name: &str| error[name].as_str().unwrap_or_default().to_string();
        return Err(Failure::Page {
            kind: field("kind"),
            what: field("what"),
            message: field("message"),
        });
    }
    Ok(value["ok"].take())
}
