//! A WebSocket connection to a local Chromium's DevTools, through `tungstenite`: text
//! messages out, text messages in, and waiting for one with a timeout. A read that times out
//! leaves a half-read frame in tungstenite's buffer, so that the next read goes on with it.

use crate::error::{ChromiumError, Result};
use std::net::TcpStream;
use std::time::Duration;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Error, Message};

/// The largest DevTools message read: a piece of the page's bytes in base64 inside its JSON
/// answer is a third over the piece itself.
const MAX_MESSAGE: usize = 64 << 20;

pub(crate) struct WebSocket {
    socket: tungstenite::WebSocket<TcpStream>,
}

/// What waiting for a message gave.
pub(crate) enum Received {
    Message(String),
    Closed,
    TimedOut,
}

impl WebSocket {
    /// Connects to `url` (`ws://HOST:PORT/PATH`).
    pub(crate) fn connect(url: &str) -> Result<WebSocket> {
        let rest = url
            .strip_prefix("ws://")
            .ok_or_else(|| connect(url, "not a ws:// address"))?;
        let host = rest.split_once('/').map_or(rest, |(host, _)| host);
        let stream = TcpStream::connect(host).map_err(|e| connect(url, e))?;
        stream.set_nodelay(true)?;
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
        let (socket, _) = tungstenite::client::client_with_config(url, stream, Some(config))
            .map_err(|e| connect(url, format!("the DevTools handshake failed: {e}")))?;
        Ok(WebSocket { socket })
    }

    /// The next text message, waiting at most `timeout`. Pings are answered by tungstenite
    /// as it reads.
    pub(crate) fn receive(&mut self, timeout: Duration) -> Result<Received> {
        // A zero timeout means none to the socket: wait the least it takes instead.
        let timeout = timeout.max(Duration::from_millis(1));
        self.socket.get_ref().set_read_timeout(Some(timeout))?;
        loop {
            match self.socket.read() {
                Ok(Message::Text(text)) => return Ok(Received::Message(text.to_string())),
                Ok(Message::Binary(bytes)) => {
                    return Ok(Received::Message(
                        String::from_utf8_lossy(&bytes).into_owned(),
                    ))
                }
                Ok(Message::Close(_)) | Err(Error::ConnectionClosed | Error::AlreadyClosed) => {
                    return Ok(Received::Closed)
                }
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
                Err(Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(Received::TimedOut)
                }
                Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Ok(Received::Closed)
                }
                Err(e) => return Err(ChromiumError::Socket(e.to_string())),
            }
        }
    }

    /// Sends one text message.
    pub(crate) fn send(&mut self, text: &str) -> Result<()> {
        self.socket
            .send(Message::text(text))
            .map_err(|e| ChromiumError::Socket(e.to_string()))
    }
}

fn connect(address: &str, reason: impl std::fmt::Display) -> ChromiumError {
    ChromiumError::Connect {
        address: address.to_string(),
        reason: reason.to_string(),
    }
}
