//! A device in the page: each step one request, answered when the page has done it, and the
//! page's failures as `DeviceError`s.

use crate::connection::{Connection, Failure, MAX_MESSAGE};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wgstress_device::commands::{
    BindGroupDesc, BindGroupId, BufferDesc, BufferId, LayoutDesc, LayoutId, PipelineDesc,
    PipelineId, Resource, Submission, Write,
};
use wgstress_device::{Device, DeviceError, DeviceResult as Result};

/// How long a step other than a batch may take to be answered. Making a pipeline compiles
/// its shader, which takes seconds for a large one on SwiftShader, longer on a machine whose
/// cores are all busy; a page that says nothing for this long is taken as gone.
const ANSWER: Duration = Duration::from_secs(300);

pub struct BrowserDevice {
    connection: Arc<Connection>,
    /// The page's number of the device.
    number: u64,
    features: wgpu_types::Features,
    hung: AtomicBool,
    next: AtomicU32,
    /// Resources dropped since the last request, sent along with the next.
    releases: Mutex<Vec<Resource>>,
}

impl BrowserDevice {
    pub(crate) fn new(
        connection: Arc<Connection>,
        number: u64,
        features: wgpu_types::Features,
    ) -> BrowserDevice {
        BrowserDevice {
            connection,
            number,
            features,
            hung: AtomicBool::new(false),
            next: AtomicU32::new(1),
            releases: Mutex::default(),
        }
    }

    fn id(&self) -> u32 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn releases(&self) -> std::sync::MutexGuard<'_, Vec<Resource>> {
        // A push or a take: a thread that panicked holding the lock left the list whole.
        self.releases.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `op` with `fields` (and the releases waiting) to this device and waits
    /// `timeout` for its answer.
    fn request(
        &self,
        op: &str,
        fields: Value,
        timeout: Duration,
    ) -> std::result::Result<Value, Failure> {
        let mut request = match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        request.insert("op".into(), op.into());
        request.insert("device".into(), self.number.into());
        let releases = std::mem::take(&mut *self.releases());
        if !releases.is_empty() {
            request.insert("release".into(), json!(releases));
        }
        let answer = self.connection.call(request, timeout);
        if let Err(Failure::TooLarge(_)) = answer {
            // Not sent: the releases go with the next request.
            self.releases().extend(releases);
        }
        answer
    }

    /// A step other than a batch: what the page could not do is the matching `DeviceError`.
    fn call(&self, op: &str, fields: Value) -> Result<Value> {
        self.request(op, fields, ANSWER)
            .map_err(|failure| match failure {
                Failure::TimedOut => DeviceError::Lost(format!(
                    "the browser page did not answer {op} within {} s",
                    ANSWER.as_secs()
                )),
                failure => error(op, failure),
            })
    }

    fn create(&self, op: &str, id: u32, desc: Value, extra: Option<(&str, Value)>) -> Result<()> {
        let mut fields = json!({ "object": id, "desc": desc });
        if let Some((key, value)) = extra {
            fields[key] = value;
        }
        self.call(op, fields).map(drop)
    }
}

/// The failure of request `op` as a `DeviceError`.
pub(crate) fn error(op: &str, failure: Failure) -> DeviceError {
    match failure {
        Failure::Page {
            kind,
            what,
            message,
        } => match kind.as_str() {
            "lost" => DeviceError::Lost(format!("{what}: {message}")),
            "open" => DeviceError::Open(format!("{what}: {message}")),
            _ => DeviceError::Refused { what, message },
        },
        Failure::Closed(why) => DeviceError::Gone(why),
        Failure::TimedOut => DeviceError::Lost(format!("the browser page did not answer {op}")),
        Failure::TooLarge(length) => DeviceError::Refused {
            what: format!("the {op} request"),
            message: format!(
                "{length} bytes of JSON, over the largest message to the page, {MAX_MESSAGE} bytes"
            ),
        },
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    // The boundary's types are plain data: strings, numbers and lists.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Device for BrowserDevice {
    fn features(&self) -> wgpu_types::Features {
        self.features
    }

    fn is_lost(&self) -> bool {
        self.connection.closed().is_some() || self.connection.lost(self.number).is_some()
    }

    fn is_hung(&self) -> bool {
        self.hung.load(Ordering::SeqCst)
    }

    fn create_buffer(&self, desc: &BufferDesc, contents: Option<&[u8]>) -> Result<BufferId> {
        if let Some(contents) = contents {
            if contents.len() as u64 > desc.size {
                return Err(DeviceError::Refused {
                    what: format!("buffer {} of {} bytes", desc.label, desc.size),
                    message: format!("{} bytes of contents do not fit in it", contents.len()),
                });
            }
        }
        let id = self.id();
        let contents = contents.map(|c| {
            (
                "contents",
                base64::engine::general_purpose::STANDARD.encode(c).into(),
            )
        });
        self.create("create-buffer", id, to_json(desc), contents)?;
        Ok(BufferId(id))
    }

    fn create_layout(&self, desc: &LayoutDesc) -> Result<LayoutId> {
        let id = self.id();
        self.create("create-layout", id, to_json(desc), None)?;
        Ok(LayoutId(id))
    }

    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId> {
        let id = self.id();
        self.create("create-pipeline", id, to_json(desc), None)?;
        Ok(PipelineId(id))
    }

    fn create_bind_group(&self, desc: &BindGroupDesc) -> Result<BindGroupId> {
        let id = self.id();
        self.create("create-bind-group", id, to_json(desc), None)?;
        Ok(BindGroupId(id))
    }

    fn write(&self, write: Write) -> Result<()> {
        self.call("write", json!({ "write": to_json(&write) }))
            .map(drop)
    }

    /// Past `timeout` without an answer the batch is a hang, and the device hung: the page
    /// may still be running it, and its answer, when it comes, is dropped.
    fn submit(&self, batch: &Submission, timeout: Duration) -> Result<Vec<Vec<u32>>> {
        // The answer's length, known before anything runs: each read's bytes as base64.
        let answer: u64 = batch
            .reads
            .iter()
            .map(|r| r.bytes.div_ceil(3) * 4 + 3)
            .sum();
        if answer > MAX_MESSAGE as u64 {
            return Err(DeviceError::Refused {
                what: "reads of the batch".into(),
                message: format!(
                    "{answer} bytes of base64, over the largest message from the page, {} bytes",
                    MAX_MESSAGE
                ),
            });
        }
        let words = match self.request("submit", json!({ "batch": to_json(batch) }), timeout) {
            Ok(words) => words,
            Err(Failure::TimedOut) => {
                self.hung.store(true, Ordering::SeqCst);
                return Err(DeviceError::Hang(timeout));
            }
            Err(failure) => return Err(error("submit", failure)),
        };
        let Value::Array(reads) = words else {
            return Err(DeviceError::Lost(
                "the browser page answered a batch with no list of reads".into(),
            ));
        };
        reads
            .iter()
            .map(|read| {
                let bytes = read
                    .as_str()
                    .and_then(|text| base64::engine::general_purpose::STANDARD.decode(text).ok())
                    .ok_or_else(|| {
                        DeviceError::Lost("the browser page read back what is not base64".into())
                    })?;
                Ok(bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                    .collect())
            })
            .collect()
    }

    fn release(&self, resource: Resource) {
        self.releases().push(resource);
    }
}

/// The page destroys the device (and with it what it holds) without an answer waited for.
impl Drop for BrowserDevice {
    fn drop(&mut self) {
        let mut request = Map::new();
        request.insert("op".into(), "drop-device".into());
        request.insert("device".into(), self.number.into());
        self.connection.tell(request);
    }
}
