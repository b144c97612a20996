//! Litmus tests and tuning on a real device (lavapipe in CI).

use std::sync::atomic::AtomicBool;
use wgstress_litmus::{catalog, runner::Litmus, test};
use wgstress_model::litmus::env::{Env, LitmusPlacement};
use wgstress_model::stress::params::StressShape;
use wgstress_model::stress::profile::Profile;
use wgstress_runtime::gpu::device::open;
use wgstress_runtime::stress::profile::shape_for;

fn small() -> Env {
    Env {
        testing_groups: 8,
        workgroup_size: 32,
        stress_groups: 2,
        ..Env::default()
    }
}

#[test]
fn every_test_runs_and_counts_add_up() {
    let gpu = open(&Default::default()).unwrap();
    for (i, t) in catalog::all().into_iter().enumerate() {
        // The classics with and without the fence flag; the suite carries its own fences.
        let fences: &[bool] = if i < test::classics().len() {
            &[false, true]
        } else {
            &[false]
        };
        for &fence in fences {
            let env = Env { fence, ..small() };
            let mut litmus = Litmus::new(&gpu, t.clone(), env.clone(), 0, 3).unwrap();
            let counts = litmus.run(&gpu, 7).unwrap();
            assert_eq!(counts.total(), 7 * u64::from(env.instances()), "{}", t.name);
            assert_eq!(
                counts.outcomes.iter().sum::<u64>() + counts.impossible,
                counts.total(),
                "{}",
                t.name
            );
            assert_eq!(counts.impossible, 0, "{}: values no store wrote", t.name);
        }
    }
}

#[test]
fn split_layouts_and_placements_run_and_count_every_instance() {
    let gpu = open(&Default::default()).unwrap();
    let mp = catalog::find("mut-mp").unwrap();
    for placement in [
        LitmusPlacement::Direct,
        LitmusPlacement::Permuted,
        LitmusPlacement::YPermuted,
        LitmusPlacement::Scattered,
    ] {
        // x of every instance in one region, y of every instance 1 MiB further on.
        let env = Env {
            stride: 4,
            distance: 1 << 18,
            placement,
            stress_offset: 2,
            ..small()
        };
        assert!(env.split());
        assert!(env.memory_words() < (1 << 18) + 4 * u64::from(env.instances()) + 8);
        let mut litmus = Litmus::new(&gpu, mp.clone(), env.clone(), 0, 9).unwrap();
        for _ in 0..3 {
            let counts = litmus.run(&gpu, 5).unwrap();
            assert_eq!(
                counts.total(),
                5 * u64::from(env.instances()),
                "{placement}"
            );
            assert_eq!(counts.impossible, 0);
        }
    }
}

#[test]
fn both_threads_in_one_invocation_is_always_sequential() {
    let gpu = open(&Default::default()).unwrap();
    for t in catalog::all() {
        let env = Env {
            same_thread: true,
            ..small()
        };
        let mut litmus = Litmus::new(&gpu, t.clone(), env.clone(), 0, 5).unwrap();
        let counts = litmus.run(&gpu, 5).unwrap();
        assert_eq!(
            counts.sequential,
            5 * u64::from(env.instances()),
            "{}: {counts:?}",
            t.name
        );
        // Thread 0, then thread 1 (then the observer) of the same instance: that one outcome.
        let seen: Vec<usize> = (0..counts.outcomes.len())
            .filter(|&o| counts.outcomes[o] > 0)
            .collect();
        assert_eq!(seen, [t.in_order_outcome()], "{}", t.name);
        assert_eq!(counts.disallowed, 0, "{}", t.name);
    }
}

#[test]
fn bad_environments_are_refused_before_dispatch() {
    let gpu = open(&Default::default()).unwrap();
    let mp = || catalog::find("mp").unwrap();
    let refuse = |env: Env, expected: &str| {
        let error = Litmus::new(&gpu, mp(), env, 0, 1)
            .err()
            .expect("refused")
            .to_string();
        assert!(error.contains(expected), "{error}");
        assert!(!error.contains('\n'), "{error}");
    };
    refuse(
        Env {
            testing_groups: 0,
            ..small()
        },
        "--testing-groups must be at least 1",
    );
    refuse(
        Env {
            workgroup_size: 1 << 20,
            ..small()
        },
        "max_compute_invocations_per_workgroup",
    );
    refuse(
        Env {
            stride: 1 << 30,
            ..small()
        },
        "max_storage_buffer_binding_size",
    );
    refuse(
        Env {
            stress_offset: 1,
            distance: 1,
            ..small()
        },
        "hold a test location",
    );
    refuse(
        Env {
            stress_offset: 30,
            line_size: 4,
            ..small()
        },
        "hold a test location",
    );
}

#[test]
fn profile_round_trips_and_is_used_when_the_adapter_matches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("profile.json");
    let profile = Profile {
        adapter: "Some GPU".into(),
        driver: "driver 1".into(),
        backend: "Vulkan".into(),
        patch_words: 64,
        sequence: "st;ld;st".parse().unwrap(),
        spread: 4,
        patch_note: "test".into(),
        patch_grid: [("mp".to_string(), vec![vec![1, 2, 3]])]
            .into_iter()
            .collect(),
        sequence_scores: vec![("st;ld;st".into(), 1.5)],
        spread_scores: vec![(4, 2.0)],
        iterations_per_cell: 8,
        seconds: 1.0,
    };
    wgstress_runtime::stress::profile::save(&profile, &path).unwrap();
    assert_eq!(
        wgstress_runtime::stress::profile::load(&path).unwrap(),
        profile
    );
    let (shape, note) = shape_for("Some GPU", Some(&path)).unwrap();
    assert_eq!(
        (shape.patch_words, shape.spread, shape.sequence.to_string()),
        (64, 4, "st;ld;st".to_string())
    );
    assert!(note.starts_with("profile "), "{note}");
    let (shape, note) = shape_for("Another GPU", Some(&path)).unwrap();
    assert_eq!(shape, StressShape::default());
    assert!(note.contains("is for Some GPU"), "{note}");
}

#[test]
fn tune_writes_a_profile_for_this_adapter() {
    let gpu = open(&Default::default()).unwrap();
    let config = wgstress_model::litmus::tune_grid::TuneConfig {
        distances: 1,
        locations: 8,
        max_sequence: 1,
        max_spread: 2,
        iterations_per_cell: 1,
        env: small(),
    };
    let mut cells = 0;
    let tuned =
        wgstress_litmus::tuning::tune(&gpu, &config, None, &AtomicBool::new(false), &mut || {
            cells += 1
        })
        .unwrap();
    let profile = tuned.profile;
    assert_eq!(profile.adapter, gpu.info.name);
    assert_eq!(profile.patch_grid["mp"].len(), 1);
    assert_eq!(profile.patch_grid["sb"][0].len(), 8);
    assert_eq!(profile.sequence_scores.len(), 2);
    assert_eq!(cells, config.cells());
    // Cells at x's and y's own locations are not run: 2 of 8 in each test's row.
    assert_eq!(tuned.evidence.cells, config.cells() - 6);
}

#[test]
fn a_tune_past_its_deadline_runs_the_least_of_each_step() {
    let gpu = open(&Default::default()).unwrap();
    let config = wgstress_model::litmus::tune_grid::TuneConfig {
        distances: 4,
        locations: 8,
        max_sequence: 3,
        max_spread: 8,
        iterations_per_cell: 1,
        env: small(),
    };
    let deadline = std::time::Instant::now();
    let tuned = wgstress_litmus::tuning::tune(
        &gpu,
        &config,
        Some(deadline),
        &AtomicBool::new(false),
        &mut || {},
    )
    .unwrap();
    // One distance row of patch finding; sequences of one access (ld, st); one patch.
    assert_eq!(tuned.profile.patch_grid["mp"].len(), 1);
    assert_eq!(tuned.profile.sequence_scores.len(), 2);
    assert_eq!(tuned.profile.spread_scores.len(), 1);
}

#[test]
fn env_file_round_trips_and_is_used_when_the_adapter_matches() {
    use wgstress_litmus::env_file::{env_for, EnvFile};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("env.json");
    let file = EnvFile {
        adapter: "Some GPU".into(),
        driver: "driver 1".into(),
        backend: "Vulkan".into(),
        env: Env {
            stride: 4,
            distance: 1 << 20,
            placement: LitmusPlacement::Scattered,
            ..small()
        },
        reproducibility: 0.99999,
        budget: 64.0,
        above_ceiling: 3,
        min_rate: Some(0.5),
        mutants: 32,
        killed: 5,
        rates: vec![("mut-mp".into(), 12.5)],
        environments_tried: 7,
        search_seconds: 1.5,
    };
    file.save(&path).unwrap();
    assert_eq!(EnvFile::load(&path).unwrap(), file);
    let (env, note) = env_for("Some GPU", &path).unwrap();
    assert_eq!(env, Some(file.env.clone()));
    assert!(note.contains("3 of 32 mutants"), "{note}");
    let (env, note) = env_for("Another GPU", &path).unwrap();
    assert_eq!(env, None);
    assert!(note.contains("is for Some GPU"), "{note}");
}

#[test]
fn the_suite_runs_and_the_search_chooses_by_algorithm_1() {
    use std::time::Duration;
    use wgstress_litmus::choose::merge_environments;
    use wgstress_litmus::mutants::{run_suite, Pool};
    use wgstress_litmus::search::{search, EnvSearchConfig, Space};
    use wgstress_model::litmus::mutants::summarise;
    let gpu = open(&Default::default()).unwrap();
    let tests: Vec<_> = catalog::all()
        .into_iter()
        .filter(|t| t.name.contains("mp"))
        .collect();
    let env = small();
    let mut pool = Pool::default();
    let mut seen = 0;
    let results = run_suite(
        &gpu,
        &mut pool,
        &tests,
        &env,
        Duration::from_millis(20),
        &AtomicBool::new(false),
        &mut |_| seen += 1,
    )
    .unwrap();
    assert_eq!(seen, tests.len());
    for r in &results {
        assert_eq!(r.counts.total(), r.instances, "{}", r.name);
        assert_eq!(r.counts.incoherent, 0, "{}: {:?}", r.name, r.violations);
    }
    let summary = summarise(&results, 0.95, 1.0);
    assert_eq!(
        summary.mutants,
        results.iter().filter(|r| r.is_mutant()).count()
    );
    let space = Space {
        testing_groups: vec![4, 8],
        workgroup_size: 32,
        y_gaps: vec![0, 1 << 12],
        ..Space::default()
    };
    let config = EnvSearchConfig {
        space,
        budget: Duration::from_millis(300),
        per_test: Duration::from_millis(5),
        random_share: 0.5,
        reproducibility: 0.95,
        test_budget: 1.0,
        seed: 7,
    };
    let result = search(
        &gpu,
        &tests,
        &config,
        &AtomicBool::new(false),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(!result.candidates.is_empty());
    assert_eq!(result.mutants.len(), summary.mutants);
    let rates: Vec<Vec<f64>> = result.candidates.iter().map(|c| c.rates.clone()).collect();
    assert_eq!(merge_environments(&rates, 0.95, 1.0), result.best);
}
