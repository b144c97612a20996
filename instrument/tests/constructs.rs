//! Shaders naga and Tint accept whose plain naga rendering neither accepts: results of
//! predeclared types in declarations (`var r = atomicCompareExchangeWeak(...)`, `modf`,
//! `frexp`, arrays of them), directives naga refuses or drops (`enable subgroups;`,
//! `requires ...;`, `diagnostic(...)` and `@diagnostic` on functions), and pointer parameters
//! to storage and workgroup memory. Every path that writes WGSL (`instrument`, the fence
//! search's all-sites shader and patches, the raw shader for wgpu) must write WGSL that naga
//! (as wgpu reads it) and Tint accept, keeping the directives.

use wgstress_instrument::placement::{fenced_at, fences};
use wgstress_instrument::{for_wgpu, instrument_wgsl, raw_wgsl, validate, InstrumentOptions};

const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> lock: atomic<u32>;
var<workgroup> tile: array<u32, 64>;
";

/// (name, directives, declarations and helpers, the entry point's body).
const CASES: [(&str, &str, &str, &str); 10] = [
    (
        "compare-exchange in a var, reassigned in a loop",
        "",
        "",
        "var r = atomicCompareExchangeWeak(&lock, 0u, 1u);
    for (var i = 0u; i < 4u && !r.exchanged; i++) {
        r = atomicCompareExchangeWeak(&lock, 0u, 1u);
    }
    buf[lid] = r.old_value;
    atomicStore(&lock, 0u);",
    ),
    (
        "compare-exchange in a let and in an array",
        "",
        "",
        "let l = atomicCompareExchangeWeak(&lock, 0u, 1u);
    var pair = array(atomicCompareExchangeWeak(&lock, 1u, 0u), l);
    buf[lid] = pair[0].old_value + select(0u, 1u, pair[1].exchanged);",
    ),
    (
        "modf and frexp results in vars",
        "",
        "",
        "var m = modf(f32(buf[lid]) * 0.5);
    var f = frexp(vec2<f32>(m.fract, 3.0));
    buf[lid] = u32(m.whole) + u32(f.exp.y);",
    ),
    (
        "a compare-exchange result passed to and returned by helpers",
        "",
        "fn take(l: ptr<storage, atomic<u32>, read_write>) -> bool {
    var r = atomicCompareExchangeWeak(l, 0u, 1u);
    return r.exchanged;
}",
        "if take(&lock) {
        buf[0] += 1u;
        atomicStore(&lock, 0u);
    }",
    ),
    (
        "pointers into storage passed on, with dynamic indices",
        "requires unrestricted_pointer_parameters;",
        "struct Cell { count: u32, slots: array<u32, 4> }
@group(0) @binding(2) var<storage, read_write> cells: array<Cell>;
fn put(p: ptr<storage, u32, read_write>, v: u32) { *p = *p + v; }
fn fill(c: ptr<storage, Cell, read_write>, j: u32) {
    put(&(*c).count, 1u);
    put(&(*c).slots[j % 4u], j);
}",
        "fill(&cells[lid % 8u], lid);
    fill(&cells[0], 2u);
    put(&buf[lid], 1u);",
    ),
    (
        "a pointer to workgroup memory",
        "",
        "fn store(t: ptr<workgroup, array<u32, 64>>, i: u32, v: u32) { (*t)[i] = v; }
fn load(t: ptr<workgroup, array<u32, 64>>, i: u32) -> u32 { return (*t)[i]; }",
        "store(&tile, lid, lid * 2u);
    workgroupBarrier();
    buf[lid] = load(&tile, 63u - lid);",
    ),
    (
        "subgroups, enabled, with subgroup uniformity off",
        "enable subgroups;\ndiagnostic(off, subgroup_uniformity);",
        "",
        "if buf[lid] > 0u {
        buf[lid] = subgroupAdd(buf[lid]);
    }",
    ),
    (
        "f16 and a list of requires",
        "enable f16;\nrequires pointer_composite_access, readonly_and_readwrite_storage_textures;",
        "",
        "let h = f16(buf[lid] % 100u) * 0.5h;
    buf[lid] = u32(h);",
    ),
    (
        "a diagnostic attribute on a function",
        "enable subgroups;",
        "@diagnostic(off, subgroup_uniformity)
fn sum(v: u32) -> u32 {
    if v > 1u { return subgroupAdd(v); }
    return v;
}",
        "buf[lid] = sum(buf[lid]);",
    ),
    (
        "directives in one list, after comments",
        "// the extensions\nenable f16, /* and */ subgroups;",
        "",
        "buf[lid] = subgroupMax(buf[lid]) + u32(f16(2.0));",
    ),
];

fn source((_, directives, helpers, body): (&str, &str, &str, &str)) -> String {
    format!(
        "{directives}\n{HEAD}{helpers}\n@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32) {{\n    {body}\n}}\n"
    )
}

/// naga reads `wgsl` as wgpu does, and validates it.
fn naga_accepts(name: &str, wgsl: &str) {
    let module = naga::front::wgsl::parse_str(&for_wgpu(wgsl))
        .unwrap_or_else(|e| panic!("{name}: naga cannot parse it: {e}\n{wgsl}"));
    validate(&module)
        .unwrap_or_else(|e| panic!("{name}: naga does not validate it: {e:?}\n{wgsl}"));
}

#[test]
fn every_path_writes_wgsl_that_naga_and_tint_accept() {
    let mut tint = Vec::new();
    for case in CASES {
        let name = case.0;
        let source = source(case);
        tint.push(wgstress_tint::NamedWgsl::new(
            format!("{name} (source)"),
            source.clone(),
        ));
        let options = InstrumentOptions::default();
        let instrumented =
            instrument_wgsl(&source, &options).unwrap_or_else(|e| panic!("{name}: {e}\n{source}"));
        let all = fences(&source, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ids: Vec<u32> = all.sites.iter().map(|s| s.id).collect();
        let patched = fenced_at(&source, &options, &ids).unwrap_or_else(|e| panic!("{name}: {e}"));
        let raw = raw_wgsl(&source, "raw.wgsl").unwrap_or_else(|e| panic!("{name}: {e}"));
        for (what, wgsl) in [
            ("instrumented", instrumented.wgsl.as_str()),
            ("naga's original", instrumented.original_wgsl.as_str()),
            ("all sites", all.all_fenced_wgsl.as_str()),
            ("patched", patched.wgsl.as_str()),
        ] {
            let label = format!("{name} ({what})");
            naga_accepts(&label, wgsl);
            for directive in case.1.lines().filter(|l| !l.starts_with("//")) {
                let first = directive.split([' ', ',', '(']).next().unwrap();
                assert!(
                    wgsl.lines().any(|l| l.starts_with(first)),
                    "{label}: `{directive}` is not kept:\n{wgsl}"
                );
            }
            tint.push(wgstress_tint::NamedWgsl::new(label, wgsl.to_string()));
        }
        // What wgpu compiles in a raw run: naga must take it (Tint need not: the
        // directives naga refuses are blanked out of it).
        naga_accepts(&format!("{name} (raw)"), &raw.wgsl);
    }
    wgstress_tint::assert_valid(&tint);
}

#[test]
fn a_predeclared_type_gets_a_struct_only_where_a_declaration_names_it() {
    let named = source(CASES[0]);
    let out = instrument_wgsl(&named, &InstrumentOptions::default()).unwrap();
    assert!(
        out.wgsl
            .contains("struct AtomicCompareExchangeResult_u32_ {"),
        "{}",
        out.wgsl
    );
    assert!(
        !out.wgsl.contains("_atomic_compare_exchange_result"),
        "{}",
        out.wgsl
    );
    let let_only = source((
        "let",
        "",
        "",
        "let l = atomicCompareExchangeWeak(&lock, 0u, 1u);\n    buf[lid] = l.old_value;",
    ));
    let out = instrument_wgsl(&let_only, &InstrumentOptions::default()).unwrap();
    assert!(
        !out.wgsl.contains("AtomicCompareExchangeResult"),
        "{}",
        out.wgsl
    );
}

#[test]
fn pointer_parameters_become_indices_of_the_global_they_point_into() {
    let out = instrument_wgsl(&source(CASES[4]), &InstrumentOptions::default()).unwrap();
    assert!(!out.wgsl.contains("ptr<storage"), "{}", out.wgsl);
    // `fill` is called with two paths (a dynamic index and a constant one): two copies;
    // `put` with two paths from each copy of `fill` and one directly: five.
    let count = |name: &str| out.wgsl.matches(&format!("fn {name}")).count();
    assert_eq!(count("fill"), 2, "{}", out.wgsl);
    assert_eq!(count("put"), 5, "{}", out.wgsl);
    assert!(out.wgsl.contains("(&cells[c_index0_])"), "{}", out.wgsl);
}

#[test]
fn pointers_to_function_memory_stay_parameters() {
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn twice(p: ptr<function, u32>) { *p = *p * 2u; }
@compute @workgroup_size(1)
fn main() { var x = buf[0]; twice(&x); buf[0] = x; }";
    let out = instrument_wgsl(source, &InstrumentOptions::default()).unwrap();
    assert!(out.wgsl.contains("p: ptr<function, u32>"), "{}", out.wgsl);
}

#[test]
fn an_entry_point_named_like_a_builtin_is_asked_for_by_its_written_name() {
    // `step` is a WGSL builtin function: naga's writer renames the entry point.
    let source = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) id: vec3<u32>) { buf[id.x] += 1u; }";
    let out = instrument_wgsl(source, &InstrumentOptions::default()).unwrap();
    let entry = &out.manifest.entry_point;
    assert_eq!(entry.name, "step");
    let written = naga::front::wgsl::parse_str(&for_wgpu(&out.wgsl)).unwrap();
    assert!(
        written
            .entry_points
            .iter()
            .any(|e| e.name == entry.wgsl_name),
        "{} is not an entry point of\n{}",
        entry.wgsl_name,
        out.wgsl
    );
    assert_ne!(entry.wgsl_name, "step");
}

/// WGSL cannot name a compare-exchange result's type, but a module built in Rust can use it
/// anywhere: as a function's parameter and result, and as a struct member. Here a parsed
/// module is given such uses in its IR, and what wgstress writes of it is valid for both.
#[test]
fn results_passed_returned_and_kept_in_struct_members_are_written_as_structs() {
    use naga::{Expression, Statement, TypeInner};
    // `early` comes first so that the result's type does, before `Holder` names it.
    let source = "@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
fn early() { let e = atomicCompareExchangeWeak(&lock, 1u, 1u); }
struct Holder { r: u32 }
var<private> held: Holder;
fn keep(r: u32) -> u32 { return r; }
@compute @workgroup_size(1)
fn main() {
    let l = atomicCompareExchangeWeak(&lock, 0u, 1u);
    let k = keep(l.old_value);
    held.r = l.old_value;
    out[0] = k;
}";
    let mut module = naga::front::wgsl::parse_str(source).unwrap();
    let (_, &result) = module
        .special_types
        .predeclared_types
        .iter()
        .next()
        .unwrap();
    let early_handle = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some("early"))
        .unwrap()
        .0;
    // Holder { r: <the result> }, 8 bytes.
    let holder = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("Holder"))
        .unwrap()
        .0;
    let mut ty = module.types[holder].clone();
    if let TypeInner::Struct { members, span } = &mut ty.inner {
        members[0].ty = result;
        *span = 8;
    }
    module.types.replace(holder, ty);
    // keep(r: <the result>) -> <the result>, called with the result itself.
    let (keep, function) = module
        .functions
        .iter_mut()
        .find(|(_, f)| f.name.as_deref() == Some("keep"))
        .unwrap();
    function.arguments[0].ty = result;
    function.result.as_mut().unwrap().ty = result;
    let held = module
        .global_variables
        .iter()
        .find(|(_, g)| g.name.as_deref() == Some("held"))
        .unwrap()
        .0;
    let main = &mut module.entry_points[0].function;
    let mut first = naga::Block::new();
    first.push(
        Statement::Call {
            function: early_handle,
            arguments: Vec::new(),
            result: None,
        },
        Default::default(),
    );
    first.extend_block(std::mem::take(&mut main.body));
    main.body = first;
    let atomic = main
        .expressions
        .iter()
        .find(|(_, e)| matches!(e, Expression::AtomicResult { .. }))
        .unwrap()
        .0;
    let mut body = std::mem::take(&mut main.body);
    for statement in body.iter_mut() {
        match statement {
            Statement::Call {
                function,
                arguments,
                ..
            } if *function == keep => {
                arguments[0] = atomic;
            }
            Statement::Store { pointer, value }
                if matches!(main.expressions[*pointer], Expression::AccessIndex { base, .. }
                    if main.expressions[base] == Expression::GlobalVariable(held)) =>
            {
                // `held.r = l`: the whole result into the member.
                *value = atomic;
            }
            _ => {}
        }
    }
    main.body = body;
    // `out[0] = k` now stores a struct: store its old value instead.
    let k = main
        .expressions
        .iter()
        .find(|(_, e)| matches!(e, Expression::CallResult(_)))
        .unwrap()
        .0;
    let old = main.expressions.append(
        Expression::AccessIndex { base: k, index: 0 },
        Default::default(),
    );
    let body = std::mem::take(&mut main.body);
    let mut fixed = naga::Block::new();
    for (mut statement, span) in body.span_into_iter() {
        if let Statement::Store { value, .. } = &mut statement {
            if *value == k {
                fixed.push(
                    Statement::Emit(naga::Range::new_from_bounds(old, old)),
                    span,
                );
                *value = old;
            }
        }
        fixed.push(statement, span);
    }
    main.body = fixed;
    validate(&module).expect("the rewritten module is valid IR");
    let out =
        wgstress_instrument::instrument_module(module, &InstrumentOptions::default()).unwrap();
    naga_accepts("results in IR", &out.wgsl);
    assert!(
        out.wgsl.contains("r: AtomicCompareExchangeResult_u32_"),
        "{}",
        out.wgsl
    );
    assert!(
        out.wgsl.contains(
            "fn keep(r: AtomicCompareExchangeResult_u32_) -> AtomicCompareExchangeResult_u32_"
        ),
        "{}",
        out.wgsl
    );
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new("results in IR", out.wgsl)]);
}
