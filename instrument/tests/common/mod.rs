//! Helpers shared by the instrumenter's tests.
#![allow(dead_code)]

pub mod completeness;
pub mod points;

use wgstress_instrument::{instrument_wgsl, InstrumentOptions, Instrumented};

pub fn instrument(source: &str) -> Instrumented {
    instrument_with(source, InstrumentOptions::default())
}

pub fn instrument_with(source: &str, options: InstrumentOptions) -> Instrumented {
    instrument_wgsl(source, &options)
        .unwrap_or_else(|e| panic!("instrumenting failed: {e}\n{source}"))
}

/// Names the runtime library defines (its functions, globals, types and constants).
fn library_names() -> Vec<String> {
    let library =
        naga::front::wgsl::parse_str(&wgstress_instrument::library_source(true, true, true))
            .unwrap();
    let mut names: Vec<String> = library
        .functions
        .iter()
        .filter_map(|(_, f)| f.name.clone())
        .collect();
    names.extend(
        library
            .global_variables
            .iter()
            .filter_map(|(_, g)| g.name.clone()),
    );
    names.extend(library.types.iter().filter_map(|(_, t)| t.name.clone()));
    names.extend(library.constants.iter().filter_map(|(_, c)| c.name.clone()));
    names
}

/// The instrumented WGSL without the runtime library's own definitions, which are the same in
/// every output: what is left is what the pass did to the user's code.
pub fn user_part(wgsl: &str) -> String {
    let names = library_names();
    let mut items: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut depth = 0i32;
    for line in wgsl.lines() {
        if depth == 0 && line.trim().is_empty() {
            continue;
        }
        current.push(line);
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        let attribute_only =
            line.starts_with('@') && !line.contains(" fn ") && !line.contains("var");
        if depth == 0 && !attribute_only {
            items.push(std::mem::take(&mut current));
        }
    }
    items
        .into_iter()
        .filter(|item| {
            let decl = item
                .iter()
                .find(|l| !l.starts_with('@'))
                .copied()
                .unwrap_or("");
            let name = decl
                .strip_prefix("struct ")
                .or_else(|| decl.strip_prefix("fn "))
                .or_else(|| decl.strip_prefix("const "))
                .or_else(|| decl.split_once("> ").map(|(_, rest)| rest))
                .map(|rest| {
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or("")
                });
            !name.is_some_and(|n| names.iter().any(|l| l == n))
        })
        .map(|item| item.join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n")
}
