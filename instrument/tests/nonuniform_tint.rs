//! The warning of a barrier in non-uniform control flow (placement::non_uniform_barriers)
//! agrees with Tint, the oracle: in every bundled application, a `storageBarrier()` at each
//! point between two statements of the entry point and the functions it calls (common/
//! points.rs) makes a shader of its own, and the analysis warns of it exactly when Tint
//! rejects it as not in uniform control flow, at the line and column Tint names.

mod common;

use common::points;
use wgstress_tint::NamedWgsl;

/// Tint's words for the rule.
const RULE: &str = "must only be called from uniform control flow";

/// Tint runs this many shaders per process: Dawn has crashed after many thousands in one.
const BATCH: usize = 2000;

#[test]
fn the_warning_is_given_exactly_where_tint_rejects_a_barrier() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/wgsl");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    let mut shaders = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(path).unwrap();
        let module = wgstress_instrument::read_module(&source, "shader.wgsl").unwrap();
        let storage = points::Storage::new(&module);
        let mut functions: Vec<points::Which> = Vec::new();
        for entry in 0..module.entry_points.len() {
            for which in points::reachable(&module, entry) {
                if !functions.contains(&which) {
                    functions.push(which);
                }
            }
        }
        for which in functions {
            let function = points::function(&module, which);
            for point in points::boundaries(&storage, function) {
                let fenced = points::with_barrier(&module, which, &point);
                // naga refuses some barriers itself (in a loop's `continuing` that it cannot
                // render back): those are no shaders to ask about.
                let Ok(info) = wgstress_instrument::validate(&fenced) else {
                    continue;
                };
                let wgsl = wgstress_instrument::render(&fenced, &info, Some(&source)).unwrap();
                shaders.push(NamedWgsl::new(format!("{name}#{}", shaders.len()), wgsl));
            }
        }
    }
    let mut rejected = Vec::new();
    for chunk in shaders.chunks(BATCH) {
        rejected.extend(wgstress_tint::validate(chunk));
    }
    let (mut agreed, mut refused) = (0, 0);
    let mut disagreements = Vec::new();
    for shader in &shaders {
        // Tint's error for the rule, as `line:col: message`, the barrier's place first.
        let tint = rejected
            .iter()
            .find(|r| r.name == shader.name)
            .and_then(|r| r.messages.iter().find(|m| m.contains(RULE)))
            .and_then(|m| m.split(": ").next())
            .map(str::to_string);
        let ours = wgstress_instrument::placement::non_uniform_barriers(&shader.code, "t.wgsl")
            .unwrap_or_else(|e| panic!("{}: {e}", shader.name));
        let ours: Vec<String> = ours
            .iter()
            .map(|b| {
                let (line, column) = b.barrier.position.expect("a rendered barrier has a place");
                format!("{line}:{column}")
            })
            .collect();
        let agree = match &tint {
            Some(place) => ours.first() == Some(place),
            None => ours.is_empty(),
        };
        if agree {
            agreed += 1;
            refused += usize::from(tint.is_some());
        } else {
            disagreements.push(format!(
                "{}: Tint {tint:?}, the warning at {ours:?}\n{}",
                shader.name, shader.code
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} shaders disagree:\n{}",
        disagreements.len(),
        shaders.len(),
        disagreements.join("\n")
    );
    eprintln!("{} shaders, {refused} refused by Tint", shaders.len());
    // The check says something: Tint refused many barriers, and accepted many.
    assert!(refused >= 20, "Tint refused {refused} of {agreed}");
    assert!(
        agreed - refused >= 50,
        "Tint accepted {} barriers",
        agreed - refused
    );
}
