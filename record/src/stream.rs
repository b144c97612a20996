//! A recording as the recorder streams it: its JSON without the bytes, and a data file beside
//! it that holds, one after another, every byte the program wrote and read. Each write and
//! read of the JSON's timeline names its bytes as `{ "start", "length" }` in the data file.

use crate::error::RecordError;
use crate::recording::Recording;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The recording in `json`, its bytes read from the data file `data`.
pub fn read_recording(json: &str, data: &Path) -> Result<Recording, RecordError> {
    let malformed = |what: String| RecordError::Malformed(format!("the recording: {what}"));
    let mut value: Value =
        serde_json::from_str(json).map_err(|e| malformed(format!("not JSON: {e}")))?;
    let mut file =
        std::fs::File::open(data).map_err(|e| malformed(format!("{}: {e}", data.display())))?;
    let size = file
        .metadata()
        .map_err(|e| malformed(format!("{}: {e}", data.display())))?
        .len();
    if let Some(timeline) = value.get_mut("timeline").and_then(Value::as_array_mut) {
        for (index, event) in timeline.iter_mut().enumerate() {
            let Some(span) = event.get("data").filter(|d| d.is_object()) else {
                continue;
            };
            let (Some(start), Some(length)) = (span["start"].as_u64(), span["length"].as_u64())
            else {
                return Err(malformed(format!(
                    "timeline entry {index}: its data is no {{ start, length }}"
                )));
            };
            if start.checked_add(length).is_none_or(|end| end > size) {
                return Err(malformed(format!(
                    "timeline entry {index}: bytes {start}..+{length} are beyond the {size} \
                     bytes of its data file"
                )));
            }
            let mut bytes = vec![0u8; length as usize];
            file.seek(SeekFrom::Start(start))
                .and_then(|_| file.read_exact(&mut bytes))
                .map_err(|e| malformed(format!("{}: {e}", data.display())))?;
            event["data"] = Value::String(crate::base64_data::encode_base64(&bytes));
        }
    }
    serde_json::from_value(value).map_err(|e| malformed(e.to_string()))
}
