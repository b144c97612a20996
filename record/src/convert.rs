//! From a recording to a spec: the queue's timeline walked once, in the GPU's order.
//!
//! Every buffer a dispatch binds becomes a binding, keyed in the bind group where it is bound;
//! what the program wrote before the first dispatch becomes its initial contents; each
//! dispatch becomes a `[[dispatch]]` with its binding map; words written into a uniform
//! between dispatches become that dispatch's uniform words; and what the program read back
//! after the last dispatch (directly, or from a buffer it copied there) becomes the checks.

use crate::error::{not_replayable, RecordError};
use crate::recording::{Buffer, Event, Recording};
use crate::spec::{
    RecordedBinding, RecordedCheck, RecordedDispatch, RecordedKind, RecordedShader, RecordedSpec,
};
use std::collections::BTreeMap;

/// Where a buffer's words came from, for a buffer that no dispatch binds (a staging buffer
/// read back): per word, (source buffer, word index in it) when a copy put it there.
type Provenance = Vec<Option<(usize, u64)>>;

struct Walk<'a> {
    recording: &'a Recording,
    /// Buffer -> its binding (index into `bindings`).
    bound: BTreeMap<usize, usize>,
    bindings: Vec<RecordedBinding>,
    contents: Vec<Vec<u8>>,
    provenance: BTreeMap<usize, Provenance>,
    dispatches: Vec<RecordedDispatch>,
    shaders: BTreeMap<usize, usize>,
    spec_shaders: Vec<RecordedShader>,
    constants: BTreeMap<String, f64>,
    /// Uniforms the program wrote after the first dispatch: (binding index) -> bytes up to
    /// the furthest write. Every later dispatch gives them the words they held then: a
    /// dispatch's uniform words replace the binding's initial contents for that dispatch only.
    written_uniforms: BTreeMap<usize, usize>,
    /// Per read event of the timeline: the check it gives, and the dispatches before it.
    reads: Vec<(usize, RecordedCheck)>,
    /// Per read of the timeline, the byte ranges of the mapped buffer that a second
    /// recording read differently.
    differing: BTreeMap<usize, Vec<(u64, u64)>>,
    notes: Vec<String>,
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Word indices (sorted) as ranges, the first few: "words 3, 8..12 and 40 more".
fn word_ranges(words: &[u64]) -> String {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &w in words {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == w => *end = w,
            _ => runs.push((w, w)),
        }
    }
    const SHOWN: usize = 4;
    let mut parts: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                format!("{a}")
            } else {
                format!("{a}..={b}")
            }
        })
        .collect();
    if runs.len() > SHOWN {
        let rest: u64 = runs[SHOWN..].iter().map(|(a, b)| b - a + 1).sum();
        parts.push(format!("{rest} more"));
    }
    format!(
        "word{} {}",
        if words.len() == 1 { "" } else { "s" },
        parts.join(", ")
    )
}

fn kind_of(buffer: &Buffer) -> RecordedKind {
    if buffer.usage & Buffer::STORAGE == 0 && buffer.usage & Buffer::UNIFORM != 0 {
        RecordedKind::Uniform
    } else {
        RecordedKind::Storage
    }
}

/// The spec that replays `recording`; `again`, more recordings of the same program, mark the
/// read-back words that differ from the first as not deterministic: they are not checked.
pub fn convert(recording: &Recording, again: &[Recording]) -> Result<RecordedSpec, RecordError> {
    if !(1..=2).contains(&recording.version) {
        return Err(RecordError::Malformed(format!(
            "a recording of version {} (this wgstress reads versions 1 and 2)",
            recording.version
        )));
    }
    // Every buffer is held in memory while the spec is made: their sizes are checked first.
    let total = recording
        .buffers
        .iter()
        .fold(0u64, |sum, b| sum.saturating_add(b.size));
    if total > crate::trace::ALL_BUFFER_BYTES {
        return Err(RecordError::Malformed(format!(
            "buffers of {total} bytes in all: a recording's buffers may hold {} bytes",
            crate::trace::ALL_BUFFER_BYTES
        )));
    }
    let mut differing: BTreeMap<usize, Vec<(u64, u64)>> = BTreeMap::new();
    for other in again {
        for (read, ranges) in differing_bytes(recording, other)? {
            differing.entry(read).or_default().extend(ranges);
        }
    }
    let mut walk = Walk {
        recording,
        bound: BTreeMap::new(),
        bindings: Vec::new(),
        contents: recording
            .buffers
            .iter()
            .map(|b| vec![0u8; b.size as usize])
            .collect(),
        provenance: BTreeMap::new(),
        dispatches: Vec::new(),
        shaders: BTreeMap::new(),
        spec_shaders: Vec::new(),
        constants: BTreeMap::new(),
        written_uniforms: BTreeMap::new(),
        reads: Vec::new(),
        differing,
        notes: Vec::new(),
    };
    walk.assign_bindings()?;
    for (index, event) in recording.timeline.iter().enumerate() {
        walk.step(index, event)?;
    }
    if walk.dispatches.is_empty() {
        return Err(RecordError::NoDispatch);
    }
    let mut spec = walk.finish();
    crate::fit::fit(&mut spec);
    Ok(spec)
}

impl Walk<'_> {
    fn buffer(&self, id: usize, at: &str) -> Result<&Buffer, RecordError> {
        self.recording
            .buffers
            .get(id)
            .ok_or_else(|| not_replayable(at, format!("buffer {id} was not recorded")))
    }

    /// Gives every buffer a dispatch binds its (group, binding): the group it is bound in,
    /// the slot it is first bound at when that number is free there.
    fn assign_bindings(&mut self) -> Result<(), RecordError> {
        for event in &self.recording.timeline {
            let Event::Dispatch { groups, at, .. } = event else {
                continue;
            };
            for g in groups {
                let Some(group) = g.group else { continue };
                let bind_group = self.recording.bind_groups.get(group).ok_or_else(|| {
                    not_replayable(at, format!("bind group {group} was not recorded"))
                })?;
                for entry in &bind_group.entries {
                    if let Some(&b) = self.bound.get(&entry.buffer) {
                        if self.bindings[b].group != g.index {
                            return Err(not_replayable(
                                at,
                                format!(
                                    "buffer {} is bound in group {} here and in group {} \
                                     before: a spec binds each buffer in one group",
                                    self.name(entry.buffer),
                                    g.index,
                                    self.bindings[b].group
                                ),
                            ));
                        }
                        continue;
                    }
                    let buffer = self.buffer(entry.buffer, at)?.clone();
                    // A binding's size is a count of 32-bit words.
                    let most = u64::from(u32::MAX) * 4;
                    if buffer.size > most {
                        return Err(not_replayable(
                            &buffer.at,
                            format!(
                                "buffer {} is {} bytes, more than a spec binding holds ({most} \
                                 bytes: 2^32 - 1 words)",
                                self.name(entry.buffer),
                                buffer.size
                            ),
                        ));
                    }
                    let taken = |n: u32| {
                        self.bindings
                            .iter()
                            .any(|b| b.group == g.index && b.binding == n)
                    };
                    let mut binding = entry.binding;
                    if taken(binding) {
                        binding = (0..).find(|&n| !taken(n)).unwrap_or(0);
                    }
                    self.bound.insert(entry.buffer, self.bindings.len());
                    self.bindings.push(RecordedBinding {
                        group: g.index,
                        binding,
                        kind: kind_of(&buffer),
                        words: buffer.size.div_ceil(4) as u32,
                        init: None,
                        label: buffer.label.clone(),
                        at: buffer.at.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    fn name(&self, buffer: usize) -> String {
        match self.recording.buffers.get(buffer) {
            Some(b) if !b.label.is_empty() => format!("`{}`", b.label),
            _ => format!("#{buffer}"),
        }
    }

    fn write(
        &mut self,
        buffer: usize,
        offset: u64,
        bytes: &[u8],
        at: &str,
    ) -> Result<(), RecordError> {
        let size = self.buffer(buffer, at)?.size;
        let end = offset.saturating_add(bytes.len() as u64);
        if end > size {
            return Err(not_replayable(
                at,
                format!(
                    "a write to {} ends at byte {end}, past its {size}",
                    self.name(buffer)
                ),
            ));
        }
        self.contents[buffer][offset as usize..end as usize].copy_from_slice(bytes);
        self.provenance.remove(&buffer);
        if let Some(&b) = self.bound.get(&buffer) {
            if !self.dispatches.is_empty() {
                match self.bindings[b].kind {
                    RecordedKind::Uniform => {
                        let upto = self.written_uniforms.entry(b).or_insert(0);
                        *upto = (*upto).max(end as usize);
                    }
                    RecordedKind::Storage => {
                        return Err(not_replayable(
                            at,
                            format!(
                                "the program wrote storage buffer {} between dispatches; a \
                                 spec gives storage buffers their contents once, before a run",
                                self.name(buffer)
                            ),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    fn step(&mut self, index: usize, event: &Event) -> Result<(), RecordError> {
        match event {
            Event::Write {
                buffer,
                offset,
                data,
                at,
            } => {
                let bytes = crate::base64_data::decode_base64(data).ok_or_else(|| {
                    RecordError::Malformed(format!(
                        "the recording's timeline entry {index}: data is not base64"
                    ))
                })?;
                self.write(*buffer, *offset, &bytes, at)
            }
            Event::Clear {
                buffer,
                offset,
                size,
                at,
            } => {
                let total = self.buffer(*buffer, at)?.size;
                let size = size.unwrap_or(total.saturating_sub(*offset));
                // Checked before the zeros are made: the size is the program's word.
                self.within(*buffer, *offset, size, "a clear of", at)?;
                self.write(*buffer, *offset, &vec![0; size as usize], at)
            }
            Event::Copy {
                src,
                src_offset,
                dst,
                dst_offset,
                size,
                at,
            } => self.copy(*src, *src_offset, *dst, *dst_offset, *size, at),
            Event::Dispatch {
                pipeline,
                groups,
                counts,
                indirect,
                at,
                ..
            } => self.dispatch(*pipeline, groups, *counts, indirect.is_some(), at),
            Event::Submit { .. } => Ok(()),
            Event::Read {
                buffer,
                offset,
                data,
                at,
                ..
            } => {
                let bytes = crate::base64_data::decode_base64(data).ok_or_else(|| {
                    RecordError::Malformed(format!(
                        "the recording's timeline entry {index}: data is not base64"
                    ))
                })?;
                self.read(index, *buffer, *offset, &bytes, at)
            }
        }
    }

    /// The end of bytes `offset..offset + size` of `buffer`; an error naming `what` when they
    /// do not lie within it.
    fn within(
        &self,
        buffer: usize,
        offset: u64,
        size: u64,
        what: &str,
        at: &str,
    ) -> Result<u64, RecordError> {
        let total = self.buffer(buffer, at)?.size;
        match offset.checked_add(size) {
            Some(end) if end <= total => Ok(end),
            _ => Err(not_replayable(
                at,
                format!(
                    "{what} {} at byte {offset} of {size} bytes ends past its {total}",
                    self.name(buffer)
                ),
            )),
        }
    }

    fn copy(
        &mut self,
        src: usize,
        src_offset: u64,
        dst: usize,
        dst_offset: u64,
        size: Option<u64>,
        at: &str,
    ) -> Result<(), RecordError> {
        let src_size = self.buffer(src, at)?.size;
        let size = size.unwrap_or(src_size.saturating_sub(src_offset));
        if self.bound.contains_key(&dst) && !self.dispatches.is_empty() {
            return Err(not_replayable(
                at,
                format!(
                    "the program copied into {}, which a dispatch binds, between dispatches; a \
                     spec has no copies",
                    self.name(dst)
                ),
            ));
        }
        let src_end = self.within(src, src_offset, size, "a copy from", at)?;
        self.within(dst, dst_offset, size, "a copy into", at)?;
        let bytes = self.contents[src][src_offset as usize..src_end as usize].to_vec();
        // A copy out of a bound buffer after a dispatch carries words the GPU computed: what
        // is read from the destination is that buffer's, at those words.
        let from_gpu = self.bound.contains_key(&src) && !self.dispatches.is_empty();
        let earlier = self.provenance.get(&src).cloned();
        self.write(dst, dst_offset, &bytes, at)?;
        if from_gpu || earlier.is_some() {
            let words = self.recording.buffers[dst].size.div_ceil(4) as usize;
            let mut p: Provenance = vec![None; words];
            for k in 0..size / 4 {
                let d = (dst_offset / 4 + k) as usize;
                let s = src_offset / 4 + k;
                p[d] = match &earlier {
                    Some(e) => e.get(s as usize).copied().flatten(),
                    None => Some((src, s)),
                };
            }
            self.provenance.insert(dst, p);
        }
        Ok(())
    }

    fn dispatch(
        &mut self,
        pipeline: Option<usize>,
        groups: &[crate::recording::GroupAt],
        counts: Option<[u32; 3]>,
        indirect: bool,
        at: &str,
    ) -> Result<(), RecordError> {
        let recording = self.recording;
        let pipeline = pipeline
            .and_then(|p| recording.pipelines.get(p))
            .ok_or_else(|| not_replayable(at, "a dispatch without a pipeline the recorder saw"))?;
        let module = pipeline.shader.ok_or_else(|| {
            not_replayable(&pipeline.at, "a pipeline's shader module was not recorded")
        })?;
        let code = recording.shaders.get(module).ok_or_else(|| {
            not_replayable(&pipeline.at, "a pipeline's shader module was not recorded")
        })?;
        let shader = match self.shaders.get(&module) {
            Some(&s) => s,
            None => {
                // Two modules of the same text are one file.
                let same = self.spec_shaders.iter().position(|s| s.code == code.code);
                let s = same.unwrap_or_else(|| {
                    self.spec_shaders.push(RecordedShader {
                        code: code.code.clone(),
                        file: code.file.clone(),
                        label: code.label.clone(),
                        at: code.at.clone(),
                    });
                    self.spec_shaders.len() - 1
                });
                self.shaders.insert(module, s);
                s
            }
        };
        for (name, value) in &pipeline.constants {
            match self.constants.get(name) {
                Some(v) if v != value => {
                    return Err(not_replayable(
                        &pipeline.at,
                        format!(
                            "override `{name}` is {value} here and {v} in an earlier pipeline; a \
                             spec gives each override one value"
                        ),
                    ))
                }
                _ => {
                    self.constants.insert(name.clone(), *value);
                }
            }
        }
        let Some(workgroups) = counts else {
            return Err(not_replayable(
                at,
                "an indirect dispatch whose counts the recorder could not read back (the \
                 program ended first)",
            ));
        };
        if self.dispatches.is_empty() {
            for (&buffer, &b) in &self.bound {
                let words = words_of(&self.contents[buffer]);
                if words.iter().any(|&w| w != 0) {
                    self.bindings[b].init = Some(words);
                }
            }
        }
        let mut bind = Vec::new();
        for g in groups {
            let Some(group) = g.group else { continue };
            if g.offsets.iter().any(|&o| o != 0) {
                return Err(not_replayable(
                    at,
                    format!(
                        "bind group {} with dynamic offsets {:?}",
                        g.index, g.offsets
                    ),
                ));
            }
            let mut seen = Vec::new();
            for entry in &recording.bind_groups[group].entries {
                let buffer = &recording.buffers[entry.buffer];
                let whole = entry.offset == 0 && entry.size.is_none_or(|s| s == buffer.size);
                if !whole {
                    return Err(not_replayable(
                        &recording.bind_groups[group].at,
                        format!(
                            "binding {} is bytes {}..{} of {}; a spec binds whole buffers",
                            entry.binding,
                            entry.offset,
                            entry.offset.saturating_add(
                                entry
                                    .size
                                    .unwrap_or(buffer.size.saturating_sub(entry.offset))
                            ),
                            self.name(entry.buffer)
                        ),
                    ));
                }
                let b = self.bound[&entry.buffer];
                if seen.contains(&b) {
                    return Err(not_replayable(
                        at,
                        format!(
                            "{} is bound at two slots of one dispatch",
                            self.name(entry.buffer)
                        ),
                    ));
                }
                seen.push(b);
                if self.bindings[b].binding != entry.binding {
                    bind.push((g.index, entry.binding, self.bindings[b].binding));
                }
            }
        }
        let uniforms = self
            .written_uniforms
            .iter()
            .map(|(&b, &upto)| {
                let buffer = self
                    .bound
                    .iter()
                    .find(|(_, &i)| i == b)
                    .map(|(&buffer, _)| buffer)
                    .unwrap_or_default();
                let words = words_of(&self.contents[buffer][..upto.div_ceil(4) * 4]);
                (self.bindings[b].group, self.bindings[b].binding, words)
            })
            .collect();
        self.dispatches.push(RecordedDispatch {
            shader,
            entry: pipeline.entry_point.clone(),
            workgroups,
            bind,
            uniforms,
            label: pipeline.label.clone(),
            at: at.to_string(),
            indirect,
        });
        Ok(())
    }

    fn read(
        &mut self,
        index: usize,
        buffer: usize,
        offset: u64,
        bytes: &[u8],
        at: &str,
    ) -> Result<(), RecordError> {
        // Whole words only: a word read in part is not checked.
        let first = offset.div_ceil(4);
        let end = (offset + bytes.len() as u64) / 4;
        // Per word read, whether a byte of it differed: marked range by range, so that a
        // read-back that differs everywhere costs its length, not its length squared.
        let mut differs = vec![false; end.saturating_sub(first) as usize];
        for &(a, b) in self.differing.get(&index).into_iter().flatten() {
            for k in (a / 4).max(first)..b.div_ceil(4).min(end) {
                differs[(k - first) as usize] = true;
            }
        }
        let varies = |k: u64| differs[(k - first) as usize];
        let varying: Vec<u64> = (first..end).filter(|&k| varies(k)).collect();
        if !varying.is_empty() {
            self.notes.push(format!(
                "{} is not deterministic: {} of the {} words read at {at} differed \
                 between recordings ({}), and are not checked",
                self.name(buffer),
                varying.len(),
                end.saturating_sub(first),
                word_ranges(&varying)
            ));
        }
        let value = |k: u64| {
            let i = (k * 4 - offset) as usize;
            u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]])
        };
        let mut by_binding: BTreeMap<usize, Vec<(u32, u32)>> = BTreeMap::new();
        let through = if let Some(&b) = self.bound.get(&buffer) {
            by_binding.insert(
                b,
                (first..end)
                    .filter(|&k| !varies(k))
                    .map(|k| (k as u32, value(k)))
                    .collect(),
            );
            None
        } else {
            let Some(p) = self.provenance.get(&buffer) else {
                // Read back what the host itself put there: nothing of the GPU's to check.
                return Ok(());
            };
            for k in (first..end).filter(|&k| !varies(k)) {
                if let Some(Some((src, word))) = p.get(k as usize) {
                    if let Some(&b) = self.bound.get(src) {
                        by_binding
                            .entry(b)
                            .or_default()
                            .push((*word as u32, value(k)));
                    }
                }
            }
            Some(self.name(buffer))
        };
        for (b, words) in by_binding {
            let check = RecordedCheck {
                group: self.bindings[b].group,
                binding: self.bindings[b].binding,
                words,
                at: at.to_string(),
                through: through.clone(),
            };
            self.reads.push((self.dispatches.len(), check));
        }
        Ok(())
    }

    fn finish(mut self) -> RecordedSpec {
        let last = self.dispatches.len();
        let mut checks = Vec::new();
        for (before, check) in std::mem::take(&mut self.reads) {
            if before < last {
                self.notes.push(format!(
                    "the program read back binding {}:{} after dispatch {before} of {last} \
                     ({}): what it did next may depend on it, and the spec replays what it did \
                     in this run",
                    check.group, check.binding, check.at
                ));
            } else if !check.words.is_empty() {
                checks.push(check);
            }
        }
        for u in &self.recording.unsupported {
            self.notes.push(format!(
                "left out: {} at {} (a spec holds compute work only)",
                u.call, u.at
            ));
        }
        if self.dispatches.iter().any(|d| d.indirect) {
            self.notes.push(
                "indirect dispatches are replayed with the workgroup counts they used in this run"
                    .to_string(),
            );
        }
        RecordedSpec {
            shaders: self.spec_shaders,
            dispatches: self.dispatches,
            bindings: self.bindings,
            checks,
            constants: self.constants,
            notes: self.notes,
        }
    }
}

/// Per read of the timeline, the byte ranges (relative to the mapped buffer) where the two
/// recordings read different bytes.
fn differing_bytes(
    first: &Recording,
    second: &Recording,
) -> Result<BTreeMap<usize, Vec<(u64, u64)>>, RecordError> {
    let shape = |e: &Event| match e {
        Event::Write { buffer, .. } => format!("a write to buffer {buffer}"),
        Event::Dispatch { pipeline, .. } => format!("a dispatch of pipeline {pipeline:?}"),
        Event::Copy { src, dst, .. } => format!("a copy from buffer {src} to {dst}"),
        Event::Clear { buffer, .. } => format!("a clear of buffer {buffer}"),
        Event::Submit { submit } => format!("submit {submit}"),
        Event::Read { buffer, .. } => format!("a read of buffer {buffer}"),
    };
    let mut out = BTreeMap::new();
    let n = first.timeline.len().max(second.timeline.len());
    for index in 0..n {
        let (Some(a), Some(b)) = (first.timeline.get(index), second.timeline.get(index)) else {
            return Err(RecordError::Diverged {
                index,
                first: first.timeline.get(index).map_or("the end".into(), shape),
                second: second.timeline.get(index).map_or("the end".into(), shape),
            });
        };
        if shape(a) != shape(b) {
            return Err(RecordError::Diverged {
                index,
                first: shape(a),
                second: shape(b),
            });
        }
        if let (
            Event::Read {
                offset, data: x, ..
            },
            Event::Read { data: y, .. },
        ) = (a, b)
        {
            let x = crate::base64_data::decode_base64(x).unwrap_or_default();
            let y = crate::base64_data::decode_base64(y).unwrap_or_default();
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            for i in 0..x.len().max(y.len()) {
                if x.get(i) != y.get(i) {
                    let at = offset + i as u64;
                    match ranges.last_mut() {
                        Some((_, end)) if *end == at => *end = at + 1,
                        _ => ranges.push((at, at + 1)),
                    }
                }
            }
            if !ranges.is_empty() {
                out.insert(index, ranges);
            }
        }
    }
    Ok(out)
}
