//! The application with a storage barrier at a chosen set of its candidate fence sites:
//! what a trial of that set runs, and the patch a search hands back.
//!
//! The sites are placed as for the all-sites shader, with a call of a marker function at
//! each (numbered as `fences` numbers the sites); each call then becomes a plain
//! `storageBarrier()` when its site is chosen and goes otherwise, and the marker goes too.

use super::site::{FenceSite, InLoop};
use crate::error::ShaderLocation;
use crate::error::{InstrumentError, Result};
use naga::{
    Arena, Barrier, Block, Expression, Function, FunctionArgument, Handle, Literal, Module, Span,
    Statement, Type, TypeInner,
};
use std::collections::BTreeSet;

/// The application's module rendered by naga, as is and with barriers at a set of sites.
pub struct FencedShader {
    /// Every candidate site, numbered as `fences` numbers them.
    pub sites: Vec<FenceSite>,
    /// naga's rendering of the module without barriers added: what a diff compares with.
    pub original_wgsl: String,
    /// The module with a `storageBarrier()` at each chosen site.
    pub wgsl: String,
    /// The postcondition entry point, given or named by the source's directive (a comment,
    /// which naga's rendering drops).
    pub postcondition: Option<String>,
    /// Storage accesses in loops that are not uniform inside, where no site can go.
    pub in_loops: Vec<InLoop>,
    /// With a variable made atomic: where its read-modify-writes became one atomic operation.
    pub fused: Vec<ShaderLocation>,
}

impl FencedShader {
    /// A unified diff from naga's rendering of the original shader to the patched one.
    pub fn diff(&self) -> String {
        similar::TextDiff::from_lines(&self.original_wgsl, &self.wgsl)
            .unified_diff()
            .context_radius(3)
            .header("original (naga)", "patched")
            .to_string()
    }
}

/// The application's module (with the variable made atomic, if any) with a call of the
/// marker function `wgstress_site(k)` at every site k: what `fenced_at_atomic` resolves into
/// barriers, and what the source patch and the pairing of sites read positions from.
#[derive(Clone)]
pub(crate) struct Marked {
    pub module: Module,
    pub marker: Handle<Function>,
    /// The application entry point's index.
    pub entry: usize,
    pub sites: Vec<FenceSite>,
    pub in_loops: Vec<InLoop>,
    pub fused: Vec<ShaderLocation>,
    /// The fused read-modify-writes' store spans, in the user's source.
    pub fused_spans: Vec<Span>,
    /// The user's module as parsed, and naga's rendering of it.
    pub original: Module,
    pub original_wgsl: String,
    pub postcondition: Option<String>,
}

impl Marked {
    /// The module with a barrier at each of `chosen` and the markers gone.
    pub(crate) fn resolved(&self, chosen: &[u32]) -> Result<Module> {
        if let Some(past) = chosen.iter().find(|id| **id as usize >= self.sites.len()) {
            return Err(InstrumentError::NoSuchFenceSite {
                site: *past,
                sites: self.sites.len(),
            });
        }
        let chosen: BTreeSet<u32> = chosen.iter().copied().collect();
        let mut module = self.module.clone();
        for entry_point in module.entry_points.iter_mut() {
            resolve(&mut entry_point.function, self.marker, &chosen);
        }
        for (_, function) in module.functions.iter_mut() {
            resolve(function, self.marker, &chosen);
        }
        drop_last_function(&mut module, self.marker);
        Ok(module)
    }

    /// `resolved`, as naga writes it (`source`: the text it was parsed from).
    pub(crate) fn rendered(&self, chosen: &[u32], source: &str) -> Result<String> {
        let module = self.resolved(chosen)?;
        let info = crate::wgsl::shader::validate(&module)
            .map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
        crate::wgsl::render::render(&module, &info, Some(source))
    }
}

/// Appends `fn wgstress_site(site: u32) {}`, the last function of the arena.
pub(crate) fn add_marker(module: &mut Module) -> Handle<Function> {
    let u32_type = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Scalar(naga::Scalar::U32),
        },
        Span::UNDEFINED,
    );
    let marker = Function {
        name: Some("wgstress_site".into()),
        arguments: vec![FunctionArgument {
            name: Some("site".into()),
            ty: u32_type,
            binding: None,
        }],
        ..Function::default()
    };
    module.functions.append(marker, Span::UNDEFINED)
}

/// Replaces each call of `marker` in `function` with a barrier when its site is chosen,
/// with nothing when not.
fn resolve(function: &mut Function, marker: Handle<Function>, chosen: &BTreeSet<u32>) {
    let expressions = &function.expressions;
    resolve_block(&mut function.body, &|statement| match statement {
        Statement::Call {
            function,
            arguments,
            ..
        } if *function == marker => match expressions[arguments[0]] {
            Expression::Literal(Literal::U32(site)) => Some(chosen.contains(&site)),
            ref other => unreachable!("a site marker's argument is its number, not {other:?}"),
        },
        _ => None,
    });
}

/// Walks `block`: `is_site` says of a statement whether it is a chosen site (`Some(true)`),
/// another site (`Some(false)`) or no site.
fn resolve_block(block: &mut Block, is_site: &dyn Fn(&Statement) -> Option<bool>) {
    let old = std::mem::take(block);
    for (mut statement, span) in old.span_into_iter() {
        match is_site(&statement) {
            Some(true) => block.push(Statement::ControlBarrier(Barrier::STORAGE), span),
            Some(false) => {}
            None => {
                crate::ir::walk::nested_blocks(&mut statement, |inner| {
                    resolve_block(inner, is_site)
                });
                block.push(statement, span);
            }
        }
    }
}

/// Removes `last`, the last function of the arena, once nothing calls it: the handles of
/// the others stay as they were.
fn drop_last_function(module: &mut Module, last: Handle<Function>) {
    let old = std::mem::take(&mut module.functions);
    let spans: Vec<Span> = old.iter().map(|(h, _)| old.get_span(h)).collect();
    let mut functions = Arena::new();
    for (index, function) in old.into_inner().into_iter().enumerate() {
        if index != last.index() {
            functions.append(function, spans[index]);
        }
    }
    module.functions = functions;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::InstrumentOptions;
    use crate::placement::table::fenced_at;

    const SOURCE: &str = "
@group(0) @binding(0) var<storage, read_write> flag: array<u32>;
@group(0) @binding(1) var<storage, read_write> seen: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 63u {
        flag[0] = 1u;
    }
    seen[lid] = flag[0];
}";

    fn patched(chosen: &[u32]) -> FencedShader {
        fenced_at(SOURCE, &InstrumentOptions::default(), chosen).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn barriers_go_at_the_chosen_sites_only() {
        let none = patched(&[]);
        assert_eq!(none.wgsl, none.original_wgsl);
        assert!(none.sites.len() >= 3, "{:?}", none.sites);
        let all: Vec<u32> = (0..none.sites.len() as u32).collect();
        let every = patched(&all);
        let found = crate::placement::fences(SOURCE, &InstrumentOptions::default()).unwrap();
        assert_eq!(every.wgsl, found.all_fenced_wgsl);
        let one = patched(&[1]);
        assert_eq!(
            one.wgsl.matches("storageBarrier()").count(),
            1,
            "{}",
            one.wgsl
        );
        assert!(!one.wgsl.contains("wgstress"), "{}", one.wgsl);
        let write = one.wgsl.find("flag[0] = 1u").unwrap();
        let barrier = one.wgsl.find("storageBarrier()").unwrap();
        let read = one.wgsl.find("= flag[0];").unwrap();
        assert!(write < barrier && barrier < read, "{}", one.wgsl);
    }

    #[test]
    fn a_site_past_the_last_is_refused() {
        let sites = patched(&[]).sites.len() as u32;
        let error = fenced_at(SOURCE, &InstrumentOptions::default(), &[sites])
            .err()
            .expect("refused");
        assert!(error.to_string().contains("does not exist"), "{error}");
    }
}
