//! The completeness check with Tint as the oracle (issue 23 item 2): for each shader, every
//! point that separates storage accesses (points.rs) gets a shader of its own with a
//! `storageBarrier()` there; every one Tint accepts must be a site or served by one by the
//! documented rule. And Tint must accept the shader with a barrier at every site.

use super::points::{self, Which};
use std::collections::HashMap;
use wgstress_instrument::placement::{fences, IrPoint};
use wgstress_instrument::InstrumentOptions;
use wgstress_tint::NamedWgsl as Shader;

/// Tint runs this many shaders per process: Dawn has crashed after many thousands in one.
const BATCH: usize = 2000;

/// A point to check: which shader, which function, where.
struct AtomicCandidate {
    case: usize,
    which: Which,
    point: IrPoint,
}

/// What the check found for a set of shaders.
pub struct Report {
    /// Points Tint accepts a barrier at that no site serves, one line each.
    pub missing: Vec<String>,
    /// Shaders with a barrier at every site that Tint rejects.
    pub rejected: Vec<String>,
    /// How many points were tried and how many Tint accepted.
    pub points: usize,
    pub accepted: usize,
    /// How many sites the shaders have.
    pub sites: usize,
}

/// Checks every `(name, source)`; a name must not contain ':'.
pub fn check(cases: &[(String, String)]) -> Report {
    let mut shaders = Vec::new();
    let mut candidates = Vec::new();
    let mut site_points: Vec<HashMap<String, Vec<IrPoint>>> = Vec::new();
    let mut modules = Vec::new();
    let mut all_fenced = Vec::new();
    let mut sites = 0;
    for (case, (name, source)) in cases.iter().enumerate() {
        let options = InstrumentOptions {
            file_name: Some(name.clone()),
            ..Default::default()
        };
        let found = fences(source, &options).unwrap_or_else(|e| panic!("{name}: {e}\n{source}"));
        sites += found.sites.len();
        let mut by_function: HashMap<String, Vec<IrPoint>> = HashMap::new();
        for site in &found.sites {
            by_function
                .entry(site.function.clone())
                .or_default()
                .push(site.point.clone());
        }
        site_points.push(by_function);
        all_fenced.push(Shader::new(
            format!("{name} all sites"),
            found.all_fenced_wgsl,
        ));
        let module = wgstress_instrument::read_module(source, "shader.wgsl").unwrap();
        let storage = points::Storage::new(&module);
        for which in points::reachable(&module, application_entry(&module, source)) {
            let function = points::function(&module, which);
            for point in points::boundaries(&storage, function) {
                let fenced = points::with_barrier(&module, which, &point);
                // naga refuses some barriers in non-uniform flow: those are no candidates.
                let Ok(info) = wgstress_instrument::validate(&fenced) else {
                    continue;
                };
                let wgsl = wgstress_instrument::render(&fenced, &info, Some(source)).unwrap();
                shaders.push(Shader::new(format!("{name}#{}", shaders.len()), wgsl));
                candidates.push(AtomicCandidate { case, which, point });
            }
        }
        modules.push(module);
    }
    let accepted_by_tint = accepted(&shaders);
    let mut missing = Vec::new();
    let mut accepted = 0;
    for (candidate, accepted_here) in candidates.iter().zip(&accepted_by_tint) {
        if !accepted_here {
            continue;
        }
        accepted += 1;
        let module = &modules[candidate.case];
        let storage = points::Storage::new(module);
        let function = points::function(module, candidate.which);
        let name = points::name(module, candidate.which);
        let sites = site_points[candidate.case]
            .get(&name)
            .cloned()
            .unwrap_or_default();
        if !points::served(&storage, function, &sites, &candidate.point) {
            let (case, source) = &cases[candidate.case];
            missing.push(format!(
                "{case}: in {name}, {:?} (near line {}): Tint accepts a barrier there, no site serves it",
                candidate.point,
                near_line(function, &candidate.point, source)
            ));
        }
    }
    let rejected = wgstress_tint::validate(&all_fenced)
        .into_iter()
        .map(|r| format!("{}: {}", r.name, r.messages.join("; ")))
        .collect();
    Report {
        missing,
        rejected,
        points: candidates.len(),
        accepted,
        sites,
    }
}

/// Which of `shaders` Tint accepts, in batches.
fn accepted(shaders: &[Shader]) -> Vec<bool> {
    let mut verdicts = Vec::with_capacity(shaders.len());
    for chunk in shaders.chunks(BATCH) {
        let rejected = wgstress_tint::validate(chunk);
        verdicts.extend(
            chunk
                .iter()
                .map(|s| !rejected.iter().any(|r| r.name == s.name)),
        );
    }
    verdicts
}

/// The application entry point: the only compute entry point but a postcondition.
fn application_entry(module: &naga::Module, source: &str) -> usize {
    let postcondition = source.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("//")?.trim_start();
        let name = rest
            .strip_prefix("wgstress:")?
            .trim_start()
            .strip_prefix("postcondition")?;
        Some(name.trim().to_string())
    });
    let entries: Vec<usize> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stage == naga::ShaderStage::Compute)
        .filter(|(_, e)| Some(&e.name) != postcondition.as_ref())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(entries.len(), 1, "one application entry point");
    entries[0]
}

/// The source line of the statement at or before `point`, for messages.
fn near_line(function: &naga::Function, point: &IrPoint, source: &str) -> usize {
    let mut block = &function.body;
    for &(index, child) in &point.path {
        block = points::children(block.get(index).unwrap())[child];
    }
    let spans: Vec<naga::Span> = block.span_iter().map(|(_, s)| *s).collect();
    let span = spans
        .get(point.index)
        .filter(|s| s.is_defined())
        .or_else(|| {
            spans[..point.index.min(spans.len())]
                .iter()
                .rev()
                .find(|s| s.is_defined())
        });
    match span.and_then(|s| s.to_range()) {
        Some(range) => source[..range.start].matches('\n').count() + 1,
        None => 0,
    }
}
