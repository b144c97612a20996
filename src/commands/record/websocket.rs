//! The little of WebSocket (RFC 6455) that talking to a local Chromium's DevTools needs:
//! the opening handshake, masked text frames out, text frames in (fragmented or not), over a
//! plain TCP connection to 127.0.0.1. Messages are read on a thread of their own, so that
//! waiting for one with a timeout never cuts a frame in half.

use anyhow::{anyhow, bail, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

pub struct WebSocket {
    writer: TcpStream,
    incoming: Receiver<std::io::Result<Option<String>>>,
}

/// What waiting for a message gave.
pub enum Received {
    Message(String),
    Closed,
    TimedOut,
}

impl WebSocket {
    /// Connects to `url` (`ws://HOST:PORT/PATH`).
    pub fn connect(url: &str) -> Result<WebSocket> {
        let rest = url
            .strip_prefix("ws://")
            .ok_or_else(|| anyhow!("{url}: not a ws:// address"))?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let stream = TcpStream::connect(host).map_err(|e| anyhow!("{url}: {e}"))?;
        stream.set_nodelay(true)?;
        let mut writer = stream.try_clone()?;
        // The key is any 16 bytes in base64; this one is RFC 6455's own example.
        write!(
            writer,
            "GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )?;
        let mut reader = BufReader::new(stream);
        let mut status = String::new();
        reader.read_line(&mut status)?;
        if !status.starts_with("HTTP/1.1 101") {
            bail!("{url}: the DevTools endpoint answered `{}`", status.trim());
        }
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 || line == "\r\n" {
                break;
            }
        }
        let (send, incoming) = mpsc::channel();
        std::thread::spawn(move || loop {
            let message = read_message(&mut reader);
            let last = !matches!(message, Ok(Some(_)));
            if send.send(message).is_err() || last {
                break;
            }
        });
        Ok(WebSocket { writer, incoming })
    }

    /// The next message, waiting at most `timeout`.
    pub fn receive(&mut self, timeout: Duration) -> Result<Received> {
        match self.incoming.recv_timeout(timeout) {
            Ok(Ok(Some(text))) => Ok(Received::Message(text)),
            Ok(Ok(None)) | Err(RecvTimeoutError::Disconnected) => Ok(Received::Closed),
            Ok(Err(e)) => Err(e.into()),
            Err(RecvTimeoutError::Timeout) => Ok(Received::TimedOut),
        }
    }

    /// Sends one text message.
    pub fn send(&mut self, text: &str) -> Result<()> {
        self.frame(0x1, text.as_bytes())
    }

    fn frame(&mut self, opcode: u8, payload: &[u8]) -> Result<()> {
        let mut frame = vec![0x80 | opcode];
        let n = payload.len();
        if n < 126 {
            frame.push(0x80 | n as u8);
        } else if n <= 0xffff {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
        // Client frames are masked (RFC 6455 §5.3); the mask need not be secret here.
        let mask = [0x5a, 0x1c, 0x93, 0x27];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.writer.write_all(&frame)?;
        Ok(())
    }
}

/// The next text message; `None` when the browser closed the connection. Pings are not
/// answered: Chromium's DevTools sends none.
fn read_message(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<String>> {
    let mut message = Vec::new();
    loop {
        let mut head = [0u8; 2];
        match reader.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let fin = head[0] & 0x80 != 0;
        let opcode = head[0] & 0x0f;
        let mut len = u64::from(head[1] & 0x7f);
        if len == 126 {
            let mut b = [0u8; 2];
            reader.read_exact(&mut b)?;
            len = u64::from(u16::from_be_bytes(b));
        } else if len == 127 {
            let mut b = [0u8; 8];
            reader.read_exact(&mut b)?;
            len = u64::from_be_bytes(b);
        }
        let mask = if head[1] & 0x80 != 0 {
            let mut m = [0u8; 4];
            reader.read_exact(&mut m)?;
            Some(m)
        } else {
            None
        };
        if len > 1 << 30 {
            return Err(std::io::Error::other(format!(
                "a DevTools message of {len} bytes"
            )));
        }
        let mut payload = vec![0u8; len as usize];
        reader.read_exact(&mut payload)?;
        if let Some(m) = mask {
            payload
                .iter_mut()
                .enumerate()
                .for_each(|(i, b)| *b ^= m[i % 4]);
        }
        match opcode {
            0x0..=0x2 => {
                message.extend_from_slice(&payload);
                if fin {
                    return Ok(Some(String::from_utf8_lossy(&message).into_owned()));
                }
            }
            0x8 => return Ok(None),
            _ => {}
        }
    }
}
