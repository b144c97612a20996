//! A spec's `App` as the fence search sees it, and back: the search (`wgstress_fences`)
//! patches parts, each stressed dispatch's shader file and entry point once, and never holds
//! an `App`; the lab makes the application a rewrite of its parts runs.

use crate::app::spec::{App, Dispatch, ShaderFile};
use crate::error::Result;
use wgstress_fences::rewrite::Rewrite;
use wgstress_fences::source::{AppSource, Part};

/// `app`'s parts, each stressed dispatch's file and entry point once, parsed.
pub fn source_of(app: &App) -> Result<AppSource> {
    let mut parts: Vec<Part> = Vec::new();
    for dispatch in app.dispatches().iter().filter(|d| d.stress) {
        let part = part_of(app, dispatch);
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    Ok(AppSource::new(parts, !app.pipeline.is_empty())?)
}

/// A stressed dispatch's part: its file, entry point, and the postcondition where the file is
/// the application's own.
fn part_of(app: &App, dispatch: &Dispatch) -> Part {
    let (path, source) = app.shader_of(dispatch);
    Part {
        path: path.to_string(),
        source: source.to_string(),
        entry: dispatch.entry.clone(),
        postcondition: (path == app.shader_path)
            .then(|| app.postcondition.clone())
            .flatten(),
    }
}

/// `app`, whose parts are `shader`'s, with each part of `rewrite` running its text (its
/// postcondition named anew where the text no longer carries the source's directive).
pub(crate) fn rewritten(app: &App, shader: &AppSource, rewrite: &Rewrite) -> App {
    let mut app = app.clone();
    if app.pipeline.is_empty() {
        if let Some(first) = rewrite.parts.first() {
            app.source = first.text.clone();
            app.postcondition = first.postcondition.clone().or(app.postcondition);
        }
        return app;
    }
    let original = app.clone();
    for dispatch in app.pipeline.iter_mut().filter(|d| d.stress) {
        let part = part_of(&original, dispatch);
        let p = shader.parts.iter().position(|q| *q == part);
        if let Some(new) = rewrite.parts.iter().find(|t| Some(t.part) == p) {
            dispatch.shader = Some(ShaderFile {
                path: part.path,
                source: new.text.clone(),
            });
        }
    }
    app
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::init::Init;
    use crate::app::spec::Binding;
    use wgstress_fences::FixSet;

    const PASSES: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32, 64>;
@group(0) @binding(1) var<storage, read_write> flag: array<u32, 64>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32, 64>;
@compute @workgroup_size(64)
fn produce(@builtin(local_invocation_index) lid: u32) {
    data[lid] = 1u;
    flag[lid] = 1u;
}
@compute @workgroup_size(64)
fn consume(@builtin(local_invocation_index) lid: u32) {
    seen[lid] = flag[63u - lid];
    data[lid] = data[63u - lid] + 1u;
}
";

    fn pipeline(entries: &[&str]) -> App {
        let bindings = (0..3)
            .map(|b| Binding::storage(b, 64, Init::Zeros))
            .collect();
        let mut app = App::bare("sim-app", PASSES, [1, 1, 1], bindings);
        app.pipeline = entries
            .iter()
            .map(|entry| Dispatch {
                shader: None,
                entry: Some(entry.to_string()),
                workgroups: [1, 1, 1],
                stress: true,
                uniforms: Vec::new(),
                bind: Vec::new(),
            })
            .collect();
        app
    }

    #[test]
    fn each_stressed_dispatch_is_a_part_once() {
        let app = pipeline(&["produce", "consume", "produce"]);
        let shader = source_of(&app).unwrap();
        let entries: Vec<Option<String>> = shader.parts.iter().map(|p| p.entry.clone()).collect();
        assert_eq!(entries, ["produce", "consume"].map(|e| Some(e.to_string())));
    }

    #[test]
    fn a_rewritten_pipeline_runs_each_passes_text_in_its_dispatches() {
        let app = pipeline(&["produce", "consume"]);
        let shader = source_of(&app).unwrap();
        let sites = shader.tables(&[]).unwrap().len();
        let all: Vec<usize> = (0..sites).collect();
        let placed = shader.patch(&FixSet::barriers(&all)).unwrap();
        let rewrite = Rewrite {
            parts: placed
                .parts
                .into_iter()
                .enumerate()
                .map(|(part, fenced)| wgstress_fences::rewrite::PartText {
                    part,
                    text: fenced.wgsl,
                    postcondition: None,
                })
                .collect(),
        };
        let fixed = rewritten(&app, &shader, &rewrite);
        for dispatch in &fixed.pipeline {
            let source = &dispatch.shader.as_ref().unwrap().source;
            assert!(source.contains("storageBarrier()"), "{source}");
        }
        assert_eq!(fixed.source, app.source);
    }
}
