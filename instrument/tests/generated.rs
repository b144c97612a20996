//! Property tests: for many compute shaders that validate, the instrumented module validates
//! too. Shaders come from a seeded generator (loops, branches, switches, atomics, barriers,
//! helper calls, assertions, builtin structs, 1-D to 3-D workgroups); a failure names the seed
//! that replays it: WGSTRESS_SEED=<seed> cargo test -p wgstress-instrument --test generated.
//! WGSTRESS_CASES sets how many seeds run (default 400).

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;
use wgstress_instrument::{instrument_module, instrument_wgsl, validate, Error, Options};

struct Gen {
    rng: ChaCha8Rng,
    out: String,
    /// u32 values in scope.
    scope: Vec<Vec<String>>,
    vars: Vec<Vec<String>>,
    next: u32,
    helpers: u32,
    loop_depth: u32,
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
        for _ in 0..self.rng.random_range(1..5) {
            self.statement(indent, depth, entry);
        }
        self.scope.pop();
        self.vars.pop();
    }

    fn statement(&mut self, indent: usize, depth: u32, entry: bool) {
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
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
        out: String::new(),
        scope: Vec::new(),
        vars: Vec::new(),
        next: 0,
        helpers: 0,
        loop_depth: 0,
    };
    g.out.push_str(
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>, 16>;\n\
         var<workgroup> tile: array<u32, 64>;\n\
         fn wgstress_assert(cond: bool) {}\n",
    );
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
    let _ = writeln!(g.out, "fn main(@builtin(global_invocation_id) gid: vec3<u32>, {ids}, @builtin(num_workgroups) n: vec3<u32>) {{");
    let index = if use_struct { "ids.index" } else { "index" };
    g.scope = vec![vec![
        "gid.x".into(),
        "gid.y".into(),
        "n.x".into(),
        index.into(),
    ]];
    g.block(1, 3, true);
    g.out.push_str("}\n");
    g.out
}

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
        let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: the generator wrote bad WGSL: {}\n{source}",
                e.emit_to_string(&source)
            )
        });
        validate(&module).unwrap_or_else(|e| {
            panic!("seed {seed}: the generator wrote an invalid shader: {e:?}\n{source}")
        });
        let result = instrument_wgsl(&source, &Options::default());
        let out = result.unwrap_or_else(|e| {
            panic!("seed {seed} (replay: WGSTRESS_SEED={seed}): {e}\n{source}")
        });
        // The written WGSL parses and validates on its own, as wgpu will take it.
        let reparsed = naga::front::wgsl::parse_str(&out.wgsl)
            .unwrap_or_else(|e| panic!("seed {seed}: output does not parse: {e}"));
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
        match instrument_module(module, &Options::default()) {
            Ok(out) => {
                validate(&out.module).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
                instrumented += 1;
            }
            Err(Error::Internal(e)) => panic!("case {case}: {e}"),
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
    let sources: Vec<wgstress_tint::Shader> = seeds
        .iter()
        .map(|seed| wgstress_tint::Shader::new(format!("seed {seed}"), shader(*seed)))
        .collect();
    let rejected = wgstress_tint::validate(&sources);
    let accepted: Vec<&wgstress_tint::Shader> = sources
        .iter()
        .filter(|s| !rejected.iter().any(|r| r.name == s.name))
        .collect();
    // Enough accepted sources that the property says something.
    assert!(
        accepted.len() * 4 >= seeds.len(),
        "Tint accepts only {} of {} generated shaders",
        accepted.len(),
        seeds.len()
    );
    let instrumented: Vec<wgstress_tint::Shader> = accepted
        .iter()
        .map(|s| {
            let out = instrument_wgsl(&s.code, &Options::default())
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            wgstress_tint::Shader::new(format!("{} instrumented", s.name), out.wgsl)
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
    let sources: Vec<wgstress_tint::Shader> = seeds
        .iter()
        .map(|seed| wgstress_tint::Shader::new(format!("seed {seed}"), shader(*seed)))
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
