//! Line and column of a byte offset in the user's source, from an index of line starts
//! built in one pass: naga's `Span::location` scans the source from its start for every
//! span, which made loading a shader quadratic in its size (a 1 MB shader of small functions
//! took 19 s to instrument, almost all of it counting newlines).

use naga::Span;

#[cfg(test)]
thread_local! {
    /// How many indexes this thread built: one per shader loaded, whatever its size.
    pub static BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(crate) struct LineIndex {
    /// The byte offset at which each line starts; the first is 0.
    starts: Vec<u32>,
}

impl LineIndex {
    pub(crate) fn new(source: &str) -> LineIndex {
        #[cfg(test)]
        BUILT.with(|built| built.set(built.get() + 1));
        let newlines = source
            .bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i as u32 + 1);
        LineIndex {
            starts: std::iter::once(0).chain(newlines).collect(),
        }
    }

    /// The 1-based line and column (in bytes, as naga counts them) where `span` starts.
    pub(crate) fn position(&self, span: Span) -> (u32, u32) {
        let offset = span.to_range().map_or(0, |r| r.start as u32);
        // The last line that starts at or before the offset.
        let line = self.starts.partition_point(|start| *start <= offset);
        let start = self.starts[line - 1];
        (line as u32, offset - start + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as naga's own `Span::location`, at every offset.
    #[test]
    #[expect(clippy::disallowed_methods, reason = "naga's answer is the reference")]
    fn positions_agree_with_naga() {
        let source = "fn a() {}\n\n  let x = 1;\r\nfn b() {}\nlast";
        let index = LineIndex::new(source);
        for start in 0..source.len() as u32 {
            let span = Span::new(start, start + 1);
            let naga = span.location(source);
            assert_eq!(
                index.position(span),
                (naga.line_number, naga.line_position),
                "offset {start}"
            );
        }
    }

    /// Loading a shader scans its source for line starts once, however many names it
    /// checks and places it numbers: locating each from the start of the source made a
    /// 1 MB shader of small functions take 19 s (release) to instrument, a 2 MB one 41 s.
    #[test]
    fn a_shader_is_scanned_for_lines_once() {
        let functions = 400;
        let mut source = String::from(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             fn wgstress_assert(cond: bool) {}\n",
        );
        for i in 0..functions {
            source.push_str(&format!(
                "fn f{i}(x: u32) -> u32 {{\n    var s = x;\n    for (var k = 0u; k < 4u; k++) {{\n        s += k ^ {i}u;\n        wgstress_assert(s != 7u);\n    }}\n    return s;\n}}\n"
            ));
        }
        source.push_str(
            "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    out[id.x] = f0(id.x);\n}\n",
        );
        BUILT.with(|built| built.set(0));
        let out = crate::instrument_wgsl(&source, &Default::default()).unwrap();
        assert_eq!(BUILT.with(|built| built.get()), 1);
        // Every loop and assertion is numbered at its place: function i starts on line
        // 3 + 8 i, its loop on the third line of it, its assertion on the fifth.
        assert_eq!(out.manifest.loops.len(), functions);
        assert_eq!(out.manifest.hooks.len(), functions);
        for (i, (at_loop, hook)) in out
            .manifest
            .loops
            .iter()
            .zip(&out.manifest.hooks)
            .enumerate()
        {
            let first = 3 + 8 * i as u32;
            assert_eq!(
                (at_loop.line, at_loop.column),
                (Some(first + 2), Some(5)),
                "{i}"
            );
            assert_eq!((hook.line, hook.column), (Some(first + 4), Some(9)), "{i}");
        }
    }
}
