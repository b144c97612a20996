//! The applications under examples/ run unedited from their specs on lavapipe, raw and under
//! stress: the fixed variants pass, the buggy ones run (lavapipe's memory model rarely shows
//! their bugs); Tint accepts every example shader, instrumented too; `fences` lists the sites
//! of the single-kernel examples and writes their all-sites shaders, which Tint accepts.
//!
//! lavapipe gives no forward progress between workgroups, and its loops end after 65,535
//! iterations: with more than one thread, a spinning workgroup whose partner's thread the OS
//! has put aside can end its spin early. The runs here use LP_NUM_THREADS=1, which runs
//! workgroups one after another (each example only waits for workgroups that started first).

use std::path::{Path, PathBuf};
use std::process::Output;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Every spec under examples/, by name; at least the four the docs describe.
fn specs() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in std::fs::read_dir(examples()).unwrap().flatten() {
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
    for name in [
        "ticket_lock",
        "subgroup_scan",
        "radix_sort",
        "global_barrier",
    ] {
        for variant in [name.to_string(), format!("{name}_fixed")] {
            assert!(
                found
                    .iter()
                    .any(|p| p.file_stem().unwrap() == variant.as_str()),
                "examples/ has no {variant}.toml"
            );
        }
    }
    found
}

fn wgstress(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .current_dir(dir.path())
        .env("LP_NUM_THREADS", "1")
        .output()
        .expect("wgstress runs")
}

fn summary(spec: &Path, out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: stdout {} stderr {}",
            spec.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn every_example_runs_from_its_spec_raw_and_under_stress() {
    for spec in specs() {
        let fixed = spec
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .ends_with("_fixed");
        let path = spec.to_str().unwrap();
        for mode in [&["--raw"][..], &["--iterations", "32"][..]] {
            let mut args = vec!["run", path, "--runs", "8", "--json", "--no-log"];
            args.extend_from_slice(mode);
            let out = wgstress(&args);
            let s = summary(&spec, &out);
            let code = out.status.code();
            if fixed {
                assert_eq!(code, Some(0), "{path} {mode:?}: {s}");
            } else {
                assert!(matches!(code, Some(0 | 1)), "{path} {mode:?}: {s}");
            }
            assert_eq!(s["runs"], 8, "{path} {mode:?}: {s}");
        }
    }
}

#[test]
fn tint_accepts_every_example_shader_as_given_and_instrumented() {
    let mut shaders = Vec::new();
    for spec in specs() {
        let app = wgstress_runtime::app::spec::load(&spec).unwrap();
        for dispatch in app.dispatches() {
            let (path, source) = app.shader_of(&dispatch);
            let options = wgstress_instrument::InstrumentOptions {
                entry: dispatch.entry.clone(),
                postcondition: (path == app.shader_path)
                    .then(|| app.postcondition.clone())
                    .flatten(),
                file_name: Some(path.to_string()),
                ..Default::default()
            };
            let name = |what: &str| {
                let entry = dispatch.entry.as_deref().unwrap_or("main");
                format!("{} {entry} {what}", path.replace(':', "_"))
            };
            shaders.push(wgstress_tint::NamedWgsl::new(name("source"), source));
            // Holding workgroups with ids given in start order, as on SwiftShader (the
            // application's barriers must stay in uniform control flow).
            let in_order = wgstress_instrument::InstrumentOptions {
                parking: true,
                hold_writes: true,
                start_order: true,
                ..options.clone()
            };
            for (what, options) in [("instrumented", options), ("in start order", in_order)] {
                let out = wgstress_instrument::instrument_wgsl(source, &options)
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
                shaders.push(wgstress_tint::NamedWgsl::new(name(what), out.wgsl));
            }
        }
    }
    wgstress_tint::assert_valid(&shaders);
}

#[test]
fn fences_lists_the_sites_of_the_single_kernel_examples() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for spec in specs() {
        let app = wgstress_runtime::app::spec::load(&spec).unwrap();
        if !app.pipeline.is_empty() {
            continue;
        }
        let path = spec.to_str().unwrap();
        let output = dir.path().join(format!(
            "{}.wgsl",
            spec.file_stem().unwrap().to_string_lossy()
        ));
        let out = wgstress(&[
            "fences",
            path,
            "--sites",
            "--all",
            "-o",
            output.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.lines().count() >= 2, "{path}: {stdout}");
        let fenced = std::fs::read_to_string(&output).unwrap();
        assert!(fenced.contains("storageBarrier()"), "{path}");
        all.push(wgstress_tint::NamedWgsl::new(
            format!("{} all sites", spec.file_stem().unwrap().to_string_lossy()),
            fenced,
        ));
    }
    assert!(all.len() >= 6, "the single-kernel examples: {}", all.len());
    wgstress_tint::assert_valid(&all);
}
