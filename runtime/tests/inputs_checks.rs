//! Typed initial contents and the host checks of app specs, on a real device: each spec is
//! written to a file and loaded as a user's would be; every check passes a correct kernel
//! under systematic stress and fails a kernel that corrupts its output on purpose, with a
//! report that counts the wrong elements and shows the first few.

mod common;
use common::*;
use std::path::Path;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::spec::{self, App};

/// Writes `files` (name, text) to `dir` and loads `dir/app.toml`.
fn load(dir: &Path, spec_text: &str, files: &[(&str, &str)]) -> wgstress_runtime::Result<App> {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let path = dir.join("app.toml");
    std::fs::write(&path, spec_text).unwrap();
    spec::load(&path)
}

/// The host checks' verdicts of 8 runs under systematic stress: `None` where a run passed.
fn verdicts(app: App) -> Vec<Option<String>> {
    let mut engine = engine(app);
    let runs = params(&engine, &settings(Strategy::Systematic, true), 0..8);
    engine
        .run(&runs)
        .unwrap()
        .into_iter()
        .map(|r| {
            let failed = r.outcome == RunOutcome::Postcondition;
            assert!(failed || r.outcome == RunOutcome::Pass, "{r:?}");
            assert_eq!(failed, r.host.is_some(), "{r:?}");
            r.host.map(|failure| failure.to_string())
        })
        .collect()
}

/// Loads the spec with `shader` as app.wgsl, runs it, and returns the one message every run
/// failed with, or `None` when every run passed.
fn check(spec_text: &str, shader: &str, others: &[(&str, &str)]) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![("app.wgsl", shader)];
    files.extend_from_slice(others);
    let app = load(dir.path(), spec_text, &files).unwrap_or_else(|e| panic!("{e}"));
    let verdicts = verdicts(app);
    assert!(
        verdicts.iter().all(|v| *v == verdicts[0]),
        "a deterministic kernel fails alike in every run: {verdicts:?}"
    );
    verdicts[0].clone()
}

/// Every thread ranks its key among all keys (ties by index) and stores it at its rank: a
/// correct sort of T. `CORRUPT` is an expression added to the key stored by thread 5.
const RANK_SORT: &str = "
@group(0) @binding(0) var<storage, read> keys: array<T>;
@group(0) @binding(1) var<storage, read_write> sorted: array<T>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let k = keys[i];
    var rank = 0u;
    for (var j = 0u; j < 64u; j++) {
        let o = keys[j];
        if (o < k || (o == k && j < i)) {
            rank++;
        }
    }
    sorted[rank] = k + select(T(0), CORRUPT, i == 5u);
}";

fn rank_sort(ty: &str, corrupt: &str) -> String {
    RANK_SORT.replace("CORRUPT", corrupt).replace('T', ty)
}

const SORT_SPEC: &str = r#"
shader = "app.wgsl"
workgroups = [2]

[[binding]]
binding = 0
kind = "storage"
words = 64
init = INIT

[[binding]]
binding = 1
kind = "storage"
words = 64

[[check]]
binding = 1
kind = "sorted-permutation"
of = 0
type = "TYPE"
"#;

#[test]
fn sorted_permutation_of_each_type() {
    let cases = [
        ("u32", r#"{ kind = "random", seed = 7, below = 50 }"#, "1u"),
        (
            "i32",
            r#"{ kind = "repeat", type = "i32", values = [5, -3, 0, 12, -3, 7, -100] }"#,
            "1i",
        ),
        (
            "f32",
            r#"{ kind = "range", type = "f32", start = 10.0, step = -0.375 }"#,
            "0.125",
        ),
    ];
    for (ty, init, corrupt) in cases {
        let spec_text = SORT_SPEC.replace("INIT", init).replace("TYPE", ty);
        assert_eq!(
            check(&spec_text, &rank_sort(ty, &format!("{ty}(0)")), &[]),
            None,
            "{ty}"
        );
        let failed = check(&spec_text, &rank_sort(ty, corrupt), &[])
            .unwrap_or_else(|| panic!("{ty}: the corrupted sort passed"));
        assert!(
            failed.starts_with(&format!("sorted-permutation ({ty}) of 0:0: binding 0:1: ")),
            "{failed}"
        );
        assert!(
            failed.contains("not a permutation of 0:0: 1 value missing"),
            "{failed}"
        );
        assert!(failed.contains(" elements wrong: ["), "{failed}");
    }
}

/// Each thread sums the inputs up to its own (inclusive) or before it (exclusive), wrapping;
/// thread 7 adds `CORRUPT`.
const SCAN: &str = "
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> inclusive: array<u32>;
@group(0) @binding(2) var<storage, read_write> exclusive: array<u32>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    var sum = 0u;
    for (var j = 0u; j < i; j++) {
        sum += input[j];
    }
    let bad = select(0u, CORRUPT, i == 7u);
    exclusive[i] = sum + bad;
    inclusive[i] = sum + input[i] + bad;
}";

const SCAN_SPEC: &str = r#"
shader = "app.wgsl"
workgroups = [4]

[[binding]]
binding = 0
kind = "storage"
words = 64
init = { kind = "random", seed = 3 }

[[binding]]
binding = 1
kind = "storage"
words = 64

[[binding]]
binding = 2
kind = "storage"
words = 64

[[check]]
binding = 1
kind = "inclusive-scan"
of = 0

[[check]]
name = "offsets"
binding = 2
kind = "exclusive-scan"
of = 0
"#;

#[test]
fn inclusive_and_exclusive_scans() {
    // Random words: the sums wrap, as u32 addition does on the GPU.
    assert_eq!(check(SCAN_SPEC, &SCAN.replace("CORRUPT", "0u"), &[]), None);
    let failed = check(SCAN_SPEC, &SCAN.replace("CORRUPT", "1u"), &[]).unwrap();
    assert!(
        failed.starts_with(
            "inclusive-scan (add, u32) of 0:0: binding 0:1: 1 of 64 elements wrong: [7] = "
        ),
        "{failed}"
    );
    // The first failing check speaks; without the inclusive one, the exclusive one does.
    let exclusive_only = SCAN_SPEC.replace(
        "kind = \"inclusive-scan\"\nof = 0",
        "kind = \"sorted\"\nwords = 1",
    );
    let failed = check(&exclusive_only, &SCAN.replace("CORRUPT", "1u"), &[]).unwrap();
    assert!(
        failed.starts_with("check `offsets`: binding 0:2: 1 of 64 elements wrong: [7] = "),
        "{failed}"
    );
}

/// Reads typed initial contents and writes f32 results that differ from the exact ones by
/// rounding; thread 9 adds `CORRUPT` to its f32 result.
const TYPED: &str = "
@group(0) @binding(0) var<storage, read> values: array<f32, 4>;
@group(0) @binding(1) var<storage, read> pattern: array<i32>;
@group(0) @binding(2) var<storage, read> steps: array<f32>;
@group(0) @binding(3) var<storage, read> fill: array<i32>;
@group(0) @binding(4) var<storage, read_write> ints: array<i32>;
@group(0) @binding(5) var<storage, read_write> floats: array<f32>;
@group(0) @binding(6) var<storage, read> down: array<i32>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    ints[i] = pattern[i] * fill[i] + down[i];
    let x = steps[i] + values[i % 4u];
    floats[i] = (x / 3.0) * 3.0 + select(0.0, CORRUPT, i == 9u);
}";

const TYPED_SPEC: &str = r#"
shader = "app.wgsl"
workgroups = [1]

[[binding]]
binding = 0
kind = "storage"
words = 4
init = { kind = "values", type = "f32", values = [0.1, -0.2, 1e-3, 7] }

[[binding]]
binding = 1
kind = "storage"
words = 16
init = { kind = "repeat", type = "i32", values = [1, -2, 3, -4] }

[[binding]]
binding = 2
kind = "storage"
words = 16
init = { kind = "range", type = "f32", start = -1.5, step = 0.25 }

[[binding]]
binding = 3
kind = "storage"
words = 16
init = { kind = "fill", type = "i32", value = -3 }

[[binding]]
binding = 4
kind = "storage"
words = 16

[[binding]]
binding = 5
kind = "storage"
words = 16

[[binding]]
binding = 6
kind = "storage"
words = 16
init = { kind = "range", type = "i32", start = 100, step = -7 }

[[check]]
binding = 4
kind = "equals"
type = "i32"
values = [97, 99, 77, 91, 69, 71, 49, 63, 41, 43, 21, 35, 13, 15, -7, 7]

[[check]]
binding = 5
kind = "equals"
type = "f32"
values = [-1.4, -1.45, -0.999, 6.25, -0.4, -0.45, 0.001, 7.25,
          0.6, 0.55, 1.001, 8.25, 1.6, 1.55, 2.001, 9.25]
tolerance = { absolute = 1e-6, relative = 1e-6 }
"#;

#[test]
fn typed_inputs_and_equality_within_a_tolerance() {
    let unused = TYPED.replace("CORRUPT", "0.0");
    assert_eq!(check(TYPED_SPEC, &unused, &[]), None);
    let failed = check(TYPED_SPEC, &TYPED.replace("CORRUPT", "1e-4"), &[]).unwrap();
    assert!(
        failed
            .starts_with("equals (f32) values: binding 0:5: 1 of 16 elements wrong: [9] = 0.5501"),
        "{failed}"
    );
    assert!(failed.ends_with("(expected 0.55)"), "{failed}");
    // Without the tolerance, rounding in (x / 3) * 3 fails some elements, or none on a device
    // that rounds back exactly; never the corrupted one alone by chance of its value.
    let strict = TYPED_SPEC.replace("tolerance = { absolute = 1e-6, relative = 1e-6 }", "");
    if let Some(failed) = check(&strict, &unused, &[]) {
        assert!(failed.contains(" elements wrong: "), "{failed}");
    }
}

/// Counts keys into bins with atomics from every workgroup; thread 3 adds `CORRUPT` more.
const HISTOGRAM: &str = "
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&bins[keys[id.x]], 1u + select(0u, CORRUPT, id.x == 3u));
}";

/// The same histogram, by one thread, in its own file.
const HISTOGRAM_REFERENCE: &str = "
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<u32, 16>;

@compute @workgroup_size(1)
fn count() {
    for (var i = 0u; i < 256u; i++) {
        bins[keys[i]] += 1u;
    }
}";

const HISTOGRAM_SPEC: &str = r#"
shader = "app.wgsl"
workgroups = [4]

[[binding]]
binding = 0
kind = "storage"
words = 256
init = { kind = "random", seed = 11, below = 16 }

[[binding]]
binding = 1
kind = "storage"
words = 16

[[check]]
binding = 1
kind = "reference"
shader = "reference.wgsl"
entry = "count"
workgroups = [1]
"#;

#[test]
fn equals_the_output_of_a_reference_kernel() {
    let reference = [("reference.wgsl", HISTOGRAM_REFERENCE)];
    let correct = HISTOGRAM.replace("CORRUPT", "0u");
    assert_eq!(check(HISTOGRAM_SPEC, &correct, &reference), None);
    let failed = check(
        HISTOGRAM_SPEC,
        &HISTOGRAM.replace("CORRUPT", "2u"),
        &reference,
    )
    .unwrap();
    assert!(
        failed.starts_with("reference `count`: binding 0:1: 1 of 16 elements wrong: ["),
        "{failed}"
    );
}

/// Sums rows of 32 f32 values backwards; the reference entry point in the same file sums
/// them forwards, so the two round differently. Row 2 gets `CORRUPT` more.
const ROWS: &str = "
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var s = 0.0;
    for (var j = 32u; j > 0u; j--) {
        s += x[id.x * 32u + j - 1u];
    }
    sums[id.x] = s + select(0.0, CORRUPT, id.x == 2u);
}

@compute @workgroup_size(1)
fn forwards() {
    for (var i = 0u; i < 16u; i++) {
        var s = 0.0;
        for (var j = 0u; j < 32u; j++) {
            s += x[i * 32u + j];
        }
        sums[i] = s;
    }
}";

const ROWS_SPEC: &str = r#"
shader = "app.wgsl"
entry = "main"
workgroups = [2]

[[binding]]
binding = 0
kind = "storage"
words = 512
init = { kind = "range", type = "f32", start = 0.1, step = 0.37 }

[[binding]]
binding = 1
kind = "storage"
words = 16

[[check]]
name = "row sums"
binding = 1
kind = "reference"
entry = "forwards"
workgroups = [1]
type = "f32"
tolerance = { relative = 1e-5 }
"#;

#[test]
fn a_reference_entry_point_in_the_application_shader_within_a_tolerance() {
    assert_eq!(check(ROWS_SPEC, &ROWS.replace("CORRUPT", "0.0"), &[]), None);
    let failed = check(ROWS_SPEC, &ROWS.replace("CORRUPT", "0.5"), &[]).unwrap();
    assert!(
        failed.starts_with("check `row sums`: binding 0:1: 1 of 16 elements wrong: [2] = "),
        "{failed}"
    );
}

#[test]
fn reference_kernels_that_cannot_serve_are_refused_before_any_run() {
    let correct = HISTOGRAM.replace("CORRUPT", "0u");
    let cases = [
        (
            HISTOGRAM_REFERENCE.replace("fn count", "fn counted"),
            "no @compute entry point named `count` for the reference check (the shader has: counted)",
        ),
        (
            HISTOGRAM_REFERENCE.replace("bins[keys[i]] += 1u;", "let k = keys[i];"),
            "the reference kernel `count` does not write binding 0:1",
        ),
        (
            HISTOGRAM_REFERENCE.replace("256u; i++", "256u; i+"),
            "reference.wgsl:7:",
        ),
        (
            HISTOGRAM_REFERENCE.replace("array<u32, 16>", "array<u32, 32>"),
            "the reference kernel `count` uses @group(0) @binding(1), which needs at least 128 bytes; the spec gives 16 words",
        ),
        (
            // The spec binds a storage buffer where the kernel wants a uniform.
            HISTOGRAM_REFERENCE
                .replace("var<storage, read_write> bins: array<u32, 16>", "var<uniform> bins: array<vec4<u32>, 4>")
                .replace("bins[keys[i]] += 1u;", "let b = bins[keys[i] / 4u];"),
            "the reference kernel `count` uses @group(0) @binding(1) as a uniform, but the spec declares it storage",
        ),        (
            HISTOGRAM_REFERENCE.replace("@binding(0)", "@binding(5)"),
            "uses @group(0) @binding(5), which the spec does not declare",
        ),
    ];
    for (reference, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("app.wgsl", correct.as_str()),
            ("reference.wgsl", &reference),
        ];
        let app = load(dir.path(), HISTOGRAM_SPEC, &files).unwrap();
        let error = match wgstress_runtime::gpu::engine::Engine::new(
            app,
            &wgstress_runtime::gpu::engine::EngineConfig::new(4, 1 << 16),
        ) {
            Ok(_) => panic!("{expected}: the engine started"),
            Err(e) => e.to_string(),
        };
        assert!(error.contains(expected), "{error}");
        assert_eq!(error.lines().count(), 1, "{error}");
    }
}

#[test]
fn spec_mistakes_in_inputs_and_checks_point_at_the_spec() {
    let base = "shader = \"app.wgsl\"\nworkgroups = [1]\n\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = 4\n";
    let cases = [
        (
            "init = { kind = \"values\", type = \"f32\", values = [1, 2, 3, 4, 5] }\n",
            "app.toml:4:1: [[binding]] 1: binding 0:0: init: 5 initial values do not fit a binding of 4 words",
        ),
        (
            "init = { kind = \"range\", type = \"i32\", start = 2147483646, step = 1 }\n",
            "app.toml:4:1: [[binding]] 1: binding 0:0: init: the range reaches 2147483649 at element 3, beyond i32",
        ),
        (
            "init = { kind = \"fill\", type = \"i32\", value = 1.5 }\n",
            "app.toml:8:8: 1.5 is not a i32",
        ),
        (
            "\n[[check]]\nbinding = 0\nkind = \"equals\"\nvalues = [1, 2]\n",
            "app.toml:9:1: [[check]] 1: `values` has 2 values for the 4 checked elements",
        ),
        (
            "\n[[check]]\nbinding = 0\nkind = \"equals\"\nfill = 1\ntolerance = { absolute = 0.1 }\n",
            "app.toml:9:1: a tolerance needs type = \"f32\"",
        ),
        (
            "\n[[check]]\nbinding = 0\nkind = \"inclusive-scan\"\nof = 0\ntolerence = 1\n",
            "app.toml:13:1: unknown field `tolerence`, expected one of",
        ),
    ];
    for (tail, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let error = load(dir.path(), &format!("{base}{tail}"), &[("app.wgsl", "")])
            .err()
            .unwrap_or_else(|| panic!("{tail}: loaded"))
            .to_string();
        let error = error.replace(&format!("{}/", dir.path().display()), "");
        assert!(error.starts_with(expected), "{tail}: {error}");
    }
}
