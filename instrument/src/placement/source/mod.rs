//! A fix as an edit of the user's own file: `storageBarrier();` lines at the chosen sites
//! (with the indentation around them), a non-uniform branch closed and opened again around a
//! site inside it, a variable made atomic where it is declared and where it is accessed, and
//! every other byte as it was.
//!
//! The edit is made from where naga's IR puts each barrier (anchor.rs, from the module with a
//! marker at every site) and the statement outline of the text (outline/), then checked: the
//! patched text must parse and validate in naga and have the skeleton (skeleton.rs) of the
//! IR-level fix, the module the search verified. Where the text cannot say what the IR does
//! (a barrier between two accesses of one statement, a split of an `else if` chain, a name a
//! split would move into a scope that has it), the patch is refused with the reason, and the
//! caller falls back to naga's rendering.

mod anchor;
mod atomic;
mod crossing;
mod locate;
mod refusal;
mod skeleton;
mod split;
mod text;
mod types;

pub use locate::{SourceAnchor, SplitAnchor};
pub use refusal::{Unexpressible, Why};

use crate::error::ShaderLocation;
use crate::placement::patch::Marked;
use crate::wgsl::locate::Locator;
use crate::wgsl::outline::{words, Outline};
use refusal::Refusal;
use std::collections::BTreeMap;
use text::Edit;

/// The patched text of a fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePatch {
    /// The user's file with the edits made.
    pub text: String,
    /// A unified diff from the user's file to `text`.
    pub diff: String,
    pub lines_removed: usize,
    pub lines_added: usize,
}

impl SourcePatch {
    /// Lines the diff removes or adds.
    pub fn changed_lines(&self) -> usize {
        self.lines_removed + self.lines_added
    }
}

/// Each site's place in the text, indexed by site id.
pub(crate) fn anchors(
    marked: &Marked,
    source: &str,
    file: &str,
) -> Vec<Result<SourceAnchor, Unexpressible>> {
    let outline = Outline::of(source);
    let locator = Locator::new(file, Some(source));
    anchor::anchors(marked)
        .into_iter()
        .map(|ir| locate_one(source, &outline, ir.as_ref()).map_err(|r| r.located(&locator)))
        .collect()
}

fn locate_one(
    source: &str,
    outline: &Outline,
    ir: Option<&anchor::IrAnchor>,
) -> Result<SourceAnchor, Refusal> {
    let ir = ir.ok_or(Refusal::nowhere(Why::Unplaced))?;
    let function = outline
        .function(&ir.function)
        .ok_or(Refusal::nowhere(Why::Unplaced))?;
    // Reading the shader specialises a function with a pointer parameter to storage, uniform
    // or workgroup memory for each memory its callers pass (pointers.rs): the IR's copies
    // have spans of the one function's text, some of its parameter list.
    let signature = &source[function.signature.clone()];
    if ["ptr<storage", "ptr<uniform", "ptr<workgroup"]
        .iter()
        .any(|p| signature.contains(p))
    {
        return Err(Refusal::nowhere(Why::Specialized {
            function: ir.function.clone(),
        }));
    }
    locate::locate(source, function, ir)
}

/// The fix `chosen` (with `atomic` made atomic, as `marked` was built) as an edit of
/// `source`, checked against the IR-level fix.
pub(crate) fn patch(
    marked: &Marked,
    source: &str,
    file: &str,
    atomic: &[String],
    chosen: &[u32],
) -> Result<SourcePatch, Unexpressible> {
    let locator = Locator::new(file, Some(source));
    let text = patched_text(marked, source, atomic, chosen).map_err(|r| r.located(&locator))?;
    check(marked, &text, chosen).map_err(|why| Unexpressible { at: None, why })?;
    Ok(diff(file, source, text))
}

/// One access of the variable made atomic, as the text writes it and as the patch does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomicEdit {
    pub at: ShaderLocation,
    /// The text replaced (the declared type, a load, a statement), and what replaces it
    /// (empty for a fused read-modify-write's `let`, which is deleted).
    pub was: String,
    pub becomes: String,
}

/// The edits that make each of `names` atomic in `source`, in source order.
pub(crate) fn atomic_edits(
    marked: &Marked,
    source: &str,
    file: &str,
    names: &[String],
) -> Result<Vec<AtomicEdit>, Unexpressible> {
    let locator = Locator::new(file, Some(source));
    let outline = Outline::of(source);
    let mut edits = Vec::new();
    for name in names {
        edits.extend(
            atomic::edits(
                source,
                &outline,
                &marked.original,
                name,
                &marked.fused_spans,
            )
            .map_err(|r| r.located(&locator))?,
        );
    }
    edits.sort_by_key(|e| e.range.start);
    Ok(edits
        .into_iter()
        .map(|e| AtomicEdit {
            at: locator.at(naga::Span::new(e.range.start as u32, e.range.end as u32)),
            was: source[e.range.clone()].trim_end().to_string(),
            becomes: e.text,
        })
        .collect())
}

/// A chosen site that splits a branch, with the branch's condition in the IR.
type SplitSite = (SplitAnchor, naga::Handle<naga::Expression>);

fn patched_text(
    marked: &Marked,
    source: &str,
    atomic: &[String],
    chosen: &[u32],
) -> Result<String, Refusal> {
    let outline = Outline::of(source);
    let ir = anchor::anchors(marked);
    let mut edits = Vec::new();
    let mut splits: BTreeMap<(String, usize), Vec<SplitSite>> = BTreeMap::new();
    for &id in chosen {
        let ir = ir.get(id as usize).and_then(Option::as_ref);
        let anchor = locate_one(source, &outline, ir)?;
        let ir = ir.ok_or(Refusal::nowhere(Why::Unplaced))?;
        match (&anchor.split, &ir.owner) {
            (Some(split), anchor::Owner::Split { condition, .. }) => {
                let key = (ir.function.clone(), split.branch.start);
                splits
                    .entry(key)
                    .or_default()
                    .push((split.clone(), *condition));
            }
            _ => edits.push(barrier(source, &anchor)),
        }
    }
    let info = crate::validate(&marked.original).map_err(|e| {
        Refusal::nowhere(Why::Invalid {
            message: e.as_inner().to_string(),
        })
    })?;
    let taken = words(source);
    let mut fresh_names = (1..).map(|n| match n {
        1 => "split_condition".to_string(),
        n => format!("split_condition_{n}"),
    });
    let mut hoisted: BTreeMap<&str, Vec<split::Hoisted>> = BTreeMap::new();
    for ((function_name, _), group) in &splits {
        let (function, function_info) =
            function_of(marked, &info, function_name).ok_or(Refusal::nowhere(Why::Unplaced))?;
        let fresh = fresh_names
            .by_ref()
            .find(|n| !taken.contains(&n.as_str()))
            .unwrap_or_default();
        let context = split::Context {
            source,
            outline: outline
                .function(function_name)
                .ok_or(Refusal::nowhere(Why::Unplaced))?,
            module: &marked.original,
            function,
            info: function_info,
            condition: group[0].1,
            fresh,
            words: &taken,
        };
        let anchors: Vec<&SplitAnchor> = group.iter().map(|(s, _)| s).collect();
        let hoisted = hoisted.entry(function_name).or_default();
        edits.extend(split::edits(&context, &anchors, hoisted)?);
    }
    for name in atomic {
        edits.extend(atomic::edits(
            source,
            &outline,
            &marked.original,
            name,
            &marked.fused_spans,
        )?);
    }
    text::apply(source, edits)
}

/// The barrier's edit at a plain (not split) anchor: a line of its own, or, between
/// statements sharing a line, one space from its neighbours; in an `else` the text lacks,
/// that `else` around it.
fn barrier(source: &str, anchor: &SourceAnchor) -> Edit {
    if anchor.opens_else {
        let text = match anchor.own_line {
            true => {
                let outer = text::indentation(source, anchor.offset - 1);
                format!(" else {{\n{}storageBarrier();\n{outer}}}", anchor.indent)
            }
            false => " else { storageBarrier(); }".to_string(),
        };
        return Edit::insert(anchor.offset, text, 0);
    }
    let spaced = source[..anchor.offset].ends_with(char::is_whitespace);
    let text = match (anchor.own_line, spaced) {
        (true, _) => format!("{}storageBarrier();\n", anchor.indent),
        (false, true) => "storageBarrier(); ".to_string(),
        (false, false) => " storageBarrier();".to_string(),
    };
    Edit::insert(anchor.offset, text, 0)
}

/// The user's function (or entry point) called `name`, with its validation info.
fn function_of<'m>(
    marked: &'m Marked,
    info: &'m naga::valid::ModuleInfo,
    name: &str,
) -> Option<(&'m naga::Function, &'m naga::valid::FunctionInfo)> {
    let module = &marked.original;
    if let Some(i) = module.entry_points.iter().position(|e| e.name == name) {
        return Some((&module.entry_points[i].function, info.get_entry_point(i)));
    }
    module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(name))
        .map(|(h, f)| (f, &info[h]))
}

/// Refuses a patched text that does not validate or differs from the IR-level fix.
fn check(marked: &Marked, text: &str, chosen: &[u32]) -> Result<(), Why> {
    // Read as every input is (directives naga refuses set aside, pointer parameters
    // specialised), so that it is compared with a fix read the same way.
    let module = crate::parse(text, "patched").map_err(|e| Why::Invalid {
        message: e.to_string().lines().next().unwrap_or("").to_string(),
    })?;
    crate::validate(&module).map_err(|e| Why::Invalid {
        message: e.as_inner().to_string(),
    })?;
    let fix = marked.resolved(chosen).map_err(|e| Why::Invalid {
        message: e.to_string(),
    })?;
    match skeleton::difference(&fix, &module) {
        Some(what) => Err(Why::Mismatch { what }),
        None => Ok(()),
    }
}

fn diff(file: &str, source: &str, text: String) -> SourcePatch {
    let diff = similar::TextDiff::from_lines(source, &text);
    let (mut lines_removed, mut lines_added) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => lines_removed += 1,
            similar::ChangeTag::Insert => lines_added += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let rendered = diff
        .unified_diff()
        .context_radius(3)
        .header(file, file)
        .to_string();
    SourcePatch {
        text,
        diff: rendered,
        lines_removed,
        lines_added,
    }
}
