//! The manifest: everything the runtime needs to drive an instrumented shader, as JSON.

use serde::{Deserialize, Serialize};

pub const FORMAT: u32 = 1;

/// Names of the event records in the results buffer, in their order.
pub const EVENTS: [&str; 5] = ["assertion", "postcondition", "watchdog", "stall", "cut"];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The file the shader came from, as given to the instrumenter.
    pub source: String,
    pub entry_point: EntryPoint,
    pub postcondition: Option<EntryPoint>,
    /// The bind group that holds wgstress's bindings; the application uses none of it.
    pub bind_group: u32,
    pub bindings: Bindings,
    /// Layout of the per-run uniform block (`WgstressParams`), as naga laid it out.
    pub params: Layout,
    /// Layout of the per-run results block (`WgstressResults`).
    pub results: Layout,
    /// Layout of one event record inside `results.events`.
    pub event: Layout,
    /// Assertion call sites; an event's `site` is an index into this list.
    pub hooks: Vec<Site>,
    /// Loops under the watchdog; a watchdog event's `site` is an index into this list.
    pub loops: Vec<Site>,
    /// The writes to storage (stores, atomics) after which a run may hold a workgroup
    /// (shaders that can park only; passes/holds.rs): a victim held at `holds[i]` records
    /// place `HOLD_PLACE + i`.
    #[serde(default)]
    pub holds: Vec<Site>,
}

/// The place a victim held after an access records: `HOLD_PLACE` plus the access's index in
/// `Manifest::holds`; a smaller place is a loop's index in `Manifest::loops`.
pub use wgstress_model::run::holds::HOLD_PLACE;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryPoint {
    pub name: String,
    /// Its name in the instrumented WGSL: `name`, unless naga's writer renamed it (one that
    /// WGSL predeclares, such as `step`, is written `step_`). A pipeline asks for this one.
    pub wgsl_name: String,
    pub workgroup_size: [u32; 3],
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bindings {
    /// Uniform `WgstressParams`, bound with a dynamic offset (one block per run).
    pub params: u32,
    /// Storage `WgstressResults`, read-write, bound with a dynamic offset (one block per run).
    pub results: u32,
    /// Storage `array<atomic<u32>>`, the stress scratchpad.
    pub scratch: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    pub size: u32,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub offset: u32,
    pub size: u32,
}

impl Manifest {
    /// Where the hold point at `place` is: a loop, or a write.
    pub fn place_at(&self, place: u32) -> String {
        match place.checked_sub(HOLD_PLACE) {
            Some(access) => self.holds.get(access as usize).map_or_else(
                || format!("write {access}"),
                |s| format!("the write at {}", s.describe(&self.source)),
            ),
            None => self.loop_at(place),
        }
    }

    /// Where loop `site` is, "file:line:column (in function)"; "loop N" for an id this
    /// manifest does not name (a record from another shader, or damaged).
    pub fn loop_at(&self, site: u32) -> String {
        self.loops
            .get(site as usize)
            .map_or_else(|| format!("loop {site}"), |s| s.describe(&self.source))
    }
}

impl Layout {
    /// Byte offset of the field `name`.
    pub fn offset(&self, name: &str) -> Option<u32> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.offset)
    }
}

/// A place in the source: an assertion call or a loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Site {
    pub id: u32,
    pub function: String,
    /// 1-based; absent when the module came without source text.
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl Site {
    /// `file:line:column`, or `file (function f)` without a position.
    pub fn describe(&self, file: &str) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{file}:{l}:{c} (in {})", self.function),
            _ => format!("{file} (in {})", self.function),
        }
    }
}
