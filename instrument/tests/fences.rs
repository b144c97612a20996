//! Candidate fence sites: where they go in small shaders, and that a barrier at every site of
//! every bundled application is valid for naga and for Tint.

use wgstress_instrument::placement::{fenced_at, fences, Side};
use wgstress_instrument::InstrumentOptions;
use Side::{After, Before};

fn sites(source: &str) -> Vec<(Side, u32, u32)> {
    let found = fences(source, &InstrumentOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let barriers = found.all_fenced_wgsl.matches("storageBarrier()").count();
    assert_eq!(barriers, found.sites.len(), "{}", found.all_fenced_wgsl);
    found
        .sites
        .iter()
        .map(|s| (s.side, s.line, s.column))
        .collect()
}

const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
";

fn shader(body: &str) -> String {
    format!("{HEADER}{body}}}\n")
}

#[test]
fn accesses_in_a_non_uniform_branch_get_sites_around_the_branch() {
    let source = shader(
        "    if lid == 0u {
        buf[0] = 1u;
        buf[1] = 1u;
    }
    buf[1] = buf[2];
",
    );
    assert_eq!(
        sites(&source),
        [
            (Before, 6, 9), // before the `if`
            (After, 6, 9),  // between the stores, the `if` split around it
            (After, 7, 9),  // after the `if`, which is also before the load of buf[2]
            (After, 9, 14), // between the load and the store
            (After, 9, 5),  // after the store
        ]
    );
}

#[test]
fn branches_on_the_workgroup_id_and_uniform_loops_get_sites_inside() {
    let source = shader(
        "    if wid.x == 0u {
        buf[0] = 1u;
    }
    for (var i = 0u; i < 4u; i++) {
        buf[i] = i;
        workgroupBarrier();
    }
",
    );
    assert_eq!(
        sites(&source),
        [
            (Before, 6, 9), // inside the branch, before its store
            (After, 6, 9),  // at the branch's end
            (Before, 9, 9), // after the branch, before the loop: it runs whether or not the branch did
            (Before, 9, 9), // inside the loop, before its store
            (After, 9, 9)   // at the loop body's end, past the workgroupBarrier()
        ]
    );
}

#[test]
fn no_site_inside_a_non_uniform_loop_but_sites_after_it() {
    // Invocations that leave the loop early wait for the others at its end: control flow
    // after it is uniform again (Tint accepts the barriers; see tint_accepts_every_...).
    let source = shader(
        "    buf[0] = 1u;
    while atomicLoad(&flag) < lid {
        buf[lid] = 2u;
    }
    buf[1] = 3u;
",
    );
    assert_eq!(
        sites(&source),
        [
            (Before, 5, 5), // before the first store
            (After, 5, 5),  // after it, which is also before the loop
            (After, 7, 9),  // after the loop (its last access), before the last store
            (After, 9, 5),  // after the last store
        ]
    );
}

#[test]
fn no_site_after_a_loop_left_by_a_non_uniform_return() {
    let source = shader(
        "    buf[0] = 1u;
    for (var i = lid; i < 64u; i += 8u) {
        if buf[i] == 7u {
            return;
        }
    }
    buf[1] = 3u;
",
    );
    // The `for` is a block (its `var` and the loop): the site after the first store is also
    // the one before the loop, past the `var`'s local store. None after the loop.
    assert_eq!(sites(&source), [(Before, 5, 5), (After, 5, 5)]);
}

#[test]
fn no_site_after_a_non_uniform_return() {
    let source = shader(
        "    buf[0] = 1u;
    if lid == 3u {
        return;
    }
    buf[1] = 3u;
",
    );
    assert_eq!(sites(&source), [(Before, 5, 5), (After, 5, 5)]);
}

#[test]
fn locals_are_uniform_only_when_every_value_stored_is() {
    let body = |update: &str| {
        shader(&format!(
            "    var k = wid.x;
    k = k + {update};
    if k == 2u {{
        buf[0] = 1u;
    }}
    buf[1] = 2u;
"
        ))
    };
    // `k` holds uniform values only: the branch on it is uniform, its store has sites inside.
    assert_eq!(
        sites(&body("1u")),
        [
            (Before, 8, 9),
            (After, 8, 9),
            (Before, 10, 5),
            (After, 10, 5)
        ]
    );
    // One store makes `k` depend on the local id: the sites move out of the branch.
    assert_eq!(
        sites(&body("lid")),
        [(Before, 8, 9), (After, 8, 9), (After, 10, 5)]
    );
}

/// Calls of functions that touch storage are accesses; a function called only in uniform
/// control flow gets sites inside too, one called in non-uniform flow (and its callees) not.
#[test]
fn callees_called_in_uniform_flow_get_sites_inside() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn inner(i: u32) { buf[i] = i; }
fn outer(i: u32) { inner(i); }
fn pure_(i: u32) -> u32 { return i * 2u; }
fn other(i: u32) { buf[i + 64u] = 1u; }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let x = pure_(lid);
    outer(x);
    if lid == 0u { other(x); }
}
";
    let found = fences(source, &InstrumentOptions::default()).unwrap();
    let listed: Vec<_> = found
        .sites
        .iter()
        .map(|s| (s.function.as_str(), s.side, s.line, s.column))
        .collect();
    assert_eq!(
        listed,
        [
            ("main", Before, 9, 5),  // outer(x)
            ("main", After, 9, 5),   // also before the branch calling other
            ("main", After, 10, 20), // after the branch
            ("outer", Before, 3, 20),
            ("outer", After, 3, 20),
            ("inner", Before, 2, 20),
            ("inner", After, 2, 20),
        ]
    );
    // Every call of a function in the module counts, the postcondition's too: Tint checks a
    // barrier in a function against each of them. A uniform call keeps the sites, one in
    // non-uniform flow removes them (and its callee's).
    let functions = |check: &str| {
        let shared = format!(
            "{source}// wgstress: postcondition check\n@compute @workgroup_size(64)\nfn check(@builtin(local_invocation_index) lid: u32) {{ {check} }}\n"
        );
        let shared_sites = fences(&shared, &InstrumentOptions::default())
            .unwrap()
            .sites;
        shared_sites
            .iter()
            .map(|s| s.function.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        functions("outer(0u);"),
        ["main", "main", "main", "outer", "outer", "inner", "inner"]
    );
    assert_eq!(
        functions("if lid == 0u { outer(0u); }"),
        ["main", "main", "main"]
    );
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new(
        "callees",
        found.all_fenced_wgsl,
    )]);
}

const CROSSING: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid % 2u == 0u {
        let x = buf[lid + 64u];
        let p = &buf[lid];
        *p = x;
        buf[lid + 128u] = x + 1u;
    }
}
";

/// Values computed before a split and used after it cross in function-scope variables; the
/// condition is evaluated once, before the parts.
#[test]
fn a_split_keeps_crossing_values_in_variables() {
    assert_eq!(
        sites(CROSSING),
        [
            (Before, 5, 17),
            (After, 5, 17),
            (After, 7, 9),
            (After, 8, 9)
        ]
    );
    let fenced = fences(CROSSING, &InstrumentOptions::default())
        .unwrap()
        .all_fenced_wgsl;
    assert_eq!(fenced.matches("lid % 2u").count(), 1, "{fenced}");
    assert_eq!(fenced.matches("if _e").count(), 3, "{fenced}");
    assert!(fenced.contains("var split"), "{fenced}");
}

#[test]
fn a_branch_with_both_sides_or_an_early_exit_is_not_split() {
    let both = shader(
        "    if lid == 0u {
        buf[0] = 1u;
        buf[1] = 1u;
    } else {
        buf[2] = 1u;
    }
",
    );
    assert_eq!(sites(&both), [(Before, 6, 9), (After, 9, 9)]);
    let returns = shader(
        "    if lid == 0u {
        buf[0] = 1u;
        if buf[2] == 0u { return; }
        buf[1] = 1u;
    }
",
    );
    assert_eq!(sites(&returns), [(Before, 6, 9)]);
}

/// Tint accepts the fenced form of every shader above.
#[test]
fn tint_accepts_every_fenced_test_shader() {
    let bodies = [
        "    if lid == 0u { buf[0] = 1u; buf[1] = 1u; }\n    buf[1] = buf[2];\n",
        "    if wid.x == 0u { buf[0] = 1u; }\n    for (var i = 0u; i < 4u; i++) { buf[i] = i; workgroupBarrier(); }\n",
        "    buf[0] = 1u;\n    while atomicLoad(&flag) < lid { buf[lid] = 2u; }\n    buf[1] = 3u;\n",
        "    var k = wid.x;\n    k = k + lid;\n    if k == 2u { buf[0] = 1u; }\n    buf[1] = 2u;\n",
        "    var s = 0u;\n    for (var i = lid; i < arrayLength(&buf); i += 64u) { s += buf[i]; }\n    buf[lid] = s;\n",
        "    buf[0] = 1u;\n    for (var i = lid; i < 64u; i += 8u) { if buf[i] == 7u { return; } }\n    buf[1] = 3u;\n",
        // A split whose later part holds an atomic with a result (ct-octree's pop).
        "    if lid == 0u { let v = buf[2]; buf[0] = 1u; let old = atomicAdd(&flag, v); buf[old] = 2u; }\n",
        // A split whose later part holds a loop with a `break if` (generated seed 396: the
        // condition was evaluated anew in the continuing block but the loop kept the old one).
        "    if lid == 0u { let v = buf[5]; buf[0] = v; loop { buf[1] = v; continuing { break if buf[2] > v; } } }\n",
    ];
    let mut shaders: Vec<wgstress_tint::NamedWgsl> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let found = fences(&shader(body), &InstrumentOptions::default()).unwrap();
            wgstress_tint::NamedWgsl::new(format!("body {i}"), found.all_fenced_wgsl)
        })
        .collect();
    let crossing = fences(CROSSING, &InstrumentOptions::default()).unwrap();
    shaders.push(wgstress_tint::NamedWgsl::new(
        "crossing",
        crossing.all_fenced_wgsl,
    ));
    wgstress_tint::assert_valid(&shaders);
}

/// Every bundled application with a barrier at every site is accepted by naga (checked
/// inside `fences`), and by Tint, plain and instrumented.
#[test]
fn every_bundled_app_with_every_site_fenced_is_valid_for_naga_and_tint() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/wgsl");
    let mut shaders = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(&path).unwrap();
        let options = InstrumentOptions {
            file_name: Some(name.clone()),
            ..Default::default()
        };
        let found = fences(&source, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!found.sites.is_empty(), "{name}: no candidate site");
        // A search's patch: barriers at some sites only (naga validates it in fenced_at).
        let some: Vec<u32> = found.sites.iter().map(|s| s.id).step_by(2).collect();
        let patched = fenced_at(&source, &options, &some).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(patched.sites, found.sites, "{name}");
        assert_eq!(
            patched.wgsl.matches("storageBarrier()").count(),
            found.all_fenced_wgsl.matches("storageBarrier()").count() - found.sites.len()
                + some.len(),
            "{name}: a barrier at each chosen site, the application's own kept"
        );
        shaders.push(wgstress_tint::NamedWgsl::new(
            format!("{name} patched"),
            patched.wgsl,
        ));
        let reparsed = naga::front::wgsl::parse_str(&found.all_fenced_wgsl).unwrap();
        wgstress_instrument::validate(&reparsed).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let instrumented = wgstress_instrument::instrument_wgsl(&found.all_fenced_wgsl, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        shaders.push(wgstress_tint::NamedWgsl::new(
            format!("{name} fenced"),
            found.all_fenced_wgsl,
        ));
        shaders.push(wgstress_tint::NamedWgsl::new(
            format!("{name} fenced, instrumented"),
            instrumented.wgsl,
        ));
    }
    assert!(shaders.len() >= 24, "{} shaders", shaders.len());
    wgstress_tint::assert_valid(&shaders);
}

#[test]
fn accesses_in_a_non_uniform_loop_are_named_and_a_made_atomic_rmw_is_one_access() {
    let source = shader(
        "    buf[1] += 1u;
    for (var turn = 0u; turn <= lid % 2u; turn++) {
        buf[lid] = buf[0];
    }
",
    );
    let plain = fenced_at(&source, &InstrumentOptions::default(), &[]).unwrap();
    let in_loop: Vec<(u32, u32)> = plain.in_loops.iter().map(|l| (l.line, l.column)).collect();
    assert_eq!(in_loop, vec![(7, 20)], "{:?}", plain.in_loops);
    // A spin-wait inside a non-uniform branch (a lock taken by one invocation) is named too.
    let nested = shader(
        "    if lid == 0u {
        while atomicLoad(&flag) == 0u {
            buf[2] = 1u;
        }
    }
    buf[3] = 1u;
",
    );
    let nested = fenced_at(&nested, &InstrumentOptions::default(), &[]).unwrap();
    let in_loop: Vec<(u32, u32)> = nested.in_loops.iter().map(|l| (l.line, l.column)).collect();
    assert_eq!(in_loop, vec![(6, 15)], "{:?}", nested.in_loops);
    let atomic_at = |chosen: &[u32]| {
        wgstress_instrument::placement::fenced_at_atomic(
            &source,
            &InstrumentOptions::default(),
            &["buf".to_string()],
            chosen,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let count = atomic_at(&[]).sites.len() as u32;
    let atomic = atomic_at(&(0..count).collect::<Vec<_>>());
    assert!(
        atomic.wgsl.contains("atomicAdd((&buf[1]), 1u);"),
        "{}",
        atomic.wgsl
    );
    let fused: Vec<Option<(u32, u32)>> = atomic.fused.iter().map(|l| l.position).collect();
    assert_eq!(fused, vec![Some((5, 5))]);
    // The load and the store of `buf[1] += 1u` were two accesses with a site between.
    assert_eq!(
        atomic.sites.len() + 1,
        plain.sites.len(),
        "{:?}",
        atomic.sites
    );
    assert!(!atomic.original_wgsl.contains("atomic<u32>>"));
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new(
        "atomic, all sites",
        atomic.wgsl,
    )]);
}

#[test]
fn a_barrier_or_a_branch_without_storage_between_accesses_leaves_one_site() {
    // The points before and after `workgroupBarrier()` and the branch on a local order the
    // same accesses: one site between the stores.
    let source = shader(
        "    if lid == 0u {
        buf[0] = 1u;
    }
    workgroupBarrier();
    var x = 0u;
    if lid == 3u { x = 1u; }
    if lid == 0u {
        buf[1] = x;
    }
",
    );
    assert_eq!(
        sites(&source),
        [(Before, 6, 9), (After, 6, 9), (After, 12, 9)]
    );
    // A branch that leaves the loop is not passed: a barrier after it misses the
    // invocations that left.
    let source = shader(
        "    loop {
        if lid == 0u {
            buf[0] = 1u;
        }
        if wid.x == 2u { break; }
        if lid == 0u {
            buf[1] = 1u;
        }
        if wid.x == 3u { break; }
    }
",
    );
    assert_eq!(
        sites(&source),
        [
            (Before, 7, 13),
            (After, 7, 13),
            (Before, 11, 13),
            (After, 11, 13)
        ]
    );
}
