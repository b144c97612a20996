//! Source patches at the places the site rule reaches since it follows WGSL's uniformity
//! analysis: loops bounded by uniform values, a uniform `switch`'s clauses, the empty `else`
//! of a uniform `if`, next to loads of read-only buffers; and the places the text cannot take
//! (a loop's compound condition, between an `else` and its `if`), refused with the reason and
//! the place. Every patch is checked against the IR-level fix inside `source_patch`; Tint
//! accepts the patched text.

use wgstress_instrument::placement::{analyse, Analysis, Side, Why};
use wgstress_instrument::InstrumentOptions;
use wgstress_tint::{assert_valid, NamedWgsl as Shader};

fn analysis(source: &str) -> Analysis {
    let options = InstrumentOptions {
        file_name: Some("test.wgsl".into()),
        ..Default::default()
    };
    analyse(source, &options, &[]).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

/// The sites on `side` of the access at `line:column`, in id order.
fn sites(analysis: &Analysis, side: Side, line: u32, column: u32) -> Vec<u32> {
    let found: Vec<u32> = analysis
        .sites
        .iter()
        .filter(|s| s.side == side && s.line == line && s.column == column)
        .map(|s| s.id)
        .collect();
    assert!(
        !found.is_empty(),
        "no site {side:?} {line}:{column}: {:?}",
        analysis.sites
    );
    found
}

/// The patched text of `chosen`, which must patch.
fn patched(analysis: &Analysis, chosen: &[u32]) -> String {
    analysis
        .source_patch(chosen)
        .unwrap_or_else(|e| panic!("{chosen:?}: {e}"))
        .text
}

/// Every site the text can take, patched at once: accepted by Tint.
fn every_expressible_site(name: &str, analysis: &Analysis) -> Shader {
    let expressible: Vec<u32> = analysis
        .sites
        .iter()
        .map(|s| s.id)
        .filter(|id| analysis.anchors[*id as usize].is_ok())
        .collect();
    Shader::new(name, patched(analysis, &expressible))
}

const READ_ONLY: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    buf[lid] = 1u;
    buf[lid + 64u] = input[lid];
    let x = input[lid + 1u];
    buf[lid + 128u] = x + input[3];
}
";

/// A read-only buffer's loads are no accesses to order (the site rule passes them, and naga
/// puts the barrier after them, inside the statement that stores what they read): the
/// barrier goes before the statement, the same fix.
#[test]
fn a_barrier_passes_the_loads_of_a_read_only_buffer_to_the_statement_boundary() {
    let a = analysis(READ_ONLY);
    assert_eq!(a.sites.len(), 4, "{:?}", a.sites);
    let after_first = sites(&a, Side::After, 5, 5);
    assert!(
        patched(&a, &after_first).contains(
            "    buf[lid] = 1u;\n    storageBarrier();\n    buf[lid + 64u] = input[lid];"
        ),
        "{}",
        patched(&a, &after_first)
    );
    let after_second = sites(&a, Side::After, 6, 5);
    assert!(
        patched(&a, &after_second)
            .contains("    let x = input[lid + 1u];\n    storageBarrier();\n    buf[lid + 128u]"),
        "{}",
        patched(&a, &after_second)
    );
    assert!(a.anchors.iter().all(Result::is_ok), "{:?}", a.anchors);
    assert_valid(&[every_expressible_site("read-only", &a)]);
}

const ELSE: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    buf[lid] = 1u;
    if wid.x == 0u {
        buf[lid + 64u] = 2u;
    }
    buf[lid + 128u] = 3u;
    if wid.x == 1u {
        buf[lid] = 5u;
    } else if wid.y == 2u {
        buf[lid] = 6u;
    }
    buf[lid + 192u] = 7u;
}
";

/// A uniform `if` without `else` has a site on its other side (the invocations that skip
/// the branch): the patch writes the `else` around the barrier, at the end of an `else if`
/// chain too.
#[test]
fn a_site_in_an_else_the_text_lacks_writes_the_else() {
    let a = analysis(ELSE);
    // Named after the last access before the branch, as sites that border none are.
    let in_else: Vec<u32> = sites(&a, Side::After, 4, 5)
        .into_iter()
        .filter(|id| a.anchors[*id as usize].as_ref().is_ok_and(|s| s.opens_else))
        .collect();
    assert_eq!(in_else.len(), 1, "{:?}", a.anchors);
    let patch = a.source_patch(&in_else).unwrap();
    assert!(
        patch.text.contains(
            "        buf[lid + 64u] = 2u;\n    } else {\n        storageBarrier();\n    }\n    buf[lid + 128u] = 3u;"
        ),
        "{}",
        patch.text
    );
    assert_eq!((patch.lines_added, patch.lines_removed), (2, 0));
    let chain_end: Vec<u32> = a
        .sites
        .iter()
        .map(|s| s.id)
        .filter(|id| *id != in_else[0])
        .filter(|id| a.anchors[*id as usize].as_ref().is_ok_and(|s| s.opens_else))
        .collect();
    assert_eq!(chain_end.len(), 1, "{:?}", a.anchors);
    assert!(
        patched(&a, &chain_end).contains(
            "        buf[lid] = 6u;\n    } else {\n        storageBarrier();\n    }\n    buf[lid + 192u]"
        ),
        "{}",
        patched(&a, &chain_end)
    );
    let inline = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    buf[lid] = 1u; if wid.x == 0u { buf[lid + 64u] = 2u; } buf[lid + 128u] = 3u;
}
";
    let b = analysis(inline);
    let in_else: Vec<u32> = (0..b.sites.len() as u32)
        .filter(|id| b.anchors[*id as usize].as_ref().is_ok_and(|s| s.opens_else))
        .collect();
    assert_eq!(in_else.len(), 1, "{:?}", b.anchors);
    assert!(
        patched(&b, &in_else)
            .contains("{ buf[lid + 64u] = 2u; } else { storageBarrier(); } buf[lid + 128u]"),
        "{}",
        patched(&b, &in_else)
    );
    assert_valid(&[
        every_expressible_site("else", &a),
        every_expressible_site("inline else", &b),
    ]);
}

/// Between `else` and the `if` of an `else if` (before its condition, after its branch)
/// naga's IR has points of its own, in the `else` that holds the inner `if`; the text has
/// no statement boundary there.
#[test]
fn sites_between_an_else_and_its_if_are_refused_at_the_else_if() {
    let a = analysis(ELSE);
    let refused: Vec<String> = a
        .sites
        .iter()
        .filter_map(|s| a.source_patch(&[s.id]).err())
        .map(|e| {
            assert_eq!(e.why, Why::Unplaced);
            e.to_string()
        })
        .collect();
    let at = "test.wgsl:11:15: naga's IR puts the barrier where the text has no statement boundary";
    assert_eq!(refused, [at, at]);
}

const COMPOUND: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var k = 0u; k < 4u && mode > 0u; k++) {
        buf[k] = buf[k + 1u];
    }
    var j = 0u;
    while j < 4u || mode == 7u {
        buf[j] = 1u;
        j++;
    }
}
";

/// naga evaluates `a && b` and `a || b` in steps, with a point between the steps and the
/// loop's exit: inside a `for` or `while` condition, which has no place for a statement.
/// The sites inside the bodies patch.
#[test]
fn sites_inside_a_compound_loop_condition_are_refused_at_the_loop() {
    let a = analysis(COMPOUND);
    let (mut refused, mut bodies) = (Vec::new(), 0);
    for site in &a.sites {
        match a.source_patch(&[site.id]) {
            Ok(_) => bodies += 1,
            Err(e) if e.why == Why::InsideStatement => {}
            Err(e) => {
                assert_eq!(e.why, Why::ForHeader, "{e}");
                refused.push(e.at.unwrap().to_string());
            }
        }
    }
    assert_eq!(refused, ["test.wgsl:5:5", "test.wgsl:9:5"]);
    assert!(bodies >= 4, "{:?}", a.sites);
    let first_in_body = sites(&a, Side::Before, 6, 18);
    assert!(
        first_in_body
            .iter()
            .any(|id| a.source_patch(&[*id]).is_ok_and(|p| p.text.contains(
                "k < 4u && mode > 0u; k++) {\n        storageBarrier();\n        buf[k] = buf[k + 1u];"
            ))),
        "{:?}",
        a.anchors
    );
    assert_valid(&[every_expressible_site("compound conditions", &a)]);
}

const SWITCH: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    switch mode {
        case 0u: {
            buf[lid] = 1u;
            buf[lid + 64u] = 2u;
        }
        case 1u, 2u: {
            buf[lid] = buf[lid + 64u];
        }
        case 3u, default: {
            buf[lid] = 3u;
        }
    }
    buf[lid + 128u] = 4u;
}
";

/// A `switch` on a uniform value is uniform inside: each clause's sites go in that clause
/// (naga gives `case 1u, 2u:` an empty case falling through, and the barrier goes in the
/// clause that holds the statements).
#[test]
fn sites_in_a_uniform_switch_go_in_their_clause() {
    let a = analysis(SWITCH);
    let between = sites(&a, Side::After, 7, 13);
    assert!(
        patched(&a, &between).contains(
            "            buf[lid] = 1u;\n            storageBarrier();\n            buf[lid + 64u] = 2u;"
        ),
        "{}",
        patched(&a, &between)
    );
    let shared = sites(&a, Side::Before, 11, 24);
    assert!(
        patched(&a, &shared).contains(
            "        case 1u, 2u: {\n            storageBarrier();\n            buf[lid] = buf[lid + 64u];"
        ),
        "{}",
        patched(&a, &shared)
    );
    let default = sites(&a, Side::After, 14, 13);
    assert!(
        patched(&a, &default).contains(
            "            buf[lid] = 3u;\n            storageBarrier();\n        }\n    }\n    buf[lid + 128u]"
        ),
        "{}",
        patched(&a, &default)
    );
    let refused: Vec<Why> = a
        .sites
        .iter()
        .filter_map(|s| a.source_patch(&[s.id]).err())
        .map(|e| e.why)
        .collect();
    assert_eq!(refused, [Why::InsideStatement]);
    assert_valid(&[every_expressible_site("switch", &a)]);
}

/// tests/fixtures/lock-loop.wgsl: a lock taken in a loop bounded by a read-only count, so
/// the loop is uniform and the fix goes inside it. The site after taking the lock and the
/// one before releasing it complete each other, and patch where the fixture says the fix
/// belongs.
#[test]
fn a_lock_in_a_loop_bounded_by_a_read_only_count_is_fixed_inside_the_loop() {
    let source = include_str!("../../tests/fixtures/lock-loop.wgsl");
    let a = analysis(source);
    let after_lock = sites(&a, Side::After, 25, 13);
    let before_unlock = sites(&a, Side::After, 28, 13);
    assert_eq!((after_lock.len(), before_unlock.len()), (1, 1));
    let pair = [after_lock[0], before_unlock[0]];
    assert_eq!(a.portable(&[pair[0]]).sites, pair);
    assert_eq!(a.portable(&[pair[1]]).sites, pair);
    let text = patched(&a, &pair);
    assert!(
        text.contains(
            "            lock();\n        }\n        storageBarrier();\n        if lid == 0u {\n            total[0] = total[0] + 1u;\n        }\n        storageBarrier();\n        if lid == 0u {\n            unlock();"
        ),
        "{text}"
    );
    assert_valid(&[Shader::new("lock loop", text)]);
}
