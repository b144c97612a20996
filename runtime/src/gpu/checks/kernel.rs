//! The WGSL of a comparison kernel: a check whose expected words are fixed for the session
//! and compared element by element, run on the device after each run, where the data is.
//! It reads the checked binding's selected elements, compares each with its expected word
//! (one constant, or element k of an `expected` buffer uploaded once per session) and
//! leaves a small result block: how many elements are wrong, and the first `FIRST` of them
//! (their place in the selection and the word found). Only that block is read back.
//!
//! The first wrong elements are found exactly, as the host finds them, in passes that each
//! run after the one before (dispatches of one pass are ordered, and each sees what the
//! last one wrote): `count` counts the wrong elements and keeps the least wrong place;
//! `next` with `PASS = j` keeps the least wrong place after the (j-1)th, and returns at once
//! where fewer than j+1 are wrong (a passing run pays for one scan); `found` reads the words
//! at the places kept. A place is kept as its complement under `atomicMax`, so that a zeroed
//! block means "none" (a place is below the selection's count, never `u32::MAX`).

use crate::app::check::Slice;

/// The wrong elements a result block lists: as many as a report lists.
pub(crate) const FIRST: usize = crate::app::failure::FIRST_FEW;

/// Words of a result block: the count, the places kept, the words found at them.
pub(crate) const BLOCK_WORDS: usize = 1 + 2 * FIRST;

/// Invocations of a workgroup of `count` and `next`.
const GROUP: u32 = 64;

/// Workgroups of `count` and `next` at most; each invocation strides over the selection.
const MAX_GROUPS: u32 = 4096;

/// What each selected element is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Against {
    /// The same word for every element (`all-equal`, `equals` with `fill`).
    Word(u32),
    /// Element k of the `expected` buffer (binding 1) for selected element k.
    Buffer,
}

/// How a found word and an expected word are judged equal, both exactly as the host judges
/// them (`Compare::equal` without a tolerance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Equality {
    /// Bit for bit (u32, i32).
    Bits,
    /// As f32 numbers: +0 equals -0 and any NaN equals any NaN, else bit for bit. Decided on
    /// the bits, so that a device that flushes subnormals judges as the host does.
    F32,
}

/// A comparison kernel: which elements (`count` of them from `slice.start`, every
/// `slice.stride`), against what, judged how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel {
    pub slice: Slice,
    /// Elements compared: the selection's, or fewer where the expected words are fewer.
    pub count: u32,
    pub against: Against,
    pub equality: Equality,
}

/// The entry points, in the order a run dispatches them (`next` once per `PASS` from 1 to
/// `FIRST - 1`).
pub(crate) const COUNT_ENTRY: &str = "count";
pub(crate) const NEXT_ENTRY: &str = "next";
pub(crate) const FOUND_ENTRY: &str = "found";
/// The override that says which wrong element `next` looks for.
pub(crate) const PASS: &str = "PASS";

/// Bindings of the kernel's group 0.
pub(crate) const DATA_BINDING: u32 = 0;
pub(crate) const EXPECTED_BINDING: u32 = 1;
pub(crate) const BLOCK_BINDING: u32 = 2;

impl Kernel {
    /// Workgroups of `count` and `next` (`found` runs one invocation).
    pub(crate) fn groups(&self) -> u32 {
        self.count.div_ceil(GROUP).clamp(1, MAX_GROUPS)
    }

    /// The kernel's WGSL.
    pub(crate) fn wgsl(&self) -> String {
        let step = self.groups() * GROUP;
        let (expected_decl, expect) = match self.against {
            Against::Word(w) => (String::new(), format!("{w}u")),
            Against::Buffer => (
                format!(
                    "@group(0) @binding({EXPECTED_BINDING}) var<storage, read> expected: array<u32>;\n"
                ),
                "expected[k]".to_string(),
            ),
        };
        let same = match self.equality {
            Equality::Bits => "    return got == want;\n".to_string(),
            Equality::F32 => "    if (got == want) { return true; }\n    \
                 let g = got & 0x7fffffffu;\n    \
                 let w = want & 0x7fffffffu;\n    \
                 return (g == 0u && w == 0u) || (g > 0x7f800000u && w > 0x7f800000u);\n"
                .to_string(),
        };
        let Slice { start, stride, .. } = self.slice;
        let (count, first) = (self.count, FIRST);
        format!(
            "struct Block {{
    wrong: atomic<u32>,
    first: array<atomic<u32>, {first}>,
    found: array<u32, {first}>,
}}

@group(0) @binding({DATA_BINDING}) var<storage, read> data: array<u32>;
{expected_decl}@group(0) @binding({BLOCK_BINDING}) var<storage, read_write> block: Block;

const START: u32 = {start}u;
const STRIDE: u32 = {stride}u;
const COUNT: u32 = {count}u;
const STEP: u32 = {step}u;
override {PASS}: u32 = 1u;

fn same(got: u32, want: u32) -> bool {{
{same}}}

fn wrong(k: u32) -> bool {{
    return !same(data[START + k * STRIDE], {expect});
}}

@compute @workgroup_size({GROUP})
fn {COUNT_ENTRY}(@builtin(global_invocation_id) id: vec3<u32>) {{
    var n = 0u;
    var least = 0u;
    for (var k = id.x; k < COUNT; k += STEP) {{
        if (wrong(k)) {{
            n += 1u;
            least = max(least, ~k);
        }}
    }}
    if (n > 0u) {{
        atomicAdd(&block.wrong, n);
        atomicMax(&block.first[0], least);
    }}
}}

@compute @workgroup_size({GROUP})
fn {NEXT_ENTRY}(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (atomicLoad(&block.wrong) <= {PASS}) {{
        return;
    }}
    let after = ~atomicLoad(&block.first[{PASS} - 1u]);
    for (var k = id.x; k < COUNT; k += STEP) {{
        if (k > after && wrong(k)) {{
            atomicMax(&block.first[{PASS}], ~k);
            return;
        }}
    }}
}}

@compute @workgroup_size(1)
fn {FOUND_ENTRY}() {{
    let n = min(atomicLoad(&block.wrong), {first}u);
    for (var j = 0u; j < n; j++) {{
        let k = ~atomicLoad(&block.first[j]);
        block.found[j] = data[START + k * STRIDE];
    }}
}}
"
        )
    }
}

/// A result block read back: the wrong elements' count, and the first of them as (place in
/// the selection, word found), in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub wrong: u32,
    pub first: Vec<(u32, u32)>,
}

impl Block {
    /// The block in `words` (`BLOCK_WORDS` of them).
    pub(crate) fn read(words: &[u32]) -> Block {
        let wrong = words[0];
        let listed = (wrong as usize).min(FIRST);
        Block {
            wrong,
            first: (0..listed)
                .map(|j| (!words[1 + j], words[1 + FIRST + j]))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(against: Against, equality: Equality) -> Kernel {
        Kernel {
            slice: Slice {
                start: 3,
                count: 100,
                stride: 7,
                whole: false,
            },
            count: 100,
            against,
            equality,
        }
    }

    /// The text parses and validates as WGSL, with the entry points a run dispatches.
    fn valid(wgsl: &str) -> naga::Module {
        let module = naga::front::wgsl::parse_str(wgsl).unwrap_or_else(|e| {
            panic!("{}\n{wgsl}", e.emit_to_string(wgsl));
        });
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e:?}\n{wgsl}"));
        module
    }

    #[test]
    fn every_kind_of_kernel_is_valid_wgsl_with_its_entry_points() {
        for against in [Against::Word(0xdead_beef), Against::Buffer] {
            for equality in [Equality::Bits, Equality::F32] {
                let wgsl = kernel(against, equality).wgsl();
                let module = valid(&wgsl);
                let entries: Vec<&str> = module
                    .entry_points
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect();
                assert_eq!(entries, [COUNT_ENTRY, NEXT_ENTRY, FOUND_ENTRY]);
                assert_eq!(
                    wgsl.contains("var<storage, read> expected"),
                    against == Against::Buffer
                );
            }
        }
    }

    #[test]
    fn the_selection_and_the_constant_are_in_the_text() {
        let wgsl = kernel(Against::Word(7), Equality::Bits).wgsl();
        for line in [
            "const START: u32 = 3u;",
            "const STRIDE: u32 = 7u;",
            "const COUNT: u32 = 100u;",
            "const STEP: u32 = 128u;",
            "data[START + k * STRIDE], 7u",
        ] {
            assert!(wgsl.contains(line), "{line} in\n{wgsl}");
        }
    }

    #[test]
    fn large_selections_stride_over_at_most_max_groups() {
        let mut k = kernel(Against::Buffer, Equality::Bits);
        k.count = 1 << 24;
        assert_eq!(k.groups(), MAX_GROUPS);
        assert!(k
            .wgsl()
            .contains(&format!("const STEP: u32 = {}u;", MAX_GROUPS * GROUP)));
        k.count = 1;
        assert_eq!(k.groups(), 1);
    }

    #[test]
    fn a_block_lists_at_most_first_wrong_elements() {
        let mut words = vec![0u32; BLOCK_WORDS];
        assert_eq!(
            Block::read(&words),
            Block {
                wrong: 0,
                first: vec![]
            }
        );
        words[0] = 9;
        for j in 0..FIRST {
            words[1 + j] = !(j as u32 * 2);
            words[1 + FIRST + j] = 100 + j as u32;
        }
        let block = Block::read(&words);
        assert_eq!(block.wrong, 9);
        assert_eq!(block.first.len(), FIRST);
        assert_eq!(block.first[1], (2, 101));
        words[0] = 1;
        assert_eq!(Block::read(&words).first, vec![(0, 100)]);
    }
}
