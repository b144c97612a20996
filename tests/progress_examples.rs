//! The forward-progress examples under examples/progress/ (issue 30) run from their specs, and
//! end or do not end as the progress models say for the scheduler they run under.
//!
//! On lavapipe with LP_NUM_THREADS=1 workgroups run one at a time, in id order, each to its
//! end: a wait on a workgroup that has started ends, a wait on one that has not never does
//! (llvmpipe cuts the spin at 65,535 iterations, so the run ends with wrong results, or, under
//! the watchdog's lower limit, as a watchdog failure at the spin). So the examples that wait
//! only on started workgroups pass there, raw and stressed, and the ones that wait on a
//! workgroup with a higher id fail there at the loop that waits, by workgroup 0. On an
//! adapter that runs the whole dispatch at once (a GPU) both kinds pass.
//!
//! Stressed runs here keep the workgroup ids in hardware order (`--no-shuffle`) where an
//! example's roles follow its ids: a shuffled id would give the waiting role to the workgroup
//! that runs first in half the runs.

use std::path::PathBuf;

fn spec(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/progress")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `wgstress run SPEC --json --no-log ARGS...` with one lavapipe thread: exit status and summary.
fn run(spec: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["run", spec, "--json", "--no-log"])
        .args(args)
        .current_dir(dir.path())
        .env("LP_NUM_THREADS", "1")
        .output()
        .expect("wgstress runs");
    let summary = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{spec} {args:?}: {e}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), summary)
}

const RAW: &[&str] = &["--raw", "--runs", "4"];
const STRESSED: &[&str] = &["--iterations", "32", "--runs", "4", "--no-shuffle"];

fn on_lavapipe(summary: &serde_json::Value) -> bool {
    summary["adapter"]
        .as_str()
        .is_some_and(|a| a.contains("llvmpipe"))
}

/// Runs the spec, asserts that every run passed; the summary.
fn assert_passes(spec: &str, args: &[&str]) -> serde_json::Value {
    let (code, s) = run(spec, args);
    assert_eq!(code, Some(0), "{spec} {args:?}: {s}");
    assert_eq!(s["runs"], 4, "{spec} {args:?}: {s}");
    assert_eq!(s["failures"], 0, "{spec} {args:?}: {s}");
    s
}

#[test]
fn the_waits_on_started_workgroups_end_raw_and_stressed() {
    for name in [
        "lookback/lookback.toml",
        "lookback/lookback_fallback.toml",
        "ticket-lock/ticket_lock_progress.toml",
        "producer-consumer/producer_consumer_increasing.toml",
        "global-barrier/global_barrier_discovery.toml",
    ] {
        let spec = spec(name);
        assert_passes(&spec, RAW);
        assert_passes(&spec, STRESSED);
    }
}

/// Each tile's predecessor belongs to a workgroup with a higher id: on lavapipe, one that has
/// not started, so every workgroup reduces every tile before its own, and the sum is right.
#[test]
fn the_fallback_does_the_work_of_workgroups_that_have_not_started() {
    let spec = spec("lookback/lookback_fallback_descending.toml");
    assert_passes(&spec, RAW);
    let s = assert_passes(&spec, STRESSED);
    if on_lavapipe(&s) {
        // Workgroup 0, first to run, has tile 31: its look-back reads each of 31 predecessors
        // `tries` (16) times, then reduces its tile.
        let longest = s["longest_passing_loop"].as_u64().unwrap();
        assert!(
            longest >= 31 * 16,
            "the look-back did not fall back on every tile: {s}"
        );
    }
}

#[test]
fn the_waits_on_higher_ids_do_not_end_on_lavapipe_at_their_loop() {
    // `raw`: whether to run it raw too. Raw, each workgroup of the look-back spins until
    // llvmpipe cuts its loops, with two workgroup barriers an iteration: 10 s and more a run.
    for (name, wait, raw) in [
        (
            "lookback/lookback_descending.toml",
            "lookback.wgsl:93:9",
            false,
        ),
        (
            "producer-consumer/producer_consumer_decreasing.toml",
            "producer_consumer.wgsl:45:13",
            true,
        ),
        (
            "global-barrier/global_barrier_plain.toml",
            "global_barrier_plain.wgsl:34:9",
            true,
        ),
    ] {
        let spec = spec(name);
        let (code, s) = run(&spec, STRESSED);
        if !on_lavapipe(&s) {
            assert_eq!(code, Some(0), "{spec}: {s}");
            continue;
        }
        assert_eq!(code, Some(1), "{spec}: {s}");
        // Every run stops at the wait, found stalled (a hang) or past the watchdog's limit.
        let stopped =
            s["counts"]["hang"].as_u64().unwrap() + s["counts"]["watchdog"].as_u64().unwrap();
        assert_eq!(stopped, 4, "{spec}: {s}");
        let detail = s["first_failure"]["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("{wait} "))
                && (detail.contains("by workgroup [0, 0, 0]") || detail.contains("workgroup 0 at")),
            "{spec}: {detail}"
        );
        if raw {
            // The spin is cut by llvmpipe and the check sees what was never written.
            let (code, s) = run(&spec, &["--raw", "--runs", "1"]);
            assert_eq!(code, Some(1), "{spec}: {s}");
            assert_eq!(s["counts"]["postcondition"], 1, "{spec}: {s}");
        }
    }
}

#[test]
fn tint_accepts_every_progress_example_as_given_and_instrumented() {
    let mut found = Vec::new();
    for dir in std::fs::read_dir(spec("")).unwrap().flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if file.path().extension().is_some_and(|e| e == "toml") {
                found.push(file.path());
            }
        }
    }
    found.sort();
    assert_eq!(found.len(), 9, "{found:?}");
    let mut shaders = Vec::new();
    for path in found {
        let app = wgstress_runtime::app::spec::load(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        for dispatch in app.dispatches() {
            let (file, source) = app.shader_of(&dispatch);
            let options = wgstress_instrument::InstrumentOptions {
                entry: dispatch.entry.clone(),
                file_name: Some(file.to_string()),
                constants: app.constants.clone(),
                ..Default::default()
            };
            shaders.push(wgstress_tint::NamedWgsl::new(
                format!("{stem} source"),
                source,
            ));
            // As `progress` builds them, and on a device that starts workgroups out of id
            // order (SwiftShader, in a browser too), with ids given in start order.
            let holding = wgstress_instrument::InstrumentOptions {
                parking: true,
                hold_writes: true,
                ..options.clone()
            };
            let in_order = wgstress_instrument::InstrumentOptions {
                start_order: true,
                ..holding.clone()
            };
            for (what, options) in [
                ("instrumented", options),
                ("holding", holding),
                ("in start order", in_order),
            ] {
                let out = wgstress_instrument::instrument_wgsl(source, &options)
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                shaders.push(wgstress_tint::NamedWgsl::new(
                    format!("{stem} {what}"),
                    out.wgsl,
                ));
            }
        }
    }
    wgstress_tint::assert_valid(&shaders);
}
