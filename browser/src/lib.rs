//! wgstress-browser: a WebGPU device in a headless Chromium page, behind wgstress-device's
//! boundary. `open` starts (once per process) a server on 127.0.0.1 and a headless Chromium
//! whose page connects back over a WebSocket; each `open` then makes a device in that page,
//! and the returned `Gpu` runs the same descriptions and batches as the runtime's wgpu device,
//! with the same meaning, in the browser. `open_relayed` does the same in a page that
//! `wgstress serve` holds (any browser's, on any machine) and lends the process.
//!
//! # The page and its server
//!
//! The page (`page/index.html`, `page/executor.js`, inside this library) is served over HTTP
//! at `http://127.0.0.1:HTTP/TOKEN/?ws=WS&max=BYTES` and connects to
//! `ws://127.0.0.1:WS/TOKEN`. `TOKEN` is 128 random bits in hex: any other process of the
//! machine can reach 127.0.0.1, and a request or WebSocket without it is answered 403 and
//! nothing else. Every message either way carries it as `token`; a message from the page
//! without it closes the socket. HTTP and the WebSocket have a port each: the stream tiny_http hands over on
//! an upgrade can be neither split nor given a read timeout, so a reader thread on it would
//! hold off every writer; a TCP stream of our own is cloned into a reading and a writing half.
//!
//! # The protocol
//!
//! Text messages of JSON. A request is `{id, op, device, release?, ...}`, answered by
//! `{id, ok: VALUE}` or `{id, error: {kind, what, message}}`, where `kind` is `"refused"` (the
//! device refused the step: `DeviceError::Refused`), `"lost"` (the device is lost, `message`
//! its reason) or `"open"` (no device could be made). `release` is the list of resources
//! (`{kind, id}`, as `commands::Resource` serializes) dropped since the last request: releases
//! ride along with the next request instead of costing a round trip each.
//!
//! | op | fields | ok |
//! |---|---|---|
//! | `open` | `features`: WebGPU feature names | `{device, missing, info, fallback, limits, features, userAgent}`; `device` is null and `missing` names the features the adapter lacks |
//! | `create-buffer` | `object`, `desc` (`BufferDesc`), `contents`? (base64) | null |
//! | `create-layout` | `object`, `desc` (`LayoutDesc`) | null |
//! | `create-pipeline` | `object`, `desc` (`PipelineDesc`) | null |
//! | `create-bind-group` | `object`, `desc` (`BindGroupDesc`) | null |
//! | `write` | `write` (`Write`) | null |
//! | `submit` | `batch` (`Submission`) | each read's bytes, base64 |
//! | `release` | only `release` | null |
//! | `drop-device` | | null |
//!
//! `open` requests the adapter and a device of it with the features asked for and every limit
//! the adapter has (not WebGPU's defaults, as the native device asks for the adapter's).
//! `max` in the page's address is the largest message this side reads: an answer longer than
//! it is refused by the page instead of sent.
//! Object ids (`object`) are chosen on this side, unique per device; `id` is the request's.
//! The page also sends, unasked, `{event: "lost", device, reason}` when a device's `lost`
//! promise resolves.
//!
//! The page runs requests as they come, concurrently (a pipeline is made while a batch waits
//! for its read-backs); a device's submissions reach its queue in the order they were sent.
//! On opening, the page says `{event: "hello", name}` (`name` from its address's `&name=`).
//!
//! # `wgstress serve`
//!
//! `PageServer` serves the page (`page/serve.html`, the executor and `page/serve.js`, which
//! shows the items) at an address of the caller's choice; each page that connects is a
//! `ServedPage`, lent to one item process at a time (`lend`): the item's `open_relayed`
//! connects to 127.0.0.1 with the secret of its lease, and its requests and the page's
//! answers pass through serve in the protocol above, under serve's ids. Serve tells the page
//! `{event: "plan", items: [{name, mayHang}]}`, `{event: "started", item}`,
//! `{event: "ended", item, result, passed}` and `{event: "done", why}`; the page says
//! `{event: "consent"}` when the person agrees to items that may hang the machine. An unasked
//! message from the page over `MAX_EVENT` bytes closes it.

#![deny(unreachable_pub)]

mod adapter;
mod connection;
mod device;
mod host;
mod listen;
mod relayed;
mod served;
mod token;

pub use device::BrowserDevice;
pub use host::{addresses, close, open};
pub use relayed::open_relayed;
pub use served::{Lease, News, PageServer, ServedPage, MAX_EVENT};
