//! `wgstress progress APP` on the forward-progress examples gives what the progress models
//! predict (the seed's Table 1 and §2.3), on lavapipe: a wait on a workgroup the model does not
//! guarantee to run starves, and every other run ends.
//!
//! lavapipe gives each of its threads a contiguous share of the dispatch, in id order, and
//! runs a workgroup to its end: with two threads, two workgroups run at once, which is what a
//! held workgroup's waiters need to be seen waiting. A model's verdict is "starves" as soon as
//! one run starved (`--until-failures 1`), and "terminates" only when every run ended and
//! passed; the runs a starving verdict needs are drawn at random (which workgroup is held,
//! and when), so each model gets up to 96.

use serde_json::Value;
use std::path::PathBuf;
use std::sync::Mutex;

/// One at a time: a held workgroup's waiters are seen only when lavapipe's threads get the
/// cores, which tests beside each other would take.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `wgstress progress SPEC --json --no-log ARGS...` on two lavapipe threads: the report.
fn progress(spec: &str, threads: &str, args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["progress", spec, "--json", "--no-log", "--runs", "600"])
        .args(["--until-failures", "1"])
        .args(args)
        .current_dir(dir.path())
        .env("LP_NUM_THREADS", threads)
        .output()
        .expect("wgstress runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{spec} {args:?}: {e}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn on_lavapipe(report: &Value) -> bool {
    report["adapter"]
        .as_str()
        .is_some_and(|a| a.contains("llvmpipe"))
}

/// The verdict of each model, in the report's order.
fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            (
                m["model"].as_str().unwrap().to_string(),
                m["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn expect(report: &Value, terminates: &[&str], starves: &[&str]) {
    if !on_lavapipe(report) {
        return;
    }
    let got = verdicts(report);
    for (model, verdict) in &got {
        let want = if terminates.contains(&model.as_str()) {
            "terminates"
        } else if starves.contains(&model.as_str()) {
            "starves"
        } else {
            continue;
        };
        assert_eq!(verdict, want, "{model}: {report:#}");
    }
    // A starving model names its wait and the run that replays it.
    for m in report["models"].as_array().unwrap() {
        if m["verdict"] == "starves" {
            let wait = m["wait"].as_str().unwrap();
            assert!(wait.starts_with("starved under"), "{wait}");
            assert!(wait.contains(".wgsl:"), "{wait}");
            let replay = m["replay"].as_str().unwrap();
            assert!(replay.contains("--seed 0x"), "{replay}");
            assert!(replay.contains(&format!("--schedule {}", m["model"].as_str().unwrap())));
        }
    }
}

#[test]
fn the_look_back_without_fallback_needs_obe_and_starves_under_hsa_and_unfair() {
    let _serial = serial();
    let report = progress(
        &example("progress/lookback/lookback.toml"),
        "2",
        &["--no-occupancy"],
    );
    expect(&report, &["fair", "obe", "lobe"], &["hsa", "unfair"]);
    if on_lavapipe(&report) {
        assert_eq!(report["needs"]["models"], serde_json::json!(["obe"]));
    }
}

#[test]
fn the_look_back_with_fallback_terminates_under_every_model() {
    let _serial = serial();
    let report = progress(
        &example("progress/lookback/lookback_fallback.toml"),
        "2",
        &["--no-occupancy"],
    );
    expect(&report, &["fair", "obe", "hsa", "lobe", "unfair"], &[]);
    if on_lavapipe(&report) {
        assert_eq!(report["needs"]["models"], serde_json::json!(["unfair"]));
    }
}

#[test]
fn a_hand_off_without_a_loop_in_its_producer_starves_where_it_can_be_held_after_its_ticket() {
    let _serial = serial();
    // The producer takes a ticket and raises a flag, nothing between: only a hold after its
    // ticket (an atomic, a write) starves the others, as unfair allows and OBE does not.
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/progress/ticket_handoff.toml")
        .to_string_lossy()
        .into_owned();
    let report = progress(&spec, "4", &["--no-occupancy", "--models", "obe,unfair"]);
    expect(&report, &["obe"], &["unfair"]);
    if !on_lavapipe(&report) {
        return;
    }
    let models = report["models"].as_array().unwrap();
    let unfair = &models[1];
    let wait = unfair["wait"].as_str().unwrap();
    assert!(
        wait.contains("after the write at") && wait.contains("ticket_handoff.wgsl:11:18"),
        "{wait}"
    );
    // The report says where the runs held workgroups, against where the model allows.
    let obe = &models[0]["holds"];
    assert_eq!(obe["places"], 1, "{report:#}");
    assert_eq!(obe["places_held"], 1, "{report:#}");
    assert_eq!(obe["workgroups_held"], 4, "{report:#}");
    assert!(
        unfair["holds"]["places"].as_u64().unwrap() > 1,
        "{report:#}"
    );
    // OBE is not the weakest model run: unfair starves, so OBE is what it needs.
    assert_eq!(report["needs"]["models"], serde_json::json!(["obe"]));
}

#[test]
fn the_ticket_lock_terminates_under_obe_and_starves_under_hsa_and_unfair() {
    let _serial = serial();
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/progress/ticket_lock_two_rounds.toml")
        .to_string_lossy()
        .into_owned();
    let report = progress(
        &spec,
        "2",
        &["--no-occupancy", "--models", "obe,hsa,unfair"],
    );
    expect(&report, &["obe"], &["hsa", "unfair"]);
}

#[test]
fn producer_consumer_follows_the_seeds_figure_3_in_both_id_orders() {
    let _serial = serial();
    // Increasing id (the consumer waits on a lower id): HSA and LOBE run the producer.
    let increasing = progress(
        &example("progress/producer-consumer/producer_consumer_increasing.toml"),
        "2",
        &["--no-occupancy"],
    );
    expect(&increasing, &["fair", "hsa", "lobe"], &["obe", "unfair"]);
    // Decreasing id: only a fair scheduler runs the producer while the lower id spins.
    let decreasing = progress(
        &example("progress/producer-consumer/producer_consumer_decreasing.toml"),
        "2",
        &["--no-occupancy"],
    );
    expect(&decreasing, &["fair"], &["obe", "hsa", "lobe", "unfair"]);
}

#[test]
fn a_global_barrier_starves_below_its_occupancy_unless_it_discovers_it() {
    let _serial = serial();
    // Two workgroups on two lavapipe threads, one a core, run at once; an occupancy bound of
    // one leaves the second unstarted while the first waits at the barrier. (The examples'
    // four workgroups need four threads, which two cores time-slice: a spinner left running
    // for a slice passes llvmpipe's 65,535 iterations, a loop the driver then ends.)
    let plain = progress(
        &fixture("global_barrier_plain_2.toml"),
        "2",
        &["--models", "fair"],
    );
    if on_lavapipe(&plain) {
        let one = &plain["occupancy"][0];
        assert_eq!(one["occupancy"], 1, "{plain:#}");
        assert_eq!(one["verdict"], "starves", "{plain:#}");
        assert!(
            one["wait"]
                .as_str()
                .unwrap()
                .contains("waited to start for a free slot (occupancy 1)"),
            "{plain:#}"
        );
        assert!(plain["needs_occupancy"].as_u64().unwrap() >= 2, "{plain:#}");
    }
    let discovery = progress(
        &fixture("global_barrier_discovery_2.toml"),
        "2",
        &["--models", "fair"],
    );
    if on_lavapipe(&discovery) {
        for level in discovery["occupancy"].as_array().unwrap() {
            assert_eq!(level["verdict"], "terminates", "{discovery:#}");
        }
        assert_eq!(discovery["needs_occupancy"], Value::Null, "{discovery:#}");
    }
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/progress")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `wgstress run SPEC --json --no-log ARGS...` on two lavapipe threads: exit status, summary.
fn run(spec: &str, args: &[&str]) -> (Option<i32>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["run", spec, "--json", "--no-log", "--strategy", "none"])
        .args(args)
        .current_dir(dir.path())
        .env("LP_NUM_THREADS", "2")
        .output()
        .expect("wgstress runs");
    let summary = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{spec}: {e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), summary)
}

#[test]
fn a_long_wait_that_ends_is_no_failure_past_the_watchdogs_limit() {
    let _serial = serial();
    // 256 workgroups take a ticket lock once each; waits are far longer than the limit given
    // (on an idle machine, some 36 iterations; loaded, thousands), and a wait that sees the
    // lock served is getting somewhere.
    // A machine busy enough that the operating system runs llvmpipe's two threads one after
    // the other has no workgroup wait at all: every session passes, and another is tried
    // until one shows a wait past the limit.
    for attempt in 1..=5 {
        let (code, s) = run(
            &fixture("ticket_lock_256.toml"),
            &["--runs", "4", "--watchdog-limit", "4"],
        );
        assert_eq!(code, Some(0), "{s:#}");
        assert_eq!(s["counts"]["pass"], 4, "{s:#}");
        if !s["adapter"].as_str().unwrap().contains("llvmpipe") {
            return;
        }
        let longest = s["longest_passing_loop"].as_u64().unwrap();
        if longest > 4 {
            return;
        }
        assert!(attempt < 5, "no wait passed the limit in 5 sessions: {s:#}");
    }
}

#[test]
fn a_deadlock_is_a_hang_at_its_loop_within_two_seconds_and_the_runs_are_kept() {
    let _serial = serial();
    let spec = fixture("deadlock.toml");
    // The first run of a new shader compiles it (seconds on lavapipe); the runs after it time
    // the hang alone.
    run(&spec, &["--runs", "1"]);
    let (code, s) = run(&spec, &["--runs", "3", "--batch", "1"]);
    assert_eq!(code, Some(1), "{s:#}");
    assert_eq!(s["counts"]["hang"], 3, "{s:#}");
    assert_eq!(s["runs"], 3, "{s:#}");
    let detail = s["first_failure"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("no progress: workgroup ") && detail.contains("deadlock.wgsl:9:5"),
        "{detail}"
    );
    assert!(
        detail.contains("run again without that verdict, the wait was still not over"),
        "{detail}"
    );
    let first = s["time_to_first_failure"].as_f64().unwrap();
    assert!(first < 2.0, "the first hang after {first} s: {s:#}");
    let per_run = s["seconds"].as_f64().unwrap() / 3.0;
    assert!(per_run < 1.0, "{per_run} s a run: {s:#}");
}

#[test]
fn correct_locks_draw_no_hang() {
    let _serial = serial();
    // Test-and-set spin locks of 16 and 64 single-invocation workgroups and a ticket lock of
    // 256: however long a waiter spins while its holder's thread is not run (CI runs this
    // beside a busy loop on each core), none is a hang.
    for (spec, runs) in [
        ("spin_lock_16.toml", "2000"),
        ("spin_lock_64.toml", "1000"),
        ("ticket_lock_256.toml", "100"),
    ] {
        let (code, s) = run(&fixture(spec), &["--runs", runs]);
        assert_eq!(code, Some(0), "{spec}: {s:#}");
        assert_eq!(s["counts"]["hang"], 0, "{spec}: {s:#}");
        assert_eq!(s["failures"], 0, "{spec}: {s:#}");
    }
}

#[test]
fn a_long_wait_while_nothing_gets_anywhere_that_ends_is_a_slow_wait_not_a_hang() {
    let _serial = serial();
    // Workgroup 0 polls a quiet word 30,000 times before it raises the flag workgroup 1 spins
    // on: the detector sees no progress anywhere long before the flag, and the host, running
    // each such run again without its verdict, sees the wait end.
    let (code, s) = run(&fixture("slow_handoff.toml"), &["--runs", "6"]);
    assert_eq!(code, Some(0), "{s:#}");
    assert_eq!(s["counts"]["hang"], 0, "{s:#}");
    assert_eq!(s["counts"]["pass"], 6, "{s:#}");
    // With two lavapipe threads the two workgroups run at once, and every run is suspected.
    assert!(s["slow_waits"].as_u64().unwrap() > 0, "{s:#}");
}
