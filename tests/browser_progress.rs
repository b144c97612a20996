//! `progress --browser` gives lavapipe's verdicts: each progress example (examples/progress)
//! runs natively on lavapipe and in a headless Chromium on SwiftShader, with the same seed and
//! runs, and under every model and occupancy bound the two say the same: starved, failed, or
//! neither; but where a device hangs the example under fair with nothing held (then every
//! model's runs starve or fail there, and which is a race). SwiftShader starts workgroups out of id order, on threads it does not share; the
//! emulation gives ids in start order there (docs/progress.md, "The scheduler's rules on
//! SwiftShader"), without which the browser named starvation lavapipe does not and held
//! batches outlasted the hang timeout.
//!
//! A test file of its own: cargo runs test files one after another, so no other test's work
//! shares the two cores with these runs, whose stall windows a busy machine stretches.

mod common;

use common::wgstress;
use serde_json::Value;
use std::path::Path;

/// What one model's (or occupancy bound's) runs showed, as the comparison takes it; in the
/// order attempts merge in (what one attempt showed, more runs can only add to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shown {
    /// No run starved or failed: it terminates, or the runs were too few, or held too few
    /// places, to say so.
    Neither,
    /// Some run failed otherwise, none starved: the device itself hung it (a wait on a
    /// workgroup it never ran, with nothing held), so the models cannot be told apart.
    Failed,
    /// Some run starved: the model does not guarantee the example ends.
    Starved,
}

fn shown(result: &Value) -> Shown {
    match result["verdict"].as_str() {
        Some("starves") => Shown::Starved,
        _ if result["other_failures"].as_u64().unwrap_or(0) > 0 => Shown::Failed,
        Some("terminates" | "inconclusive") => Shown::Neither,
        other => panic!("a verdict: {other:?} in {result}"),
    }
}

/// Each model's and occupancy bound's name and what it showed, in the report's order.
fn verdicts(report: &Value) -> Vec<(String, Shown)> {
    let mut found = Vec::new();
    for result in report["models"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["occupancy"].as_array().unwrap())
    {
        let name = match result["occupancy"].as_u64() {
            Some(n) => format!("occupancy {n}"),
            None => result["model"].as_str().unwrap().to_string(),
        };
        found.push((name, shown(result)));
    }
    found
}

/// `progress SPEC` with `args`, natively or in the browser: its JSON report.
fn progress<S: AsRef<str>>(spec: &str, args: &[S], browser: bool, dir: &Path) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/progress")
        .join(spec)
        .display()
        .to_string();
    let mut all = vec![
        "progress",
        &path,
        "--until-failures",
        "1",
        "--json",
        "--no-log",
    ];
    all.extend(args.iter().map(|a| a.as_ref()));
    if browser {
        all.push("--browser");
    }
    let out = wgstress(&all, dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{spec} {all:?}: {stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["aborted"].is_null(), "{spec}: {report}");
    report
}

/// `args` for a second attempt at the model or occupancy bound `name`: another seed, twice
/// the runs, that model alone (a bound: under fair, every bound).
fn again(args: &[&str], name: &str) -> Vec<String> {
    let mut again = Vec::new();
    let mut at = 0;
    while at < args.len() {
        match args[at] {
            "--runs" => {
                let runs: u64 = args[at + 1].parse().unwrap();
                again.extend(["--runs".to_string(), (runs * 2).to_string()]);
                at += 2;
            }
            "--master-seed" => {
                again.extend(["--master-seed".to_string(), "11".to_string()]);
                at += 2;
            }
            "--models" => at += 2,
            "--no-occupancy" => at += 1,
            other => {
                again.push(other.to_string());
                at += 1;
            }
        }
    }
    let model = if name.starts_with("occupancy") {
        "fair"
    } else {
        name
    };
    again.extend(["--models".to_string(), model.to_string()]);
    if !name.starts_with("occupancy") {
        again.push("--no-occupancy".to_string());
    }
    again
}

#[test]
fn progress_gives_lavapipes_verdicts_in_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let seed = ["--master-seed", "7"];
    let runs = |n: &'static str, more: &[&'static str]| -> Vec<&'static str> {
        [&["--runs", n][..], &seed, more].concat()
    };
    // Each example's runs, as few as show what it needs. The look-backs with the fallback
    // need nothing (every run is long: each slow predecessor is reduced again) and the
    // descending look-back hangs under fair on both devices (every held run then races the
    // hang): fewer models and bounds. The ticket lock has 1,024 workgroups, as many runs as
    // a holding model's verdict needs: the models that decide it (fair ends, HSA starves).
    let examples: [(&str, Vec<&str>); 9] = [
        ("lookback/lookback.toml", runs("128", &[])),
        ("lookback/lookback_fallback.toml", runs("32", &[])),
        (
            "lookback/lookback_descending.toml",
            runs("128", &["--models", "fair,obe,hsa", "--no-occupancy"]),
        ),
        (
            "lookback/lookback_fallback_descending.toml",
            runs("32", &["--no-occupancy"]),
        ),
        (
            "producer-consumer/producer_consumer_increasing.toml",
            runs("128", &[]),
        ),
        (
            "producer-consumer/producer_consumer_decreasing.toml",
            runs("128", &[]),
        ),
        ("global-barrier/global_barrier_plain.toml", runs("128", &[])),
        (
            "global-barrier/global_barrier_discovery.toml",
            runs("128", &[]),
        ),
        (
            "ticket-lock/ticket_lock_progress.toml",
            runs("32", &["--models", "fair,hsa", "--no-occupancy"]),
        ),
    ];
    // Both devices hang these under fair, with nothing held: workgroup 0 waits on a higher id
    // that its thread's queue holds behind it.
    let hanging_on_both = [
        "lookback/lookback_descending.toml",
        "global-barrier/global_barrier_plain.toml",
    ];
    // SwiftShader hangs this one even uninstrumented (`run --raw --browser`), where lavapipe's
    // two threads each take a contiguous half of the ids and so run each consumer beside its
    // producer: SwiftShader starts the consumers (the lower ids) first, on both threads.
    let hanging_in_the_browser = ["producer-consumer/producer_consumer_decreasing.toml"];
    // `WGSTRESS_BROWSER_PROGRESS_EVERY=N` takes every N-th example, the first among them:
    // beside a busy loop per core (.ci/run) the whole set takes several times as long as on
    // an idle machine, where CI's run of the README's test command takes it whole.
    let every: usize = std::env::var("WGSTRESS_BROWSER_PROGRESS_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1);
    let mut differ = Vec::new();
    for (spec, args) in examples.iter().step_by(every) {
        let native = progress(spec, args, false, dir.path());
        let browser = progress(spec, args, true, dir.path());
        assert!(
            native["adapter"].as_str().unwrap().contains("llvmpipe"),
            "{native}"
        );
        assert!(
            browser["adapter"]
                .as_str()
                .unwrap()
                .contains("WebGPU in Chromium"),
            "{browser}"
        );
        let (here, there) = (verdicts(&native), verdicts(&browser));
        assert_eq!(
            here.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            there.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "{spec}: the same models and bounds ran"
        );
        let hangs = |v: &[(String, Shown)]| v[0] == ("fair".to_string(), Shown::Failed);
        for (report, verdicts) in [(&native, &here), (&browser, &there)] {
            if hangs(verdicts) {
                // The device hangs it with nothing held: a wait on a workgroup it never
                // runs, as each of its threads runs a workgroup to its end. Each held run is
                // then starved or failed as the hold and the hang race, and no model is one
                // under which it ends.
                assert!(
                    verdicts.iter().all(|(_, v)| *v != Shown::Neither),
                    "{spec}: {verdicts:?}: {report}"
                );
            }
        }
        let expected = hanging_on_both.contains(spec) || hanging_in_the_browser.contains(spec);
        assert_eq!(
            hangs(&here),
            hanging_on_both.contains(spec),
            "{spec}: {here:?}"
        );
        assert_eq!(hangs(&there), expected, "{spec}: {there:?}");
        if expected {
            continue;
        }
        // Whether a hold that starves is drawn within the runs is chance (lavapipe found the
        // look-back's under HSA in its 43rd run, the browser in its 68th with the same seed,
        // or not in 128): a model or bound they differ on runs again on both, with another
        // seed and twice the runs, and each side's verdict is what its attempts showed.
        let (mut here, mut there) = (here, there);
        for i in 0..here.len() {
            if here[i].1 == there[i].1 {
                continue;
            }
            let name = here[i].0.clone();
            let again = again(args, &name);
            for (browser, verdicts) in [(false, &mut here), (true, &mut there)] {
                let report = progress(spec, &again, browser, dir.path());
                for (other, shown) in self::verdicts(&report) {
                    if other == name {
                        verdicts[i].1 = verdicts[i].1.max(shown);
                    }
                }
            }
        }
        if here != there {
            differ.push(format!("{spec}: lavapipe {here:?}, browser {there:?}"));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}
