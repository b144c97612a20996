//! The page's servers: HTTP for its files and a WebSocket listener, each on a port of one
//! address. Only requests that carry the token are answered (anything else gets 403 and
//! nothing else); the WebSockets that were handshaken come out of a channel, with their
//! peers. HTTP and the WebSocket have a port each: the stream tiny_http hands over on an
//! upgrade can be neither split nor given a read timeout.

use crate::connection;
use crate::token::same;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;
use tungstenite::WebSocket;

/// How long a client may take over the WebSocket handshake before it is dropped, so that one
/// that says nothing does not hold off the others.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A file the page is made of: its name after `/TOKEN/` (`""` the page itself), its text
/// and its type.
pub(crate) type PageFile = (&'static str, &'static str, &'static str);

/// A page socket, handshaken, and where it came from.
pub(crate) type Arrival = (WebSocket<TcpStream>, SocketAddr);

/// Serves `files` over HTTP at `http`, and takes WebSockets at `ip` on the next port (one
/// the system chooses where `http`'s port is 0), so that a tunnel to a given port can take
/// both; only for `token`. Returns both addresses and the sockets as they come.
pub(crate) fn listen(
    http: SocketAddr,
    ip: IpAddr,
    token: &str,
    files: &'static [PageFile],
) -> std::io::Result<(SocketAddr, SocketAddr, Receiver<Arrival>)> {
    let wanted = http.port();
    let server = tiny_http::Server::http(http).map_err(|e| std::io::Error::other(e.to_string()))?;
    let http = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| std::io::Error::other("the HTTP server has no IP address"))?;
    let page_token = token.to_string();
    std::thread::Builder::new()
        .name("wgstress-browser-http".into())
        .spawn(move || {
            for request in server.incoming_requests() {
                // `/TOKEN/` and `/TOKEN/FILE`, with any query.
                let path = request.url().split('?').next().unwrap_or_default();
                let mut parts = path.splitn(3, '/').skip(1);
                let given = parts.next().unwrap_or_default();
                let file = parts
                    .next()
                    .filter(|_| same(given, &page_token))
                    .and_then(|name| files.iter().find(|(n, _, _)| *n == name));
                let Some((_, body, kind)) = file else {
                    let _ = request.respond(tiny_http::Response::empty(403));
                    continue;
                };
                let header = |name: &str, value: &str| {
                    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
                        .expect("a valid header")
                };
                let response = tiny_http::Response::from_string(*body)
                    .with_header(header("Content-Type", kind))
                    .with_header(header("Cache-Control", "no-store"));
                let _ = request.respond(response);
            }
        })?;
    let socket_port = match wanted {
        0 => 0,
        port => port.checked_add(1).ok_or_else(|| {
            std::io::Error::other(format!("no port after {port} for the page's WebSocket"))
        })?,
    };
    let listener = TcpListener::bind((ip, socket_port))?;
    let socket = listener.local_addr()?;
    let (sender, sockets) = mpsc::channel();
    let socket_token = token.to_string();
    std::thread::Builder::new()
        .name("wgstress-browser-socket".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let Ok(peer) = stream.peer_addr() else {
                    continue;
                };
                if stream.set_read_timeout(Some(HANDSHAKE)).is_err() {
                    continue;
                }
                let Some(socket) = accept(stream, &socket_token) else {
                    continue;
                };
                if socket.get_ref().set_read_timeout(None).is_err() {
                    continue;
                }
                if sender.send((socket, peer)).is_err() {
                    return;
                }
            }
        })?;
    Ok((http, socket, sockets))
}

/// The WebSocket handshake of `stream`, whose path must be `/TOKEN` (else 403).
fn accept(stream: TcpStream, token: &str) -> Option<WebSocket<TcpStream>> {
    // The error's type is tungstenite's (an HTTP response), not ours to make smaller.
    #[allow(clippy::result_large_err)]
    let check = |request: &tungstenite::handshake::server::Request,
                 response: tungstenite::handshake::server::Response| {
        let given = request.uri().path().strip_prefix('/').unwrap_or_default();
        match same(given, token) {
            true => Ok(response),
            false => Err(refusal()),
        }
    };
    tungstenite::accept_hdr_with_config(stream, check, Some(connection::config())).ok()
}

/// The answer to a handshake without the token: 403, and nothing else.
pub(crate) fn refusal() -> tungstenite::handshake::server::ErrorResponse {
    let mut refused = tungstenite::handshake::server::ErrorResponse::new(None);
    *refused.status_mut() = tungstenite::http::StatusCode::FORBIDDEN;
    refused
}
