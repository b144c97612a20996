//! Property tests: for many compute shaders that validate, the instrumented module validates
//! too. Shaders come from a seeded generator (loops, branches, switches, atomics, barriers,
//! helper calls, assertions, builtin structs, 1-D to 3-D workgroups; compare-exchange results
//! in `var`s, `let`s, arrays and reassignments, `modf` and `frexp` results in `var`s, pointer
//! parameters to storage and workgroup memory passed on between helpers, subgroup operations,
//! f16, and the `enable`, `requires` and `diagnostic` directives they come with); a failure
//! names the seed that replays it: WGSTRESS_SEED=<seed> cargo test -p wgstress-instrument
//! --test generated. WGSTRESS_CASES sets how many seeds run (default 400).

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;
use wgstress_instrument::{
    for_wgpu, instrument_module, instrument_wgsl, validate, InstrumentError, InstrumentOptions,
};

/// What a generated shader may use besides plain u32 arithmetic, storage and atomics.
#[derive(Clone, Copy)]
struct Features {
    subgroups: bool,
    f16: bool,
    /// Helpers that take pointers to storage and workgroup memory.
    pointers: bool,
}

struct Gen {
    rng: ChaCha8Rng,
    out: String,
    /// u32 values in scope.
    scope: Vec<Vec<String>>,
    vars: Vec<Vec<String>>,
    /// `var`s holding compare-exchange results.
    exchanged: Vec<Vec<String>>,
    next: u32,
    helpers: u32,
    loop_depth: u32,
    features: Features,
}

impl Gen {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    fn values(&self) -> Vec<String> {
        self.scope.iter().flatten().cloned().collect()
    }

    /// A u32 expression with at least one run-time operand, so that constant evaluation
    /// (which rejects overflow and division by zero) never applies.
    fn expr(&mut self, depth: u32) -> String {
        let values = self.values();
        let leaf = values[self.rng.random_range(0..values.len())].clone();
        if depth == 0 || self.rng.random_bool(0.4) {
            return match self.rng.random_range(0..4) {
                0 => format!("buf[{leaf} % arrayLength(&buf)]"),
                1 => format!("atomicLoad(&flags[{leaf} % 16u])"),
                _ => leaf,
            };
        }
        let right = if self.rng.random_bool(0.5) {
            format!("{}u", self.rng.random_range(1..100))
        } else {
            self.expr(depth - 1)
        };
        let left = self.expr(depth - 1);
        match self.rng.random_range(0..7) {
            0 => format!("({left} + {right})"),
            1 => format!("({left} * {right})"),
            2 => format!("({left} ^ {right})"),
            3 => format!("({left} % ({right} | 1u))"),
            4 => format!("({left} >> ({right} & 31u))"),
            5 => format!("select({left}, {right}, {left} < {right})"),
            _ if self.helpers > 0 => {
                format!("helper{}({left})", self.rng.random_range(0..self.helpers))
            }
            _ => format!("({left} | {right})"),
        }
    }

    fn cond(&mut self) -> String {
        let (a, b) = (self.expr(1), self.expr(1));
        let op = ["<", "==", "!=", ">="][self.rng.random_range(0..4)];
        format!("{a} {op} {b}")
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(indent));
    }

    fn block(&mut self, indent: usize, depth: u32, entry: bool) {
        self.scope.push(Vec::new());
        self.vars.push(Vec::new());
        self.exchanged.push(Vec::new());
        for _ in 0..self.rng.random_range(1..5) {
            self.statement(indent, depth, entry);
        }
        self.scope.pop();
        self.vars.pop();
        self.exchanged.pop();
    }

    fn value(&mut self, name: String) {
        self.scope.last_mut().unwrap().push(name);
    }

    fn exchange(&mut self) -> String {
        let (i, e) = (self.expr(1), self.expr(1));
        format!("atomicCompareExchangeWeak(&flags[{i} % 16u], {e}, {e} + 1u)")
    }

    /// Statements of the constructs WGSL has types for that no source may name, of pointer
    /// parameters, of subgroups and of f16; `None` when the shader does not use the one drawn.
    fn typed_statement(&mut self, indent: usize) -> Option<()> {
        let name = self.fresh();
        let line = match self.rng.random_range(0..11) {
            0 => {
                let cas = self.exchange();
                self.exchanged.last_mut().unwrap().push(name.clone());
                self.value(format!("{name}.old_value"));
                format!("var {name} = {cas};")
            }
            1 => {
                let vars: Vec<String> = self.exchanged.iter().flatten().cloned().collect();
                let var = vars
                    .get(self.rng.random_range(0..vars.len().max(1)))?
                    .clone();
                let cas = self.exchange();
                format!("{var} = {cas};")
            }
            2 => {
                let cas = self.exchange();
                self.value(format!("select(0u, {name}.old_value, {name}.exchanged)"));
                format!("let {name} = {cas};")
            }
            3 => {
                let (a, b) = (self.exchange(), self.exchange());
                self.value(format!("{name}[1].old_value"));
                format!("var {name} = array({a}, {b});")
            }
            4 => {
                let e = self.expr(1);
                self.value(format!("u32({name}.fract * 8.0)"));
                format!("var {name} = modf(f32({e}) * 0.25);")
            }
            5 => {
                let e = self.expr(1);
                self.value(format!("u32({name}.exp.x)"));
                format!("var {name} = frexp(vec2<f32>(f32({e}), 1.5));")
            }
            6 if self.features.pointers => {
                let (i, e) = (self.expr(1), self.expr(1));
                let helper = ["bump", "bump_twice"][self.rng.random_range(0..2)];
                self.value(name.clone());
                format!("let {name} = {helper}(&flags[{i} % 16u], {e});")
            }
            7 if self.features.pointers => {
                let (i, e) = (self.expr(1), self.expr(1));
                format!("poke(&buf[{i} % arrayLength(&buf)], {e});")
            }
            8 if self.features.pointers => {
                let e = self.expr(1);
                self.value(name.clone());
                format!("let {name} = slot(&tile, {e});")
            }
            9 if self.features.subgroups => {
                let e = self.expr(1);
                let op = ["subgroupAdd", "subgroupMax", "subgroupBroadcastFirst"]
                    [self.rng.random_range(0..3)];
                self.value(name.clone());
                format!("let {name} = {op}({e});")
            }
            10 if self.features.f16 => {
                let e = self.expr(1);
                self.value(format!("u32({name})"));
                format!("let {name} = f16({e} % 1000u) * 0.5h;")
            }
            _ => return None,
        };
        self.line(indent, &line);
        Some(())
    }

    fn statement(&mut self, indent: usize, depth: u32, entry: bool) {
        // One in four statements is of the typed kinds, where the shader has what they use.
        if self.rng.random_bool(0.25) && self.typed_statement(indent).is_some() {
            return;
        }
        let choice = if depth == 0 {
            self.rng.random_range(0..5)
        } else {
            self.rng.random_range(0..13)
        };
        match choice {
            0 => {
                let (name, e) = (self.fresh(), self.expr(2));
                self.line(indent, &format!("let {name} = {e};"));
                self.scope.last_mut().unwrap().push(name);
            }
            1 => {
                let (name, e) = (self.fresh(), self.expr(2));
                self.line(indent, &format!("var {name} = {e};"));
                self.scope.last_mut().unwrap().push(name.clone());
                self.vars.last_mut().unwrap().push(name);
            }
            2 => {
                let (i, e) = (self.expr(1), self.expr(2));
                self.line(indent, &format!("buf[{i} % arrayLength(&buf)] = {e};"));
            }
            3 => {
                let (i, e) = (self.expr(1), self.expr(1));
                let f = ["atomicAdd", "atomicMax", "atomicExchange", "atomicStore"]
                    [self.rng.random_range(0..4)];
                self.line(indent, &format!("{f}(&flags[{i} % 16u], {e});"));
            }
            4 => {
                let c = self.cond();
                self.line(indent, &format!("wgstress_assert({c});"));
            }
            5 => {
                let c = self.cond();
                self.line(indent, &format!("if {c} {{"));
                self.block(indent + 1, depth - 1, entry);
                if self.rng.random_bool(0.5) {
                    self.line(indent, "} else {");
                    self.block(indent + 1, depth - 1, entry);
                }
                self.line(indent, "}");
            }
            6 => {
                let (i, n) = (self.fresh(), self.rng.random_range(1..6));
                self.line(indent, &format!("for (var {i} = 0u; {i} < {n}u; {i}++) {{"));
                self.loop_depth += 1;
                self.scope.push(vec![i]);
                self.block(indent + 1, depth - 1, entry);
                self.scope.pop();
                self.loop_depth -= 1;
                self.line(indent, "}");
            }
            7 => {
                let (i, e) = (self.expr(1), self.rng.random_range(0..4));
                self.line(
                    indent,
                    &format!("while atomicLoad(&flags[{i} % 16u]) == {e}u {{"),
                );
                self.loop_depth += 1;
                self.line(indent + 1, &format!("atomicAdd(&flags[{i} % 16u], 1u);"));
                self.loop_depth -= 1;
                self.line(indent, "}");
            }
            8 => {
                let c = self.cond();
                self.line(indent, "loop {");
                self.line(indent + 1, &format!("if {c} {{ break; }}"));
                self.loop_depth += 1;
                self.block(indent + 1, depth - 1, entry);
                self.loop_depth -= 1;
                self.line(indent + 1, "continuing {");
                let until = self.cond();
                self.line(indent + 2, &format!("break if {until};"));
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            9 => {
                let e = self.expr(1);
                self.line(indent, &format!("switch {e} % 4u {{"));
                for case in ["case 0u, 1u", "case 2u", "default"] {
                    self.line(indent + 1, &format!("{case}: {{"));
                    self.block(indent + 2, depth - 1, entry);
                    self.line(indent + 1, "}");
                }
                self.line(indent, "}");
            }
            10 if self.vars.iter().any(|v| !v.is_empty()) => {
                let vars: Vec<String> = self.vars.iter().flatten().cloned().collect();
                let v = vars[self.rng.random_range(0..vars.len())].clone();
                let e = self.expr(2);
                self.line(indent, &format!("{v} = {e};"));
            }
            11 if entry => {
                let barrier =
                    ["storageBarrier()", "workgroupBarrier()"][self.rng.random_range(0..2)];
                self.line(indent, &format!("{barrier};"));
            }
            12 if self.loop_depth > 0 => {
                let c = self.cond();
                self.line(indent, &format!("if {c} {{ break; }}"));
            }
            _ => {
                let (i, e) = (self.expr(1), self.expr(1));
                self.line(indent, &format!("tile[{i} % 64u] = {e};"));
            }
        }
    }
}

fn shader(seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let features = Features {
        subgroups: rng.random_bool(0.3),
        f16: rng.random_bool(0.2),
        pointers: rng.random_bool(0.4),
    };
    let mut g = Gen {
        rng,
        out: String::new(),
        scope: Vec::new(),
        vars: Vec::new(),
        exchanged: Vec::new(),
        next: 0,
        helpers: 0,
        loop_depth: 0,
        features,
    };
    if features.f16 {
        g.out.push_str("enable f16;\n");
    }
    if features.subgroups {
        // Subgroup operations go anywhere: Tint's subgroup uniformity is turned off.
        g.out
            .push_str("enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n");
    }
    if features.pointers && g.rng.random_bool(0.5) {
        g.out
            .push_str("requires unrestricted_pointer_parameters, pointer_composite_access;\n");
    }
    if g.rng.random_bool(0.2) {
        g.out
            .push_str("diagnostic(warning, derivative_uniformity);\n");
    }
    g.out.push_str(
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>, 16>;\n\
         var<workgroup> tile: array<u32, 64>;\n\
         fn wgstress_assert(cond: bool) {}\n",
    );
    if features.pointers {
        g.out.push_str(
            "fn bump(p: ptr<storage, atomic<u32>, read_write>, v: u32) -> u32 { return atomicAdd(p, v); }\n\
             fn bump_twice(p: ptr<storage, atomic<u32>, read_write>, v: u32) -> u32 { return bump(p, v) + bump(p, 1u); }\n\
             fn poke(p: ptr<storage, u32, read_write>, v: u32) { *p = *p ^ v; }\n\
             fn slot(t: ptr<workgroup, array<u32, 64>>, i: u32) -> u32 { return t[i % 64u]; }\n",
        );
    }
    let use_struct = g.rng.random_bool(0.5);
    if use_struct {
        g.out.push_str("struct Ids { @builtin(local_invocation_index) index: u32, @builtin(workgroup_id) group: vec3<u32> }\n");
    }
    for h in 0..g.rng.random_range(0..3) {
        let _ = writeln!(g.out, "fn helper{h}(x: u32) -> u32 {{");
        g.scope = vec![vec!["x".into()]];
        g.block(1, 2, false);
        let e = g.expr(1);
        g.line(1, &format!("return {e};"));
        g.out.push_str("}\n");
        g.helpers += 1;
    }
    let size = [
        g.rng.random_range(1..65),
        g.rng.random_range(1..4),
        g.rng.random_range(1..3),
    ];
    let _ = writeln!(
        g.out,
        "@compute @workgroup_size({}, {}, {})",
        size[0], size[1], size[2]
    );
    let ids = if use_struct {
        "ids: Ids"
    } else {
        "@builtin(local_invocation_index) index: u32"
    };
    let lanes = if features.subgroups {
        ", @builtin(subgroup_size) lanes: u32"
    } else {
        ""
    };
    let _ = writeln!(g.out, "fn main(@builtin(global_invocation_id) gid: vec3<u32>, {ids}, @builtin(num_workgroups) n: vec3<u32>{lanes}) {{");
    let index = if use_struct { "ids.index" } else { "index" };
    g.scope = vec![vec![
        "gid.x".into(),
        "gid.y".into(),
        "n.x".into(),
        index.into(),
    ]];
    if features.subgroups {
        g.scope[0].push("lanes".into());
    }
    g.block(1, 3, true);
    g.out.push_str("}\n");
    g.out
}

/// What the generator must write often enough in shaders that Tint accepts.
const CONSTRUCTS: [&str; 12] = [
    "var v",
    "= atomicCompareExchangeWeak",
    "= array(atomicCompareExchangeWeak",
    "= modf(",
    "= frexp(",
    "bump(&flags",
    "slot(&tile",
    "poke(&buf",
    "enable subgroups;",
    "enable f16;",
    "requires ",
    "diagnostic(warning",
];

fn cases() -> Vec<u64> {
    if let Ok(seed) = std::env::var("WGSTRESS_SEED") {
        return vec![seed.parse().expect("WGSTRESS_SEED is a number")];
    }
    let n = std::env::var("WGSTRESS_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    (0..n).collect()
}

#[test]
fn generated_shaders_stay_valid_after_instrumentation() {
    for seed in cases() {
        let source = shader(seed);
        // naga reads the source once the directives it refuses are set aside; its validator
        // refuses pointer parameters to storage and workgroup memory, which Tint accepts
        // (the test below has Tint check every source).
        let module = naga::front::wgsl::parse_str(&for_wgpu(&source)).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: the generator wrote bad WGSL: {}\n{source}",
                e.emit_to_string(&source)
            )
        });
        if !source.contains("ptr<") {
            validate(&module).unwrap_or_else(|e| {
                panic!("seed {seed}: the generator wrote an invalid shader: {e:?}\n{source}")
            });
        }
        let result = instrument_wgsl(&source, &InstrumentOptions::default());
        let out = result.unwrap_or_else(|e| {
            panic!("seed {seed} (replay: WGSTRESS_SEED={seed}): {e}\n{source}")
        });
        // The written WGSL parses and validates on its own, as wgpu will take it.
        let reparsed = naga::front::wgsl::parse_str(&for_wgpu(&out.wgsl))
            .unwrap_or_else(|e| panic!("seed {seed}: output does not parse: {e}\n{}", out.wgsl));
        validate(&reparsed)
            .unwrap_or_else(|e| panic!("seed {seed}: output does not validate: {e:?}"));
        let loops = source.matches("for (").count()
            + source.matches("while ").count()
            + source.matches("loop {").count();
        assert_eq!(
            out.manifest.loops.len(),
            loops,
            "seed {seed}: every loop is guarded"
        );
        assert_eq!(
            out.manifest.hooks.len(),
            source.matches("wgstress_assert(").count() - 1,
            "seed {seed}"
        );
    }
}

/// Modules from naga's `arbitrary` feature that validate, given a compute entry point, must
/// instrument into modules that validate, or be refused with a user error. Only about one
/// arbitrary module in a thousand validates (and those are small), so the generator above
/// carries most of the weight; this one guards the importer against module shapes the
/// generator never writes.
#[test]
fn arbitrary_modules_that_validate_stay_valid() {
    use arbitrary::{Arbitrary, Unstructured};
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut instrumented = 0;
    for case in 0..6000 {
        let bytes: Vec<u8> = (0..rng.random_range(16..4096))
            .map(|_| rng.random())
            .collect();
        let Ok(mut module) = naga::Module::arbitrary(&mut Unstructured::new(&bytes)) else {
            continue;
        };
        if validate(&module).is_err() {
            continue;
        }
        module
            .entry_points
            .retain(|e| e.stage != naga::ShaderStage::Compute);
        module.entry_points.push(naga::EntryPoint {
            name: "fuzz_main".into(),
            stage: naga::ShaderStage::Compute,
            early_depth_test: None,
            workgroup_size: [1, 1, 1],
            workgroup_size_overrides: None,
            function: naga::Function::default(),
            mesh_info: None,
            task_payload: None,
            incoming_ray_payload: None,
        });
        if validate(&module).is_err() {
            continue;
        }
        match instrument_module(module, &InstrumentOptions::default()) {
            Ok(out) => {
                validate(&out.module).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
                instrumented += 1;
            }
            Err(InstrumentError::Internal(e)) => panic!("case {case}: {e}"),
            Err(_) => {}
        }
    }
    assert!(instrumented >= 1, "no arbitrary module was instrumented");
}

/// The generator puts barriers anywhere in the entry point, also in non-uniform control flow,
/// which naga accepts and Tint does not. Instrumentation must add no Tint error: every
/// generated shader that Tint accepts must be accepted instrumented as well.
#[test]
fn tint_accepts_instrumented_shaders_whose_source_it_accepts() {
    let seeds = cases();
    let sources: Vec<wgstress_tint::NamedWgsl> = seeds
        .iter()
        .map(|seed| wgstress_tint::NamedWgsl::new(format!("seed {seed}"), shader(*seed)))
        .collect();
    let rejected = wgstress_tint::validate(&sources);
    let accepted: Vec<&wgstress_tint::NamedWgsl> = sources
        .iter()
        .filter(|s| !rejected.iter().any(|r| r.name == s.name))
        .collect();
    // Enough accepted sources that the property says something, of every construct.
    assert!(
        accepted.len() * 4 >= seeds.len(),
        "Tint accepts only {} of {} generated shaders",
        accepted.len(),
        seeds.len()
    );
    if std::env::var("WGSTRESS_SEED").is_err() {
        for construct in CONSTRUCTS {
            let with = accepted
                .iter()
                .filter(|s| s.code.contains(construct))
                .count();
            assert!(
                with * 20 >= accepted.len(),
                "only {with} of {} accepted shaders have `{construct}`",
                accepted.len()
            );
        }
    }
    let instrumented: Vec<wgstress_tint::NamedWgsl> = accepted
        .iter()
        .map(|s| {
            let out = instrument_wgsl(&s.code, &InstrumentOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            wgstress_tint::NamedWgsl::new(format!("{} instrumented", s.name), out.wgsl)
        })
        .collect();
    wgstress_tint::assert_valid(&instrumented);
}

/// Candidate fence sites wherever Tint allows a barrier (issue 23 item 2): in every generated
/// shader that Tint accepts, each point that separates storage accesses where Tint accepts a
/// `storageBarrier()` is a site or served by one, and Tint accepts the shader with a barrier
/// at every site (common/completeness.rs).
#[test]
fn tint_accepts_a_barrier_only_where_a_site_serves_and_at_every_site() {
    let seeds = cases();
    let sources: Vec<wgstress_tint::NamedWgsl> = seeds
        .iter()
        .map(|seed| wgstress_tint::NamedWgsl::new(format!("seed {seed}"), shader(*seed)))
        .collect();
    let rejected = wgstress_tint::validate(&sources);
    let accepted: Vec<(String, String)> = sources
        .into_iter()
        .filter(|s| !rejected.iter().any(|r| r.name == s.name))
        .map(|s| (s.name, s.code))
        .collect();
    let report = common::completeness::check(&accepted);
    assert!(
        report.missing.is_empty() && report.rejected.is_empty(),
        "{} of {} accepted points unserved (replay: WGSTRESS_SEED=N), {} all-sites shaders rejected:\n{}\n{}",
        report.missing.len(),
        report.accepted,
        report.rejected.len(),
        report.missing.join("\n"),
        report.rejected.join("\n")
    );
    // The check says something: Tint accepted a fair share of the points (16% of 14,062
    // over the default 400 seeds).
    assert!(
        report.accepted * 10 >= report.points,
        "Tint accepted {} of {} points",
        report.accepted,
        report.points
    );
}

/// Source patches of generated shaders (every fourth seed): a few sites alone, and every
/// site the text can take at once, are patched or refused for a reason of the text, never
/// for an edit that does not rebuild the IR-level fix (the check `source_patch` makes), and
/// the portable completion of some sites runs; Tint accepts the source patch wherever it
/// accepts the IR-level fix it rebuilds.
#[test]
fn source_patches_of_generated_shaders_rebuild_the_fix_or_are_refused_for_the_text() {
    use wgstress_instrument::placement::{analyse, fences, Why};
    let seeds: Vec<u64> = cases().into_iter().step_by(4).collect();
    let mut patches = Vec::new();
    for &seed in &seeds {
        let source = shader(seed);
        let analysis = analyse(&source, &InstrumentOptions::default(), &[])
            .unwrap_or_else(|e| panic!("seed {seed} (WGSTRESS_SEED={seed}): {e}\n{source}"));
        // One numbering of the sites: the search's (`fences`, `fenced_at`) and the report's.
        let found = fences(&source, &InstrumentOptions::default()).unwrap();
        assert_eq!(analysis.sites, found.sites, "seed {seed}");
        let ids: Vec<u32> = analysis.sites.iter().map(|s| s.id).collect();
        let expressible: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|id| analysis.anchors[*id as usize].is_ok())
            .collect();
        let mut sets: Vec<Vec<u32>> = ids.iter().step_by(5).map(|id| vec![*id]).collect();
        sets.push(expressible.clone());
        for set in sets {
            match analysis.source_patch(&set) {
                Ok(patch) if set == expressible => {
                    let ir = analysis
                        .ir_patch(&set)
                        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                    patches.push((seed, patch.text, ir));
                }
                Ok(_) => {}
                Err(refused) => assert!(
                    matches!(
                        refused.why,
                        Why::InsideStatement
                            | Why::SplitChain
                            | Why::NameTaken { .. }
                            | Why::Specialized { .. }
                    ),
                    "seed {seed} (WGSTRESS_SEED={seed}) {set:?}: {refused}\n{source}"
                ),
            }
        }
        let half: Vec<u32> = ids.iter().copied().step_by(2).collect();
        let portable = analysis.portable(&half);
        assert!(
            half.iter().all(|s| portable.sites.contains(s)),
            "seed {seed}"
        );
    }
    assert!(
        patches.len() * 2 >= seeds.len(),
        "{} patched",
        patches.len()
    );
    let checked = patches.len();
    let shaders: Vec<wgstress_tint::NamedWgsl> = patches
        .into_iter()
        .flat_map(|(seed, text, ir)| {
            [
                wgstress_tint::NamedWgsl::new(format!("seed {seed} source"), text),
                wgstress_tint::NamedWgsl::new(format!("seed {seed} ir"), ir),
            ]
        })
        .collect();
    let rejected: Vec<String> = wgstress_tint::validate(&shaders)
        .into_iter()
        .map(|r| r.name)
        .collect();
    for name in rejected.iter().filter(|n| n.ends_with(" source")) {
        let ir = name.replace(" source", " ir");
        assert!(
            rejected.contains(&ir),
            "Tint rejects the source patch of {name} but not the IR-level fix"
        );
    }
    assert!(rejected.len() < checked, "Tint rejects every patch");
}
