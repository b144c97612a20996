//! Candidate fence sites wherever Tint allows a barrier (issue 23 item 2), with Tint as the
//! oracle: in every bundled application and in a lock taken in a loop bounded by a read-only
//! count, each point that separates storage accesses and where Tint accepts a
//! `storageBarrier()` is a site or served by one (common/completeness.rs), and Tint accepts
//! the shader with a barrier at every site. Generated shaders: generated.rs.

mod common;

use wgstress_instrument::placement::Side::Before;

fn read(path: &std::path::Path) -> (String, String) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    (name, std::fs::read_to_string(path).unwrap())
}

fn assert_complete(cases: &[(String, String)]) -> common::completeness::Report {
    let report = common::completeness::check(cases);
    assert!(
        report.missing.is_empty() && report.rejected.is_empty(),
        "{} of {} accepted points unserved, {} all-sites shaders rejected:\n{}\n{}",
        report.missing.len(),
        report.accepted,
        report.rejected.len(),
        report.missing.join("\n"),
        report.rejected.join("\n")
    );
    report
}

#[test]
fn every_point_tint_accepts_in_the_bundled_apps_is_a_site() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/wgsl");
    let mut cases: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .map(|p| read(&p))
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "{} apps", cases.len());
    let report = assert_complete(&cases);
    eprintln!(
        "{} points, {} accepted, {} sites",
        report.points, report.accepted, report.sites
    );
    // The check says something: Tint accepted many points, and refused some.
    assert!(report.accepted >= 50, "{} points accepted", report.accepted);
    assert!(report.points > report.accepted, "Tint refused no point");
}

/// The lock of tests/fixtures/lock-loop.wgsl: its loop runs `count` times, a
/// `var<storage, read>` value, so the loop is uniform and its sites are inside it, after
/// taking the lock and before releasing it.
#[test]
fn a_lock_loop_bounded_by_read_only_storage_has_sites_inside() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/lock-loop.wgsl");
    let (name, source) = read(&path);
    let found = wgstress_instrument::placement::fences(&source, &Default::default()).unwrap();
    let lines: Vec<u32> = found.sites.iter().map(|s| s.line).collect();
    let inside = |line: u32| (24..=33).contains(&line);
    assert!(lines.iter().all(|l| inside(*l)), "{lines:?}");
    let lock = source.lines().position(|l| l.contains("lock();")).unwrap() as u32 + 1;
    let unlock = source
        .lines()
        .position(|l| l.contains("unlock();"))
        .unwrap() as u32
        + 1;
    assert!(
        lines.contains(&lock) && lines.contains(&unlock),
        "{lines:?}"
    );
    assert_complete(&[(name, source)]);
}

const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read> count: u32;
@group(0) @binding(2) var<uniform> limits: vec4<u32>;
@group(0) @binding(3) var<storage, read_write> flag: atomic<u32>;
var<workgroup> shared_n: u32;
var<private> mine: u32;
";

/// Shapes of WGSL's uniformity analysis, each a shader whose sites the oracle checks.
const SHAPES: [(&str, &str); 20] = [
    ("read-only storage bounds a loop", "for (var i = 0u; i < count; i++) { buf[i] = 1u; buf[i + 1u] = 2u; }"),
    ("a uniform buffer guards a branch", "if limits.x == 1u { buf[0] = 1u; buf[1] = 2u; }"),
    ("a workgroup uniform load guards a branch", "if lid == 0u { shared_n = buf[9]; }\n    let n = workgroupUniformLoad(&shared_n);\n    if n > 2u { buf[0] = n; buf[1] = n; }"),
    ("the workgroup id guards a switch", "switch wid.x % 3u { case 0u: { buf[0] = 1u; buf[1] = 1u; } case 1u, 2u: { buf[2] = 1u; } default: { buf[3] = 1u; buf[4] = 2u; } }"),
    ("a local made uniform again", "var k = lid;\n    buf[k] = 1u;\n    k = wid.x;\n    if k == 0u { buf[0] = 1u; buf[1] = 2u; }"),
    ("a local made non-uniform in a branch", "var k = 0u;\n    if lid == 1u { k = 1u; }\n    if k == 0u { buf[0] = 1u; buf[1] = 2u; }"),
    ("a uniform continue and break if", "var i = 0u;\n    loop { buf[i] = 1u; if i == 2u { i++; continue; } buf[i + 1u] = 2u; i++; continuing { break if i >= count; } }\n    buf[9] = 3u;"),
    ("a non-uniform break makes a loop non-uniform", "for (var i = 0u; i < 8u; i++) { buf[i] = 1u; if buf[i + 8u] == lid { break; } buf[i + 1u] = 2u; }\n    buf[9] = 3u;"),
    ("a uniform return, then more", "buf[0] = 1u;\n    if wid.x == 7u { return; }\n    buf[1] = 2u;\n    for (var i = 0u; i < 3u; i++) { }\n    buf[2] = 3u;"),
    ("a non-uniform return ends the uniform flow", "buf[0] = 1u;\n    if lid == 7u { return; }\n    buf[1] = 2u;"),
    ("nested uniform loops", "for (var i = 0u; i < count; i++) { for (var j = 0u; j < limits.y; j++) { buf[i * 4u + j] = j; } buf[i] = 0u; }"),
    ("private and read_write values are not uniform", "mine = wid.x;\n    if mine == 0u { buf[0] = 1u; buf[1] = 2u; }\n    if buf[5] == 0u { buf[2] = 1u; buf[3] = 2u; }"),
    ("a helper's branch on a uniform argument", "both(wid.x);\n    both(0u);"),
    ("a helper's branch on a non-uniform argument", "both(lid);\n    buf[7] = 1u;"),
    ("a uniform result of a helper with an early return", "for (var i = 0u; i < per_group(wid.x); i++) { buf[i] = 1u; buf[i + 1u] = 2u; }"),
    ("an atomic result is not uniform", "if atomicLoad(&flag) == 0u { buf[0] = 1u; buf[1] = 2u; }\n    let old = atomicAdd(&flag, 1u);\n    for (var i = 0u; i < old; i++) { buf[i] = 3u; }"),
    ("a local bumped through a pointer stays uniform", "var k = wid.x;\n    bump(&k);\n    if k == 3u { buf[0] = 1u; buf[1] = 2u; }"),
    ("a local set through a pointer to a non-uniform value", "var k = 0u;\n    set_to(&k, lid);\n    if k == 3u { buf[0] = 1u; buf[1] = 2u; }"),
    ("a helper's branch on a uniform pointee", "var k = wid.x;\n    guarded(&k);\n    buf[5] = k;"),
    ("a helper's result read through a pointer", "var k = count;\n    for (var i = 0u; i < peek(&k); i++) { buf[i] = 1u; buf[i + 1u] = 2u; }"),
];

const HELPERS: &str = "fn both(x: u32) {
    if x == 0u {
        buf[x] = 1u;
        buf[x + 1u] = 2u;
    }
}
fn bump(p: ptr<function, u32>) {
    *p = *p + 1u;
}
fn set_to(p: ptr<function, u32>, v: u32) {
    *p = v;
}
fn guarded(p: ptr<function, u32>) {
    if *p == 0u {
        buf[0] = 1u;
        buf[1] = 2u;
    }
}
fn peek(p: ptr<function, u32>) -> u32 {
    return *p;
}
fn per_group(g: u32) -> u32 {
    if g == 0u {
        return 1u;
    }
    return g % 4u + count;
}
";

fn shape(body: &str) -> String {
    format!(
        "{HEADER}{HELPERS}@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
    {body}
}}
"
    )
}

#[test]
fn uniformity_as_wgsl_defines_it() {
    let cases: Vec<(String, String)> = SHAPES
        .iter()
        .map(|(name, body)| (name.to_string(), shape(body)))
        .collect();
    let report = assert_complete(&cases);
    assert!(report.accepted >= 40, "{} points accepted", report.accepted);
    // Where the analysis puts sites, shape by shape: inside uniform constructs.
    let sites = |name: &str| {
        let (_, body) = SHAPES.iter().find(|(n, _)| *n == name).unwrap();
        let found = wgstress_instrument::placement::fences(&shape(body), &Default::default());
        found.unwrap().sites
    };
    let inside = |name: &str| sites(name).iter().any(|s| !s.point.path.is_empty());
    for uniform in [
        "read-only storage bounds a loop",
        "a uniform buffer guards a branch",
        "a workgroup uniform load guards a branch",
        "the workgroup id guards a switch",
        "a local made uniform again",
        "nested uniform loops",
        "a uniform result of a helper with an early return",
        "a local bumped through a pointer stays uniform",
        "a helper's result read through a pointer",
    ] {
        assert!(inside(uniform), "{uniform}: {:?}", sites(uniform));
    }
    for non_uniform in [
        "a local made non-uniform in a branch",
        "private and read_write values are not uniform",
        "an atomic result is not uniform",
        "a local set through a pointer to a non-uniform value",
    ] {
        // Only a split branch's sites are inside it.
        let listed = sites(non_uniform);
        assert!(
            listed.iter().all(|s| s.point.path.len() <= 1),
            "{non_uniform}: {listed:?}"
        );
    }
    // Before the first store inside `both`'s branch: only where the branch is uniform (a split
    // of a non-uniform one puts sites between its accesses only).
    let in_helper = |name: &str| {
        sites(name)
            .iter()
            .any(|s| s.function == "both" && s.point.path.len() == 1 && s.side == Before)
    };
    assert!(in_helper("a helper's branch on a uniform argument"));
    assert!(!in_helper("a helper's branch on a non-uniform argument"));
    let in_guarded = sites("a helper's branch on a uniform pointee")
        .iter()
        .any(|s| s.function == "guarded" && s.point.path.len() == 1 && s.side == Before);
    assert!(in_guarded);
}
