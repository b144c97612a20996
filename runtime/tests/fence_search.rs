//! The fence search on a real device (lavapipe in CI): an application whose bug one storage
//! barrier fixes even on a CPU driver, and a correct one.

mod common;
use common::*;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wgstress_fences::lab::Subject;
use wgstress_fences::source::AppSource;
use wgstress_fences::trials::Trials;
use wgstress_fences::{ddmin, FailureRate, FixSet, Lab, Sizing};
use wgstress_model::event::{EventKind, SearchEvent};
use wgstress_model::reporter::Watcher;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::app::failure::CheckFailure;
use wgstress_runtime::app::init::Init;
use wgstress_runtime::app::spec::App;
use wgstress_runtime::fences::gpu::GpuLab;
use wgstress_runtime::fences::parts::source_of;
use wgstress_runtime::gpu::engine::EngineConfig;
use wgstress_runtime::run::runner::{Budget, RunConfig};
use wgstress_runtime::run::stress_plan::{Iterations, StressPlan};

/// The last thread of one workgroup of 64 raises a flag, every thread then reads it. Without
/// a barrier between, a CPU driver runs the workgroup's first threads to their end before
/// the last one starts, so they read 0.
const RACY: &str = "
@group(0) @binding(0) var<storage, read_write> flag: array<u32>;
@group(0) @binding(1) var<storage, read_write> seen: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 63u {
        flag[0] = 1u;
    }
    seen[lid] = flag[0];
}";

fn fixed() -> String {
    RACY.replace("    seen[lid]", "    storageBarrier();\n    seen[lid]")
}

fn flag_app(name: &str, source: &str) -> App {
    let mut app = App::bare(
        name,
        source,
        [1, 1, 1],
        vec![
            Binding::storage(0, 1, Init::Zeros),
            Binding::storage(1, 64, Init::Zeros),
        ],
    );
    app.host_check = Some(Arc::new(|outputs| {
        let seen = outputs.get(0, 1).unwrap();
        match seen.iter().position(|w| *w != 1) {
            Some(thread) => Err(CheckFailure::Message(format!(
                "thread {thread} read {}",
                seen[thread]
            ))),
            None => Ok(()),
        }
    }));
    app
}

fn config() -> RunConfig {
    RunConfig {
        settings: settings(Strategy::Systematic, false),
        budget: Budget {
            runs: None,
            time: None,
            failures: None,
        },
        master_seed: 7,
        replay: None,
        adaptive: true,
        calibration: None,
        stop: Arc::new(AtomicBool::new(false)),
    }
}

fn runs(n: u64) -> Budget {
    Budget {
        runs: Some(n),
        time: None,
        failures: None,
    }
}

#[test]
fn the_fixture_fails_without_a_barrier_and_passes_with_one() {
    let bindings = [
        Binding::storage(0, 1, Init::Zeros),
        Binding::storage(1, 64, Init::Zeros),
    ];
    let racy = run_original(RACY, [1, 1, 1], &bindings);
    assert!(
        racy[1].contains(&0),
        "no thread missed the flag: {:?}",
        racy[1]
    );
    let fixed = run_original(&fixed(), [1, 1, 1], &bindings);
    assert_eq!(fixed[1], vec![1; 64]);
}

fn lab(app: App) -> (AppSource, GpuLab) {
    let shader = source_of(&app).unwrap();
    let stress = StressPlan {
        iterations: Iterations::Given(64),
        cache_words: 1 << 12,
        watchdog_limit: None,
        stress_fraction: (0.15, 0.5),
        placement: Default::default(),
        buffer_shuffle: true,
        profile: None,
        sequence: None,
        spread: None,
        patch_words: None,
        scheduling: Default::default(),
    };
    let config = EngineConfig::new(8, 1 << 12);
    let lab = GpuLab::open(shader.clone(), app, config, stress, Default::default()).unwrap();
    (shader, lab)
}

#[test]
fn the_search_finds_the_one_barrier_between_the_write_and_the_read() {
    let (shader, mut lab) = lab(flag_app("flag", RACY));
    let sites = shader.patch(&FixSet::default()).unwrap().sites;
    assert!(sites.len() >= 2, "{sites:?}");
    let all: Vec<usize> = (0..sites.len()).collect();
    let config = config();
    let none = FixSet::default();
    let before = lab
        .measure(Subject::Fix(&none), &config, &runs(16), 1)
        .unwrap();
    assert_eq!((before.runs, before.failures), (16, 16), "{before:?}");
    let every = FixSet::barriers(&all);
    let fenced = lab
        .measure(Subject::Fix(&every), &config, &runs(16), 2)
        .unwrap();
    assert_eq!((fenced.runs, fenced.failures), (16, 0), "{fenced:?}");

    let rate = FailureRate::measured(before.failures, before.runs).unwrap();
    let mut tried = Vec::new();
    let mut watcher = Watcher::new(|e| {
        if let EventKind::Search(SearchEvent::Trial { sites, trial }) = e {
            tried.push((sites, trial));
        }
    });
    let no_bound = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    let pace = before.seconds / before.runs as f64;
    let mut oracle = Trials::new(&mut lab, Vec::new(), &config, &mut watcher, no_bound, pace);
    let found = ddmin(&all, Sizing::first(rate), &mut oracle);
    assert_eq!(oracle.stopped, None);
    assert_eq!(found.sites.len(), 1, "{found:?}");
    let site = &sites[found.sites[0]];
    // Between the write's branch (lines 6 to 8) and the read (line 9).
    assert!((7..=9).contains(&site.site.line), "{site:?} of {sites:?}");
    assert_eq!(found.trials as usize, tried.len());
    // With a core to spare, the fixes ddmin announced were built while others ran.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores > 1 {
        assert!(lab.built_ahead() > 0, "{found:?}");
    }

    let fix = FixSet::barriers(&found.sites);
    let after = lab
        .measure(Subject::Fix(&fix), &config, &runs(32), 3)
        .unwrap();
    assert_eq!((after.runs, after.failures), (32, 0), "{after:?}");
}

#[test]
fn a_correct_application_does_not_fail_without_added_fences() {
    let (_, mut lab) = lab(flag_app("fixed", &fixed()));
    let measured = lab.measure(Subject::AsIs, &config(), &runs(32), 1).unwrap();
    assert_eq!((measured.runs, measured.failures), (32, 0), "{measured:?}");
    assert_eq!(
        FailureRate::measured(measured.failures, measured.runs),
        None
    );
}
