//! The item's side of `wgstress serve`: a device in a page that another process (serve) holds,
//! reached through serve over a WebSocket to 127.0.0.1, which serve opens only for the secret
//! it gave this process. The protocol is the page's own; serve passes each message on.

use crate::adapter;
use crate::connection::{self, Connection, Role};
use crate::host::open_on;
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use wgstress_device::{DeviceError, Gpu};

static RELAYED: Mutex<Option<Arc<Connection>>> = Mutex::new(None);

fn relayed() -> MutexGuard<'static, Option<Arc<Connection>>> {
    // The slot is set or taken whole: a thread that panicked holding it left it whole.
    RELAYED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A device in the page that serve at `address` lends this process with `secret`, opened
/// with `features` (for `needed_by`, which errors name). The first call connects; a later one
/// makes another device through the same connection.
pub fn open_relayed(
    address: SocketAddr,
    secret: &str,
    features: wgpu_types::Features,
    needed_by: &str,
) -> Result<Gpu, DeviceError> {
    let connection = connection_to(address, secret)?;
    let browser = |opened: &adapter::Opened| adapter::browser_of_agent(&opened.user_agent);
    open_on(&connection, &browser, features, needed_by)
}

fn connection_to(address: SocketAddr, secret: &str) -> Result<Arc<Connection>, DeviceError> {
    let mut slot = relayed();
    if let Some(connection) = slot.as_ref() {
        if connection.closed().is_none() {
            return Ok(connection.clone());
        }
        return Err(DeviceError::Open(format!(
            "the page serve lent: {}",
            connection.closed().unwrap_or_default()
        )));
    }
    if secret.is_empty() {
        return Err(DeviceError::Open(
            "a relayed browser device needs the secret serve gives in WGSTRESS_RELAY_SECRET".into(),
        ));
    }
    let failed = |e: &dyn std::fmt::Display| {
        DeviceError::Open(format!("the page serve lent, at {address}: {e}"))
    };
    let stream = TcpStream::connect(address).map_err(|e| failed(&e))?;
    let (socket, _) = tungstenite::client::client_with_config(
        format!("ws://{address}/{secret}"),
        stream,
        Some(connection::config()),
    )
    .map_err(|e| failed(&e))?;
    let connection = Connection::new(socket, Role::Client, None, None).map_err(|e| failed(&e))?;
    *slot = Some(connection.clone());
    Ok(connection)
}
