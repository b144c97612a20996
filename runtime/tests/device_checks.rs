//! Checks compared on the device, where the data is: every kind a kernel compares (equals-file,
//! all-equal, equals with values, fill or another binding's contents, reference kernels)
//! gives a passing and a failing run the same outcome and the same report as the same check
//! verified on the host (`EngineConfig::host_checks`), over whole bindings and selections;
//! and a large binding checked on the device is not read back.

mod common;
use common::*;
use std::path::Path;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::spec::{self, App};
use wgstress_runtime::gpu::engine::{Engine, EngineConfig};

/// Writes `out[i]` = `VALUE` for element i, one word more where binding 2 holds 1 and
/// `i % 37 == 5` or i is the last element (eight of 256 elements: more than a report lists). `copy` is a reference
/// kernel: the correct output, by one thread.
const SHADER: &str = "
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> bad: array<u32>;

fn value(i: u32) -> u32 {
    return VALUE;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let wrong = bad[0] == 1u && (i % 37u == 5u || i == 255u);
    out[i] = value(i) + select(0u, 1u, wrong);
}

@compute @workgroup_size(1)
fn copy() {
    for (var i = 0u; i < 256u; i++) {
        out[i] = value(i);
    }
}";

const SPEC: &str = r#"
shader = "app.wgsl"
entry = "main"
workgroups = [4]

[[binding]]
binding = 0
kind = "storage"
words = 256
init = { kind = "range", start = 100, step = 3 }

[[binding]]
binding = 1
kind = "storage"
words = 256

[[binding]]
binding = 2
kind = "storage"
words = 1

[[check]]
binding = 1
CHECK
"#;

/// Each run's outcome and report, for a run whose kernel is correct and one where it is not.
type Verdicts = Vec<(RunOutcome, Option<String>)>;

fn load(dir: &Path, check: &str, value: &str) -> App {
    std::fs::write(dir.join("app.wgsl"), SHADER.replace("VALUE", value)).unwrap();
    let expected: Vec<u8> = (0..256u32)
        .flat_map(|i| (100 + 3 * i).to_le_bytes())
        .collect();
    std::fs::write(dir.join("expected.bin"), expected).unwrap();
    let path = dir.join("app.toml");
    std::fs::write(&path, SPEC.replace("CHECK", check)).unwrap();
    spec::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn engine_with(app: App, host_checks: bool) -> Engine {
    let config = EngineConfig {
        host_checks,
        ..EngineConfig::new(8, 1 << 16)
    };
    Engine::new(app, &config).unwrap_or_else(|e| panic!("engine: {e}"))
}

/// Runs of `engine` under systematic stress, first correct, then corrupted.
fn verdicts(engine: &mut Engine) -> (Verdicts, Verdicts) {
    let mut both = Vec::new();
    for bad in [0u32, 1] {
        engine.set_contents((0, 2), vec![bad]).unwrap();
        let runs = params(engine, &settings(Strategy::Systematic, true), 0..4);
        let results = engine.run(&runs).unwrap();
        both.push(
            results
                .into_iter()
                .map(|r| (r.outcome, r.host.map(|f| f.to_string())))
                .collect::<Verdicts>(),
        );
    }
    let failing = both.pop().unwrap();
    (both.pop().unwrap(), failing)
}

/// The failure of a corrupted run of `check` (on words `value` writes), the same with the
/// check on the device and on the host; a correct run passes both ways.
fn both_ways(check: &str, value: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (message, device, host) = ways(load(dir.path(), check, value), check);
    assert!(
        device < host,
        "{check}: the checked binding is not read back"
    );
    message
}

/// `both_ways` for `app`: the failure, and the bytes a run reads back with its checks on
/// the device where they can be, and all on the host.
fn ways(app: App, check: &str) -> (String, u64, u64) {
    let mut device = engine_with(app.clone(), false);
    let mut host = engine_with(app, true);
    let bytes = (device.read_back_bytes(1), host.read_back_bytes(1));
    let (pass, fail) = verdicts(&mut device);
    let (host_pass, host_fail) = verdicts(&mut host);
    assert_eq!(pass, host_pass, "{check}");
    assert_eq!(fail, host_fail, "{check}");
    assert!(
        pass.iter().all(|v| *v == (RunOutcome::Pass, None)),
        "{check}: {pass:?}"
    );
    let (outcome, message) = &fail[0];
    assert_eq!(*outcome, RunOutcome::Postcondition, "{check}");
    assert!(fail.iter().all(|v| v == &fail[0]), "{check}: {fail:?}");
    (message.clone().unwrap(), bytes.0, bytes.1)
}

/// A check of words `value` writes passes every run, corrupted or not, on the device and on
/// the host.
fn passes_both_ways(check: &str, value: &str) {
    let dir = tempfile::tempdir().unwrap();
    let app = load(dir.path(), check, value);
    for host_checks in [false, true] {
        let (pass, fail) = verdicts(&mut engine_with(app.clone(), host_checks));
        for v in pass.iter().chain(&fail) {
            assert_eq!(
                *v,
                (RunOutcome::Pass, None),
                "{check}, host_checks {host_checks}"
            );
        }
    }
}

const LISTED: &str = "8 of 256 elements wrong: [5] = 101 (expected 100), [42] = 101 (expected 100), [79] = 101 (expected 100), [116] = 101 (expected 100), ...";

#[test]
fn all_equal_and_equals_fill_compare_alike_on_the_device_and_the_host() {
    let failed = both_ways("kind = \"all-equal\"\nvalue = 100", "100u");
    assert_eq!(failed, format!("all-equal 100: binding 0:1: {LISTED}"));
    let failed = both_ways("kind = \"equals\"\nfill = 100", "100u");
    assert_eq!(failed, format!("equals fill 100: binding 0:1: {LISTED}"));
    let failed = both_ways(
        "kind = \"equals\"\ntype = \"i32\"\nfill = -3",
        "bitcast<u32>(-3i)",
    );
    assert!(
        failed.starts_with(
            "equals fill -3: binding 0:1: 8 of 256 elements wrong: [5] = -2 (expected -3), [42] = -2"
        ),
        "{failed}"
    );
}

#[test]
fn f32_equality_on_the_device_is_the_hosts_without_a_tolerance() {
    // Odd elements are -0.0, which equals 0.0; the corrupted ones are the least subnormal.
    let failed = both_ways(
        "kind = \"equals\"\ntype = \"f32\"\nfill = 0.0",
        "select(0u, 0x80000000u, i % 2u == 1u)",
    );
    assert!(
        failed.contains(": binding 0:1: 8 of 256 elements wrong: [5] = "),
        "{failed}"
    );
    // NaN equals NaN, whatever its bits: the corrupted element 5 is another NaN.
    passes_both_ways(
        "kind = \"equals\"\ntype = \"f32\"\nvalues = [nan, nan, nan, nan, nan, nan, nan, nan]\ncount = 8",
        "0x7fc00000u + i",
    );
}

#[test]
fn equals_another_binding_a_file_or_values_compare_alike() {
    let expected = |i: u32| 100 + 3 * i;
    let listed = [5u32, 42, 79, 116]
        .map(|i| format!("[{i}] = {} (expected {})", expected(i) + 1, expected(i)))
        .join(", ");
    let failed = both_ways("kind = \"equals\"\nof = 0", "input[i]");
    assert_eq!(
        failed,
        format!("equals (u32) 0:0: binding 0:1: 8 of 256 elements wrong: {listed}, ...")
    );
    let failed = both_ways(
        "kind = \"equals-file\"\npath = \"expected.bin\"",
        "input[i]",
    );
    assert!(failed.starts_with("equals-file "), "{failed}");
    assert!(
        failed.ends_with(&format!(
            "binding 0:1: 8 of 256 elements wrong: {listed}, ..."
        )),
        "{failed}"
    );
    let failed = both_ways(
        "kind = \"equals\"\nvalues = [100, 103, 106, 109, 112, 115, 118]\ncount = 7",
        "input[i]",
    );
    assert_eq!(
        failed,
        "equals (u32) values: binding 0:1 [0..=6]: 1 of 7 elements wrong: [5] = 116 (expected 115)"
    );
}

#[test]
fn reference_kernels_compare_alike() {
    let failed = both_ways(
        "kind = \"reference\"\nentry = \"copy\"\nworkgroups = [1]",
        "input[i] * 2u",
    );
    assert!(
        failed.starts_with(
            "reference `copy`: binding 0:1: 8 of 256 elements wrong: [5] = 231 (expected 230), [42] = "
        ),
        "{failed}"
    );
}

#[test]
fn selections_compare_alike() {
    // Of the corrupted elements (5, 42, 79, 116, 153, 190, 227, 255), 5 and 190 are among
    // elements 5, 10, ..., 250.
    let failed = both_ways(
        "kind = \"all-equal\"\nvalue = 100\nstart = 5\ncount = 50\nstride = 5",
        "100u",
    );
    assert_eq!(
        failed,
        "all-equal 100: binding 0:1 [5..=250 step 5]: 2 of 50 elements wrong: [5] = 101 (expected 100), [190] = 101 (expected 100)"
    );
    let failed = both_ways(
        "kind = \"equals\"\nof = 0\nstart = 40\ncount = 10",
        "input[i]",
    );
    assert_eq!(
        failed,
        "equals (u32) 0:0: binding 0:1 [40..=49]: 1 of 10 elements wrong: [42] = 227 (expected 226)"
    );
    let failed = both_ways("kind = \"all-equal\"\nvalue = 100\nlast = true", "100u");
    assert_eq!(
        failed,
        "all-equal 100: binding 0:1 [255]: 1 of 1 element wrong: [255] = 101 (expected 100)"
    );
}

#[test]
fn checks_on_the_host_and_the_device_fail_in_the_order_the_spec_declares() {
    // A binding a host-side check reads is still read back in full; the first check that
    // fails is the run's failure, wherever each ran.
    let dir = tempfile::tempdir().unwrap();
    let all_equal = "kind = \"all-equal\"\nvalue = 100";
    let sorted = "kind = \"sorted\"";
    for (first, second, reported) in [
        (all_equal, sorted, "all-equal 100: "),
        (sorted, all_equal, "sorted (u32): "),
    ] {
        let check = format!("{first}\n\n[[check]]\nbinding = 1\n{second}");
        let (message, device, host) = ways(load(dir.path(), &check, "100u"), &check);
        assert!(message.starts_with(reported), "{message}");
        assert!(
            device >= host,
            "binding 1 is read back for `sorted`: {device} < {host}"
        );
    }
}

#[test]
fn a_large_binding_checked_on_the_device_is_not_read_back() {
    const WORDS: u32 = 1 << 18;
    let dir = tempfile::tempdir().unwrap();
    let spec_text = SPEC
        .replace("CHECK", "kind = \"all-equal\"\nvalue = 100")
        .replace(
            "words = 256\n\n[[binding]]\nbinding = 2",
            &format!("words = {WORDS}\n\n[[binding]]\nbinding = 2"),
        )
        .replace(
            "workgroups = [4]",
            &format!("workgroups = [{}]", WORDS / 64),
        );
    std::fs::write(dir.path().join("app.wgsl"), SHADER.replace("VALUE", "100u")).unwrap();
    let path = dir.path().join("app.toml");
    std::fs::write(&path, spec_text).unwrap();
    let app = spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(app.binding(0, 1).unwrap().words, WORDS);
    let (message, device, host) = ways(app, "a large all-equal");
    let wrong = (0..WORDS).filter(|i| i % 37 == 5 || *i == 255).count();
    assert!(
        message.starts_with(&format!(
            "all-equal 100: binding 0:1: {wrong} of {WORDS} elements wrong: [5] = 101 (expected 100), [42] = "
        )),
        "{message}"
    );
    let binding = u64::from(WORDS) * 4;
    assert!(host >= binding, "{host}");
    assert!(
        device < host - binding + 4096,
        "{device} bytes, {host} on the host"
    );
}
