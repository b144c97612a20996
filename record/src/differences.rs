//! Recordings of one program compared in full: the buffers it made, its dispatch sequence,
//! workgroup counts and bindings, and the bytes it wrote. A spec replays one recording's
//! inputs; where another recording's differ, the program's work depends on more than what a
//! spec holds (a random input, the time, the page's state), and its checks may hold for one
//! load and not the next. What it read back is not compared here: read-back words that
//! differ are left out of the checks (`convert`).

use crate::recording::{Event, Recording};

/// One way a later recording differs from the first.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The later recording's number (the first is 1).
    pub recording: usize,
    /// The call site in the first recording (or in the later one where the first has none).
    pub at: String,
    /// What differs, the first recording's value before the later one's.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "recordings 1 and {} differ at {}: {}",
            self.recording,
            if self.at.is_empty() {
                "the program"
            } else {
                &self.at
            },
            self.what
        )
    }
}

/// How later recordings differ from the first, in the order of the first's timeline; at
/// most one difference per recording past the point where their timelines part.
pub fn compare(recordings: &[Recording]) -> Vec<Difference> {
    let Some((first, rest)) = recordings.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, other) in rest.iter().enumerate() {
        compare_two(first, other, k + 2, &mut out);
    }
    out
}

/// An event's kind and what it names, for a timeline that took another path.
fn shape(e: &Event) -> String {
    match e {
        Event::Write { buffer, .. } => format!("a write to buffer {buffer}"),
        Event::Dispatch { pipeline, .. } => match pipeline {
            Some(p) => format!("a dispatch of pipeline {p}"),
            None => "a dispatch".to_string(),
        },
        Event::Copy { src, dst, .. } => format!("a copy from buffer {src} to {dst}"),
        Event::Clear { buffer, .. } => format!("a clear of buffer {buffer}"),
        Event::Submit { submit } => format!("submit {submit}"),
        Event::Read { buffer, .. } => format!("a read of buffer {buffer}"),
    }
}

fn at_of(e: &Event) -> &str {
    match e {
        Event::Write { at, .. }
        | Event::Dispatch { at, .. }
        | Event::Copy { at, .. }
        | Event::Clear { at, .. }
        | Event::Read { at, .. } => at,
        Event::Submit { .. } => "",
    }
}

/// A buffer by its label (escaped: a label is the program's text, and may hold control
/// characters), else by its number.
fn name(r: &Recording, buffer: usize) -> String {
    match r.buffers.get(buffer) {
        Some(b) if !b.label.is_empty() => format!("`{}`", b.label.escape_debug()),
        _ => format!("#{buffer}"),
    }
}

fn compare_two(first: &Recording, other: &Recording, k: usize, out: &mut Vec<Difference>) {
    let mut say = |at: &str, what: String| {
        out.push(Difference {
            recording: k,
            at: at.to_string(),
            what,
        })
    };
    for (i, (a, b)) in first.buffers.iter().zip(&other.buffers).enumerate() {
        if (a.size, a.usage) != (b.size, b.usage) {
            say(
                &a.at,
                format!(
                    "buffer {} is {} bytes (usage {:#x}) against {} bytes (usage {:#x})",
                    name(first, i),
                    a.size,
                    a.usage,
                    b.size,
                    b.usage
                ),
            );
        }
    }
    if first.buffers.len() != other.buffers.len() {
        say(
            "",
            format!(
                "{} buffers against {}",
                first.buffers.len(),
                other.buffers.len()
            ),
        );
    }
    for (i, (a, b)) in first.bind_groups.iter().zip(&other.bind_groups).enumerate() {
        let entries = |g: &crate::recording::BindGroup| {
            g.entries
                .iter()
                .map(|e| (e.binding, e.buffer, e.offset, e.size))
                .collect::<Vec<_>>()
        };
        if entries(a) != entries(b) {
            say(
                &a.at,
                format!("bind group {i} binds other buffers or ranges"),
            );
        }
    }
    for (i, (a, b)) in first.pipelines.iter().zip(&other.pipelines).enumerate() {
        fn code<'r>(r: &'r Recording, p: &crate::recording::Pipeline) -> Option<&'r String> {
            p.shader.and_then(|s| r.shaders.get(s)).map(|s| &s.code)
        }
        if a.entry_point != b.entry_point
            || a.constants != b.constants
            || code(first, a) != code(other, b)
        {
            say(
                &a.at,
                format!("pipeline {i} has another shader, entry point or constants"),
            );
        }
    }
    let n = first.timeline.len().max(other.timeline.len());
    for index in 0..n {
        let (a, b) = (first.timeline.get(index), other.timeline.get(index));
        let (Some(a), Some(b)) = (a, b) else {
            let at = a.or(b).map_or("", at_of);
            say(
                at,
                format!(
                    "the timelines part at entry {index}: {} against {}",
                    a.map_or("the end".into(), shape),
                    b.map_or("the end".into(), shape)
                ),
            );
            return;
        };
        if shape(a) != shape(b) {
            say(
                at_of(a),
                format!(
                    "the timelines part at entry {index}: {} against {}",
                    shape(a),
                    shape(b)
                ),
            );
            return;
        }
        if let Some(what) = differs(a, b, &|buffer| name(first, buffer)) {
            say(at_of(a), what);
        }
    }
}

/// What differs between two events of the same shape, but for what was read back.
fn differs(a: &Event, b: &Event, name: &dyn Fn(usize) -> String) -> Option<String> {
    match (a, b) {
        (
            Event::Write {
                buffer,
                offset: o1,
                data: d1,
                ..
            },
            Event::Write {
                offset: o2,
                data: d2,
                ..
            },
        ) => {
            if o1 != o2 {
                return Some(format!(
                    "a write to {} at byte {o1} against {o2}",
                    name(*buffer)
                ));
            }
            let (x, y) = (
                crate::base64_data::decode_base64(d1).unwrap_or_default(),
                crate::base64_data::decode_base64(d2).unwrap_or_default(),
            );
            if x.len() != y.len() {
                return Some(format!(
                    "a write of {} bytes to {} against {}",
                    x.len(),
                    name(*buffer),
                    y.len()
                ));
            }
            let words = x.chunks(4).zip(y.chunks(4)).filter(|(p, q)| p != q).count();
            (words > 0).then(|| {
                format!(
                    "the program wrote other data into {}: {words} of {} words differ",
                    name(*buffer),
                    x.len().div_ceil(4)
                )
            })
        }
        (
            Event::Dispatch {
                counts: c1,
                groups: g1,
                indirect: i1,
                ..
            },
            Event::Dispatch {
                counts: c2,
                groups: g2,
                indirect: i2,
                ..
            },
        ) => {
            if c1 != c2 {
                let show = |c: &Option<[u32; 3]>| {
                    c.map_or("unknown".to_string(), |c| {
                        format!("[{}, {}, {}]", c[0], c[1], c[2])
                    })
                };
                return Some(format!("workgroups {} against {}", show(c1), show(c2)));
            }
            let groups = |g: &[crate::recording::GroupAt]| {
                g.iter()
                    .map(|g| (g.index, g.group, g.offsets.clone()))
                    .collect::<Vec<_>>()
            };
            if groups(g1) != groups(g2) {
                return Some("a dispatch with other bind groups".to_string());
            }
            let place = |i: &Option<crate::recording::Indirect>| i.map(|i| (i.buffer, i.offset));
            (place(i1) != place(i2)).then(|| "an indirect dispatch from elsewhere".to_string())
        }
        (
            Event::Copy {
                src_offset: s1,
                dst_offset: d1,
                size: n1,
                ..
            },
            Event::Copy {
                src_offset: s2,
                dst_offset: d2,
                size: n2,
                ..
            },
        ) => ((s1, d1, n1) != (s2, d2, n2)).then(|| "a copy of another range".to_string()),
        (
            Event::Clear {
                offset: o1,
                size: n1,
                ..
            },
            Event::Clear {
                offset: o2,
                size: n2,
                ..
            },
        ) => ((o1, n1) != (o2, n2)).then(|| "a clear of another range".to_string()),
        _ => None,
    }
}

/// Whether `other` took the path `first` did (the same sequence of calls), so that what it
/// read back can be set beside the first's, word by word.
pub fn same_path(first: &Recording, other: &Recording) -> bool {
    first.timeline.len() == other.timeline.len()
        && first
            .timeline
            .iter()
            .zip(&other.timeline)
            .all(|(a, b)| shape(a) == shape(b))
}
