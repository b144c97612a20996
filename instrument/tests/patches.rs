//! Source patches on small shaders: a fix as an edit of the user's own text, every byte
//! outside the edits kept, accepted by naga and by Tint, and refused (with the reason and
//! the place) where the text cannot say what the IR-level fix does.

use wgstress_instrument::placement::{analyse, Analysis, Side, SourcePatch, Why};
use wgstress_instrument::InstrumentOptions;
use wgstress_tint::{assert_valid, NamedWgsl as Shader};

fn analysis(source: &str, atomic: Option<&str>) -> Analysis {
    let options = InstrumentOptions {
        file_name: Some("test.wgsl".into()),
        ..Default::default()
    };
    let atomic: Vec<String> = atomic.into_iter().map(String::from).collect();
    analyse(source, &options, &atomic).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

/// The site on `side` of the access at `line:column`.
fn site(analysis: &Analysis, side: Side, line: u32, column: u32) -> u32 {
    analysis
        .sites
        .iter()
        .find(|s| s.side == side && s.line == line && s.column == column)
        .unwrap_or_else(|| panic!("no site {side:?} {line}:{column}: {:?}", analysis.sites))
        .id
}

fn patch(analysis: &Analysis, chosen: &[u32]) -> SourcePatch {
    analysis
        .source_patch(chosen)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The lines of `patched` that are not lines of `original`, and the other way round: what
/// a line diff changes.
fn changed(original: &str, patched: &str) -> (Vec<String>, Vec<String>) {
    let (a, b): (Vec<&str>, Vec<&str>) = (original.lines().collect(), patched.lines().collect());
    let removed = a.iter().filter(|l| !b.contains(l)).map(|l| l.to_string());
    let added = b.iter().filter(|l| !a.contains(l)).map(|l| l.to_string());
    (removed.collect(), added.collect())
}

const RACY: &str =
    "// Every thread adds one to a shared counter without an atomic: updates are lost.
@group(0) @binding(0) var<storage, read_write> counter: u32;

@compute @workgroup_size(64)
fn main() {
    let seen = counter; // the old count
    counter = seen + 1u;
}
";

#[test]
fn a_racy_counter_made_atomic_changes_only_its_declaration_and_accesses() {
    let a = analysis(RACY, Some("counter"));
    let fixed = patch(&a, &[]);
    let edits: Vec<(String, String, String)> = a
        .atomic_edits()
        .unwrap()
        .into_iter()
        .map(|e| (e.at.to_string(), e.was, e.becomes))
        .collect();
    assert_eq!(
        edits,
        [
            ("test.wgsl:2:57".into(), "u32".into(), "atomic<u32>".into()),
            (
                "test.wgsl:6:5".into(),
                "let seen = counter;".into(),
                String::new()
            ),
            (
                "test.wgsl:7:5".into(),
                "counter = seen + 1u;".into(),
                "atomicAdd(&counter, 1u);".into()
            ),
        ]
    );
    let (removed, added) = changed(RACY, &fixed.text);
    assert_eq!(
        removed,
        [
            "@group(0) @binding(0) var<storage, read_write> counter: u32;",
            "    let seen = counter; // the old count",
            "    counter = seen + 1u;",
        ]
    );
    assert_eq!(
        added,
        [
            "@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;",
            "    // the old count",
            "    atomicAdd(&counter, 1u);",
        ]
    );
    assert_eq!(fixed.changed_lines(), 6);
    assert!(
        fixed.diff.starts_with("--- test.wgsl\n+++ test.wgsl\n"),
        "{}",
        fixed.diff
    );
    assert!(fixed.text.starts_with("// Every thread adds one"));
    assert_valid(&[Shader::new("racy counter, source patch", fixed.text)]);
}

/// A ticket-locked poll, as public global barriers write it: the count, the flag and the
/// participants are plain, and each of them must be atomic.
const POLL: &str = "@group(0) @binding(0) var<storage, read_write> count: u32;
@group(0) @binding(1) var<storage, read_write> poll_open: u32;
@group(0) @binding(2) var<storage, read_write> participants: u32;
@compute @workgroup_size(1)
fn main() {
    if poll_open == 1u {
        count += 1u;
        participants = count;
    }
    poll_open = 0u;
}
";

#[test]
fn several_variables_are_made_atomic_in_one_patch() {
    let atomic = ["count".to_string(), "poll_open".to_string()];
    let options = InstrumentOptions {
        file_name: Some("test.wgsl".into()),
        ..Default::default()
    };
    let a = analyse(POLL, &options, &atomic).unwrap_or_else(|e| panic!("{e}"));
    let fixed = patch(&a, &[]);
    let (removed, added) = changed(POLL, &fixed.text);
    assert_eq!(
        added,
        [
            "@group(0) @binding(0) var<storage, read_write> count: atomic<u32>;",
            "@group(0) @binding(1) var<storage, read_write> poll_open: atomic<u32>;",
            "    if atomicLoad(&poll_open) == 1u {",
            "        atomicAdd(&count, 1u);",
            "        participants = atomicLoad(&count);",
            "    atomicStore(&poll_open, 0u);",
        ],
        "{}",
        fixed.text
    );
    assert_eq!(removed.len(), 6, "{removed:?}");
    // The participant count, not chosen, stays plain.
    assert!(fixed
        .text
        .contains("var<storage, read_write> participants: u32;"));
    let edits = a.atomic_edits().unwrap();
    assert!(
        edits
            .windows(2)
            .all(|w| w[0].at.position <= w[1].at.position),
        "in source order: {edits:?}"
    );
    assert_valid(&[Shader::new("poll, two variables made atomic", fixed.text)]);
}

#[test]
fn compound_assignments_loads_and_stores_are_rewritten_where_they_are_written() {
    let source = "@group(0) @binding(0) var<storage, read_write> cells: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    cells[lid] *= 2u;
    cells[lid]++;
    cells[63u - lid] = cells[lid] + 1u;
    cells[0] ^= lid;
}
";
    let fixed = patch(&analysis(source, Some("cells")), &[]);
    let (_, added) = changed(source, &fixed.text);
    assert_eq!(
        added,
        [
            "@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>, 64>;",
            "    atomicStore(&cells[lid], atomicLoad(&cells[lid]) * (2u));",
            "    atomicAdd(&cells[lid], 1u);",
            "    atomicStore(&cells[63u - lid], atomicLoad(&cells[lid]) + 1u);",
            "    atomicXor(&cells[0], lid);",
        ]
    );
    assert_valid(&[Shader::new("compound make-atomic", fixed.text)]);
}

#[test]
fn a_read_modify_write_indexed_by_a_local_is_one_atomic_operation() {
    // Each side loads `round` on its own: the same value, nothing stored between.
    let source = "@group(0) @binding(0) var<storage, read_write> cells: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var round = 0u; round < 8u; round++) {
        cells[round] = cells[round] + 1u;
        var other = round + 1u;
        cells[round] = cells[other] + 1u;
    }
}
";
    let fixed = patch(&analysis(source, Some("cells")), &[]);
    let (_, added) = changed(source, &fixed.text);
    assert_eq!(
        added,
        [
            "@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>, 64>;",
            "        atomicAdd(&cells[round], 1u);",
            "        atomicStore(&cells[round], atomicLoad(&cells[other]) + 1u);",
        ]
    );
    assert_valid(&[Shader::new("make-atomic indexed by a local", fixed.text)]);
}

const MESSAGE: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    data[lid] = lid * 2u; // the message

    atomicStore(&flag, 1u);
	if atomicLoad(&flag) == 1u { seen[lid] = data[63u - lid]; }
}
";

#[test]
fn a_barrier_gets_a_line_of_its_own_with_the_indentation_around_it() {
    let a = analysis(MESSAGE, None);
    let release = site(&a, Side::After, 7, 5);
    let fixed = patch(&a, &[release]);
    assert!(
        fixed.text.contains(
            "    data[lid] = lid * 2u; // the message\n\n    storageBarrier();\n    atomicStore"
        ),
        "{}",
        fixed.text
    );
    assert_eq!((fixed.lines_removed, fixed.lines_added), (0, 1));
    // Both sides of one statement, and a line indented with a tab.
    let before = site(&a, Side::Before, 7, 5);
    let flagged = site(&a, Side::After, 9, 5);
    let both = patch(&a, &[before, release, flagged]);
    assert!(
        both.text.contains(
            "    storageBarrier();\n    data[lid] = lid * 2u; // the message\n\n    storageBarrier();\n    atomicStore(&flag, 1u);\n\tstorageBarrier();\n\tif"
        ),
        "{}",
        both.text
    );
    assert_valid(&[
        Shader::new("release", fixed.text),
        Shader::new("both sides", both.text),
    ]);
}

#[test]
fn a_barrier_between_two_accesses_of_one_statement_is_refused_with_its_place() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    buf[lid] = buf[lid + 64u];
}
";
    let a = analysis(source, None);
    let inside = site(&a, Side::After, 4, 16);
    let refused = a.source_patch(&[inside]).unwrap_err();
    assert_eq!(refused.why, Why::InsideStatement);
    assert_eq!(
        refused.to_string(),
        "test.wgsl:4:16: the barrier falls between two accesses of one statement"
    );
    assert!(a.anchors[inside as usize].is_err());
    // The IR-level fix is still there for the caller to fall back on.
    assert!(a.ir_patch(&[inside]).unwrap().contains("storageBarrier()"));
}

const SPLIT: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid % 2u == 0u {
        let x = buf[lid + 64u]; // kept
        var y = 2u;
        buf[lid] = x * y;
        atomicStore(&flag, x);
    }
}
";

#[test]
fn a_site_in_a_non_uniform_branch_splits_it_and_moves_what_crosses() {
    let a = analysis(SPLIT, None);
    let between = site(&a, Side::After, 8, 9);
    let anchor = a.anchors[between as usize].as_ref().unwrap();
    let split = anchor.split.as_ref().expect("a split");
    assert_eq!(&SPLIT[split.condition.clone()], "lid % 2u == 0u");
    assert_eq!(split.crossing, ["x"]);
    let fixed = patch(&a, &[between]);
    assert_eq!(
        fixed.text,
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x: u32;
    if lid % 2u == 0u {
        x = buf[lid + 64u]; // kept
        var y = 2u;
        buf[lid] = x * y;
    }
    storageBarrier();
    if lid % 2u == 0u {
        atomicStore(&flag, x);
    }
}
"
    );
    // Two boundaries in one branch, and a condition that reads memory, evaluated once.
    let reads = SPLIT.replace("if lid % 2u == 0u {", "if buf[lid] == 0u {");
    let b = analysis(&reads, None);
    let first = site(&b, Side::After, 6, 17);
    let second = site(&b, Side::After, 8, 9);
    let twice = patch(&b, &[first, second]);
    assert_eq!(twice.text.matches("storageBarrier();").count(), 2);
    assert!(
        twice
            .text
            .contains("    let split_condition = buf[lid] == 0u;\n"),
        "{}",
        twice.text
    );
    assert_eq!(twice.text.matches("if split_condition {").count(), 3);
    assert_valid(&[
        Shader::new("split", fixed.text),
        Shader::new("split twice", twice.text),
    ]);
}

#[test]
fn splits_that_the_text_cannot_make_are_refused() {
    // An `else if` chain, and a name the split would move into a block that has it.
    let chain = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 1u {
        buf[1] = 1u;
    } else if lid == 2u {
        buf[2] = 2u;
        buf[3] = 3u;
    }
}
";
    let a = analysis(chain, None);
    for s in &a.sites {
        if let Err(refused) = &a.anchors[s.id as usize] {
            assert_eq!(refused.why, Why::SplitChain, "{refused}");
        }
    }
    let taken = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 1u {
        let v = buf[0];
        buf[1] = v;
    }
    let v = 3u;
    buf[2] = v;
}
";
    let b = analysis(taken, None);
    let between = site(&b, Side::After, 5, 17);
    let refused = b.source_patch(&[between]).unwrap_err();
    assert_eq!(refused.why, Why::NameTaken { name: "v".into() });
}

#[test]
fn a_split_moves_a_name_that_a_later_block_declares_for_itself() {
    // ct-octree's pop: `b` in the first branch, another `b` of the second's own.
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        let b = buf[0];
        buf[1] = b;
    }
    if lid == 1u {
        let b = buf[2] + 1u;
        buf[3] = b;
    }
}
";
    let a = analysis(source, None);
    let between = site(&a, Side::After, 5, 17);
    let fixed = patch(&a, &[between]);
    assert!(
        fixed
            .text
            .contains("    var b: u32;\n    if lid == 0u {\n        b = buf[0];\n    }"),
        "{}",
        fixed.text
    );
    assert!(
        fixed.text.contains("        let b = buf[2] + 1u;"),
        "{}",
        fixed.text
    );
    // Both split: the second `b` takes a name of its own.
    let second = site(&a, Side::After, 9, 17);
    let both = patch(&a, &[between, second]);
    assert!(
        both.text.contains(
            "    var b_2: u32;\n    if lid == 1u {\n        b_2 = buf[2] + 1u;\n    }\n    storageBarrier();\n    if lid == 1u {\n        buf[3] = b_2;\n    }"
        ),
        "{}",
        both.text
    );
    assert_valid(&[
        Shader::new("split before a shadowing block", fixed.text),
        Shader::new("two splits of one name", both.text),
    ]);
}

#[test]
fn sites_before_a_return_inside_a_loop_and_in_a_callee_are_placed() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn publish(i: u32) -> u32 {
    buf[i] = i;
    return buf[i + 1u];
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    for (var k = 0u; k < 4u; k++) {
        buf[k + 128u] = publish(lid);
    }
    if wid.x == 0u { return; }
    buf[lid + 256u] = 1u;
}
";
    let a = analysis(source, None);
    let in_callee = site(&a, Side::After, 3, 5);
    let in_loop = site(&a, Side::Before, 9, 25);
    let after_return = site(&a, Side::Before, 12, 5);
    let fixed = patch(&a, &[in_callee, in_loop, after_return]);
    assert!(
        fixed
            .text
            .contains("    buf[i] = i;\n    storageBarrier();\n    return buf[i + 1u];"),
        "{}",
        fixed.text
    );
    assert!(
        fixed.text.contains(
            "    for (var k = 0u; k < 4u; k++) {\n        storageBarrier();\n        buf[k + 128u]"
        ),
        "{}",
        fixed.text
    );
    assert_eq!(fixed.lines_removed, 0);
    assert_eq!(
        fixed.lines_added,
        fixed.text.matches("storageBarrier();").count()
    );
    assert_valid(&[Shader::new("return, loop, callee", fixed.text)]);
}

#[test]
fn a_variable_made_atomic_and_a_barrier_patch_together() {
    // tests/fixtures/tally.wgsl: a plain count and a flag read with no barrier.
    let source = "// Two bugs: a plain count, and a flag read with no barrier.
@group(0) @binding(0) var<storage, read_write> count: u32;
@group(0) @binding(1) var<storage, read_write> flag: array<u32>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    count += 1u;
    if lid == 63u {
        flag[0] = 1u;
    }
    seen[lid] = flag[0];
}
";
    let a = analysis(source, Some("count"));
    let after_flag = site(&a, Side::After, 10, 9);
    let fixed = patch(&a, &[after_flag]);
    let (removed, added) = changed(source, &fixed.text);
    assert_eq!(
        removed,
        [
            "@group(0) @binding(0) var<storage, read_write> count: u32;",
            "    count += 1u;"
        ]
    );
    assert_eq!(
        added,
        [
            "@group(0) @binding(0) var<storage, read_write> count: atomic<u32>;",
            "    atomicAdd(&count, 1u);",
            "    storageBarrier();"
        ]
    );
    assert!(fixed
        .text
        .contains("    }\n    storageBarrier();\n    seen[lid] = flag[0];"));
    assert_valid(&[Shader::new("tally, source patch", fixed.text)]);
}

#[test]
fn edits_sharing_a_line_a_site_before_a_break_and_a_branch_inside_a_split_branch() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u { buf[0] = 1u; buf[1] = 2u; }
    loop {
        buf[2] = 3u;
        if wid.x == 1u { break; }
    }
    if lid == 0u {
        buf[3] = 4u;
        if lid == 0u { buf[4] = 5u; buf[5] = 6u; }
        buf[6] = 7u;
    }
}
";
    let a = analysis(source, None);
    // Two sites on one line, in a branch the whole line holds.
    let (first, second) = (site(&a, Side::After, 4, 22), site(&a, Side::After, 4, 35));
    let one_line = patch(&a, &[first, second]);
    assert!(
        one_line.text.contains(
            "    if wid.x == 0u { buf[0] = 1u; storageBarrier(); buf[1] = 2u; storageBarrier(); }"
        ),
        "{}",
        one_line.text
    );
    // Before a branch that leaves the loop.
    let before_break = site(&a, Side::After, 6, 9);
    let breaks = patch(&a, &[before_break]);
    assert!(
        breaks.text.contains(
            "        buf[2] = 3u;\n        storageBarrier();\n        if wid.x == 1u { break; }"
        ),
        "{}",
        breaks.text
    );
    // The parts of a split branch are not uniform: the branch inside one is not split, its
    // sites are around it (no split inside a split).
    let around = site(&a, Side::After, 10, 9);
    let after = site(&a, Side::After, 11, 24);
    let nested = patch(&a, &[around, after]);
    assert_eq!(
        nested.text.matches("if lid == 0u {").count(),
        4,
        "{}",
        nested.text
    );
    assert!(
        nested.text.contains(
            "        if lid == 0u { buf[4] = 5u; buf[5] = 6u; }\n    }\n    storageBarrier();"
        ),
        "{}",
        nested.text
    );
    assert_valid(&[
        Shader::new("one line", one_line.text),
        Shader::new("before a break", breaks.text),
        Shader::new("around a branch in a split", nested.text),
    ]);
}

#[test]
fn a_site_in_a_function_with_a_storage_pointer_parameter_is_refused() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn poke(p: ptr<storage, u32, read_write>, v: u32) {
    *p = v;
    *p = v + 1u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    poke(&buf[lid], 1u);
    buf[0] = 2u;
}
";
    let a = analysis(source, None);
    let in_poke: Vec<u32> = a
        .sites
        .iter()
        .filter(|s| s.function == "poke")
        .map(|s| s.id)
        .collect();
    assert!(!in_poke.is_empty(), "{:?}", a.sites);
    for id in in_poke {
        let refused = a.source_patch(&[id]).unwrap_err();
        assert_eq!(
            refused.why,
            Why::Specialized {
                function: "poke".into()
            }
        );
    }
    let in_main = site(&a, Side::After, 8, 5);
    assert!(patch(&a, &[in_main])
        .text
        .contains("    poke(&buf[lid], 1u);\n    storageBarrier();\n"));
}
