//! A progress litmus test as a WGSL compute shader, the seed's way (§6.2): each test thread a
//! program counter and a loop over a `switch` with one case per instruction; an exchange is
//! `atomicExchange`, a read `atomicAdd(.., 0u)` (an atomic read-modify-write, as the seed
//! used to reach the point of coherence), a store `atomicExchange` too.
//!
//! One test thread is one workgroup of one invocation: the progress models are about
//! workgroups, which a GPU schedules independently; invocations of one workgroup share a
//! subgroup's program counter and would not be independent threads.
//!
//! Every instance runs on its own two words of memory; the test's threads of an instance go
//! to workgroups by the mapping (§6.1): plain (one instance, thread i on workgroup i),
//! round-robin (thread i of instance m on workgroup N·m + i) or chunked (on M·i + m); each
//! preserves the order of thread ids within an instance.
//!
//! Each thread's loop is bounded: after `bound` instructions a thread stops and records that
//! it did not terminate, so a run whose test hangs ends by itself. Its status word says
//! which: TERMINATED or GAVE_UP (0 if it never reported).

use crate::axb::AxbTest;
use crate::instr::{Instr, LOCATIONS};
use serde::Serialize;
use std::fmt::Write;

/// A thread's status word: it reached its end.
pub const TERMINATED: u32 = 1;
/// A thread's status word: it ran out of its loop bound.
pub const GAVE_UP: u32 = 2;

/// The binding of memory (2 words per instance), status (one word per instance and thread)
/// and the parameters (`PARAMS` words, a uniform).
pub const BINDINGS: [u32; 3] = [0, 1, 2];
/// The uniform's words: instances, mapping (0 plain, 1 round-robin, 2 chunked), loop bound,
/// and one word of padding.
pub const PARAMS: usize = 4;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mapping {
    Plain,
    RoundRobin,
    Chunked,
}

impl Mapping {
    pub const ALL: [Mapping; 3] = [Mapping::Plain, Mapping::RoundRobin, Mapping::Chunked];

    pub fn name(self) -> &'static str {
        match self {
            Mapping::Plain => "plain",
            Mapping::RoundRobin => "round-robin",
            Mapping::Chunked => "chunked",
        }
    }
}

/// How a run lays a test out: the mapping, and its instances (1 for plain).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct InstanceLayout {
    mapping: Mapping,
    instances: u32,
}

impl InstanceLayout {
    /// Plain runs one instance whatever `instances` says.
    pub fn new(mapping: Mapping, instances: u32) -> InstanceLayout {
        InstanceLayout {
            mapping,
            instances: if mapping == Mapping::Plain {
                1
            } else {
                instances.max(1)
            },
        }
    }

    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    pub fn instances(&self) -> u32 {
        self.instances
    }

    /// Workgroups a run of a test of `threads` threads dispatches.
    pub fn workgroups(&self, threads: usize) -> u32 {
        threads as u32 * self.instances
    }

    /// The uniform's words for a loop bound.
    pub fn params(&self, bound: u32) -> [u32; PARAMS] {
        let mapping = match self.mapping {
            Mapping::Plain => 0,
            Mapping::RoundRobin => 1,
            Mapping::Chunked => 2,
        };
        [self.instances, mapping, bound, 0]
    }

    /// Words of memory and of status a run needs.
    pub fn memory_words(&self) -> u64 {
        u64::from(self.instances) * LOCATIONS as u64
    }

    pub fn status_words(&self, threads: usize) -> u64 {
        u64::from(self.instances) * threads as u64
    }
}

/// The entry point's name.
pub const ENTRY: &str = "main";

/// The shader of `test`, for any layout (the uniform gives it).
pub fn shader(test: &AxbTest) -> String {
    let threads = test.threads();
    let mut s = String::new();
    let _ = writeln!(s, "// A progress litmus test, compiled by wgstress.");
    let _ = writeln!(s, "//");
    for line in test.to_string().lines() {
        let _ = writeln!(s, "//   {line}");
    }
    s.push_str(&declarations(threads.len()));
    for (t, thread) in threads.iter().enumerate() {
        let len = thread.len();
        let _ = write!(
            s,
            "
fn thread_{t}(base: u32) -> u32 {{
    var pc = 0u;
    var steps = 0u;
    loop {{
        if pc >= {len}u || steps >= params.bound {{
            break;
        }}
        steps += 1u;
        switch pc {{
"
        );
        for (pc, instr) in thread.iter().enumerate() {
            let at = |loc: u8| format!("&mem[base + {loc}u]");
            let next = pc + 1;
            let body = match *instr {
                Instr::Store { loc, value } => {
                    format!("atomicExchange({}, {value}u);\n                pc = {next}u;", at(loc))
                }
                Instr::Exch {
                    loc,
                    check,
                    exch,
                    target,
                } => format!(
                    "if atomicExchange({}, {exch}u) == {check}u {{ pc = {}u; }} else {{ pc = {next}u; }}",
                    at(loc),
                    target.pc(len)
                ),
                Instr::Chk { loc, check, target } => format!(
                    "if atomicAdd({}, 0u) == {check}u {{ pc = {}u; }} else {{ pc = {next}u; }}",
                    at(loc),
                    target.pc(len)
                ),
            };
            let _ = writeln!(
                s,
                "            case {pc}u: {{ // {instr}\n                {body}\n            }}"
            );
        }
        let _ = write!(
            s,
            "            default: {{}}
        }}
    }}
    return select(GAVE_UP, TERMINATED, pc >= {len}u);
}}
"
        );
    }
    let mut cases = String::new();
    for t in 0..threads.len() {
        let _ = writeln!(cases, "        case {t}u: {{ result = thread_{t}(base); }}");
    }
    s.push_str(&entry_point(&format!(
        "var result = 0u;
    switch thread {{
{cases}        default: {{}}
    }}"
    )));
    s
}

/// What every test's shader declares: the parameters, the bindings of memory, status and
/// parameters, the thread count and the status words.
pub(crate) fn declarations(threads: usize) -> String {
    format!(
        "
struct Params {{
    instances: u32,
    mapping: u32,
    bound: u32,
    pad: u32,
}}

@group(0) @binding({mem}) var<storage, read_write> mem: array<atomic<u32>>;
@group(0) @binding({status}) var<storage, read_write> status: array<u32>;
@group(0) @binding({params}) var<uniform> params: Params;

const THREADS: u32 = {threads}u;
const TERMINATED: u32 = {TERMINATED}u;
const GAVE_UP: u32 = {GAVE_UP}u;
",
        mem = BINDINGS[0],
        status = BINDINGS[1],
        params = BINDINGS[2],
    )
}

/// The entry point: the workgroup's instance and thread by the mapping, `body` (statements
/// that set `result` from `thread` and `base`, the instance's memory), then its status word.
pub(crate) fn entry_point(body: &str) -> String {
    format!(
        "
@compute @workgroup_size(1)
fn {ENTRY}(@builtin(workgroup_id) group: vec3<u32>) {{
    let w = group.x;
    let m = params.instances;
    if w >= THREADS * m {{
        return;
    }}
    var instance = w / THREADS;
    var thread = w % THREADS;
    if params.mapping == 2u {{
        instance = w % m;
        thread = w / m;
    }}
    let base = instance * {LOCATIONS}u;
    {body}
    status[instance * THREADS + thread] = result;
}}
"
    )
}
