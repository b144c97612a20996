//! The fence search's fixes of every bundled app as source patches, without a GPU: the sites
//! a search on a GPU kept (the adapter-minimal set; bench/results/h100/fences.txt holds that
//! search's output and its command) completed into the portable set, patched into the nofence
//! variant's own text. Each patch parses in naga and Tint, keeps every line it does not edit,
//! and rebuilds the IR-level fix (checked inside `source_patch`); the portable set holds the
//! minimal one and the places where the hand-written fixed variant has its barriers (up to the
//! site-merge rule: statements that touch no storage may lie between).

use std::collections::BTreeSet;
use wgstress_apps::{all, find, Size, Variant};
use wgstress_instrument::atomic::candidates_wgsl;
use wgstress_instrument::placement::{
    analyse, fenced_at, fenced_at_atomic, fences, Analysis, Side, Why,
};
use wgstress_instrument::InstrumentOptions;
use wgstress_tint::{assert_valid, NamedWgsl};

/// A site as the search reports it: `line:column` of the access, and the side.
type Kept = (u32, u32, Side);

/// What a search on a GPU kept for each bundled bug (bench/results/h100/fences.txt).
const KEPT: [(&str, &[Kept]); 8] = [
    ("sdk-red", &[(43, 9, Side::After)]),
    ("cub-scan", &[(56, 9, Side::After), (94, 9, Side::After)]),
    ("cbe-dot", &[(47, 9, Side::After)]),
    ("cbe-ht", &[(50, 13, Side::After)]),
    ("ct-octree", &[(56, 13, Side::After), (42, 9, Side::After)]),
    ("ls-bh", &[(215, 27, Side::After)]),
    ("tpo-tm", &[(43, 9, Side::Before)]),
    ("global-barrier", &[(82, 9, Side::Before)]),
];

/// Barriers of a fixed variant the portable set does not reach, with why.
const GAPS: [(&str, u32, &str); 1] = [
    // build_tree's acquire at the top of a round. The flag is the pointer build_tree's load at
    // line 202 reads; the data it announces is read by the same load in the next round (the
    // pointer names the cell whose slot it reads). The pairing takes the two rounds for a
    // message, and the acquire side is the window from one round's load to the next's; the
    // kept release at 219 lies in that window and every invocation runs it, so that side is
    // fenced already and the completion puts no second barrier at 197.
    (
        "ls-bh",
        197,
        "acquire of build_tree: its window holds the kept release (219)",
    ),
];

fn options(app: &wgstress_runtime::app::spec::App) -> InstrumentOptions {
    InstrumentOptions {
        entry: app.entry.clone(),
        postcondition: app.postcondition.clone(),
        file_name: Some(app.shader_path.clone()),
        ..Default::default()
    }
}

fn analysis(name: &str) -> (String, Analysis) {
    let app = find(name).unwrap().build(Variant::NoFence, Size::Small);
    let analysis =
        analyse(&app.source, &options(&app), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    (app.source, analysis)
}

fn site(analysis: &Analysis, (line, column, side): Kept) -> u32 {
    let found = analysis
        .sites
        .iter()
        .find(|s| s.line == line && s.column == column && s.side == side);
    found
        .unwrap_or_else(|| panic!("no site {side:?} {line}:{column}"))
        .id
}

/// The lines (1-based) where the fixed variant fences: each `if FENCES` guard outside a
/// function made of one, and each call of such a function (`fence()`, `acquire()`).
fn fixed_lines(buggy: &str) -> Vec<u32> {
    let lines: Vec<&str> = buggy.lines().collect();
    let mut wrappers = Vec::new();
    let mut guards = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let text = line.trim();
        if text.starts_with("fn ") && lines.get(i + 1).is_some_and(|l| l.trim() == "if FENCES {") {
            let name = text[3..].split('(').next().unwrap_or("").to_string();
            wrappers.push(name);
        } else if text == "if FENCES {" && !lines[i - 1].trim().starts_with("fn ") {
            guards.push(i as u32 + 1);
        }
    }
    for (i, line) in lines.iter().enumerate() {
        if wrappers.iter().any(|w| line.trim() == format!("{w}();")) {
            guards.push(i as u32 + 1);
        }
    }
    guards.sort_unstable();
    guards
}

/// The names of the storage variables of `source` and of the functions that touch them.
fn storage_names(source: &str) -> Vec<String> {
    let module = naga::front::wgsl::parse_str(source).unwrap();
    let mut names: Vec<String> = module
        .global_variables
        .iter()
        .filter(|(_, g)| matches!(g.space, naga::AddressSpace::Storage { .. }))
        .filter_map(|(_, g)| g.name.clone())
        .collect();
    // Callees come before callers in naga's arena.
    for (_, function) in module.functions.iter() {
        let body = function_text(source, function.name.as_deref().unwrap_or(""));
        if names.iter().any(|n| mentions(&body, n)) {
            names.push(function.name.clone().unwrap_or_default());
        }
    }
    names
}

fn function_text(source: &str, name: &str) -> String {
    let start = source.find(&format!("fn {name}(")).unwrap_or(0);
    let rest = &source[start..];
    let end = rest.find("\n}\n").map_or(rest.len(), |i| i + 3);
    rest[rest.find('{').unwrap_or(0)..end].to_string()
}

fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| word == name)
}

/// The sites whose barrier sits at `line` of `source` up to statements that touch no
/// storage and no block boundary between.
fn sites_at(source: &str, analysis: &Analysis, line: u32, storage: &[String]) -> Vec<u32> {
    let lines: Vec<&str> = source.lines().collect();
    let neutral = |l: &str| {
        let code = l.split("//").next().unwrap_or("");
        !code.contains('{') && !code.contains('}') && !storage.iter().any(|n| mentions(code, n))
    };
    let at = |id: &u32| {
        let Ok(anchor) = &analysis.anchors[*id as usize] else {
            return false;
        };
        let at = source[..anchor.offset].matches('\n').count() as u32 + 1;
        let (low, high) = (line.min(at), line.max(at));
        (low..high).all(|l| neutral(lines[l as usize - 1]))
    };
    analysis.sites.iter().map(|s| s.id).filter(at).collect()
}

#[test]
fn portable_fixes_of_every_bundled_app_patch_the_source_and_hold_the_fixed_variants_barriers() {
    let mut shaders = Vec::new();
    for (name, kept) in KEPT {
        let (source, analysis) = analysis(name);
        let minimal: Vec<u32> = kept.iter().map(|k| site(&analysis, *k)).collect();
        let portable = analysis.portable(&minimal);
        let set: BTreeSet<u32> = portable.sites.iter().copied().collect();
        assert!(
            minimal.iter().all(|m| set.contains(m)),
            "{name}: {portable:?}"
        );
        assert_eq!(portable.needed, {
            let mut m = minimal.clone();
            m.sort_unstable();
            m
        });
        let buggy = find(name)
            .unwrap()
            .build(Variant::Buggy, Size::Small)
            .source;
        let storage = storage_names(&source);
        for line in fixed_lines(&buggy) {
            let gap = GAPS.iter().find(|(app, l, _)| *app == name && *l == line);
            let there = sites_at(&source, &analysis, line, &storage);
            assert!(
                !there.is_empty(),
                "{name}: the fixed variant's barrier at line {line} has no site"
            );
            let reached = there.iter().any(|id| set.contains(id));
            match gap {
                None => assert!(
                    reached,
                    "{name}: the fixed variant fences line {line} (sites {there:?}), the portable set is {:?}",
                    portable.sites
                ),
                Some((_, _, why)) => assert!(
                    !reached,
                    "{name}: line {line} is reached now ({why}): take it off GAPS"
                ),
            }
        }
        for (what, sites) in [("minimal", &portable.needed), ("portable", &portable.sites)] {
            let patch = analysis
                .source_patch(sites)
                .unwrap_or_else(|e| panic!("{name} {what}: {e}"));
            kept_lines(name, &source, &patch.text);
            shaders.push(NamedWgsl::new(format!("{name} {what}"), patch.text));
        }
    }
    assert_valid(&shaders);
}

/// Every line of `original` is in `patched`, in order, but the declarations a split moved
/// (a `let` or `var` made an assignment after a `var` before the branch) and the `if` of a
/// split whose condition reads memory (evaluated once, into a `let` before it).
fn kept_lines(name: &str, original: &str, patched: &str) {
    let diff = similar::TextDiff::from_lines(original, patched);
    for change in diff.iter_all_changes() {
        if change.tag() == similar::ChangeTag::Delete {
            let line = change.value().trim_start();
            assert!(
                ["let ", "var ", "if "].iter().any(|p| line.starts_with(p)),
                "{name}: the patch changed `{}`",
                change.value().trim_end()
            );
        }
    }
}

/// The sites of the nofence variants the text cannot take alone, with why: the app, the
/// site's name (the access's line:column and side) and the reason.
const REFUSED: [(&str, (u32, u32, Side), &str); 6] = [
    ("cbe-dot", (47, 29, Side::After), "InsideStatement"),
    ("ct-octree", (119, 13, Side::Before), "ForHeader"),
    ("ct-octree", (124, 20, Side::After), "Unplaced"),
    ("ct-octree", (98, 47, Side::After), "InsideStatement"),
    ("tpo-tm", (60, 23, Side::After), "InsideStatement"),
    ("tpo-tm", (68, 16, Side::After), "InsideStatement"),
];

/// Every site of every bundled app's nofence variant has one id in `fences`, `fenced_at`,
/// `fenced_at_atomic` and `analyse` (with each variable make-atomic takes, too), and its
/// barrier alone is patched into the text or refused for a reason of the text: never for a
/// patch that does not rebuild the IR-level fix. (ct-octree's 119:13 is inside the `&&`
/// condition of a `for`, its 124:20 between an `else` and its `if`.)
#[test]
fn every_site_of_every_bundled_app_has_one_id_and_patches_alone_or_is_refused_for_the_text() {
    let (mut refused, mut sites, mut made_atomic) = (Vec::new(), 0, 0);
    for bundled in all() {
        let app = bundled.build(Variant::NoFence, Size::Small);
        let name = app.name.trim_end_matches("-nofence");
        let options = options(&app);
        let source = &app.source;
        let found = fences(source, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let analysis = analyse(source, &options, &[]).unwrap();
        assert_eq!(analysis.sites, found.sites, "{name}");
        assert_eq!(fenced_at(source, &options, &[]).unwrap().sites, found.sites);
        for candidate in candidates_wgsl(source, &app.shader_path).unwrap() {
            let atomic = std::slice::from_ref(&candidate.name);
            let Ok(patched) = fenced_at_atomic(source, &options, atomic, &[]) else {
                continue;
            };
            let made = analyse(source, &options, atomic).unwrap();
            assert_eq!(made.sites, patched.sites, "{name} {}", candidate.name);
            made_atomic += 1;
        }
        for site in &analysis.sites {
            sites += 1;
            let Err(e) = analysis.source_patch(&[site.id]) else {
                continue;
            };
            let why = format!("{:?}", e.why);
            let why = why.split([' ', '{']).next().unwrap().to_string();
            assert!(
                matches!(e.why, Why::InsideStatement | Why::ForHeader | Why::Unplaced),
                "{name} site {}: {e}",
                site.id
            );
            refused.push((name.to_string(), (site.line, site.column, site.side), why));
        }
    }
    let expected: Vec<(String, (u32, u32, Side), String)> = REFUSED
        .iter()
        .map(|(app, site, why)| (app.to_string(), *site, why.to_string()))
        .collect();
    assert_eq!(refused, expected);
    assert_eq!(sites, 130);
    // cub-scan's `output`: the apps' other plain read_write variable is ls-bh's `moved`,
    // of vectors of f32, which make-atomic does not take.
    assert!(
        made_atomic > 0,
        "no variable of the apps could be made atomic"
    );
}

/// Fixes that a GPU search's first rounds kept for ct-octree and verified, as their portable
/// sets: each splits pop's first branch after its `let b`, which the second branch
/// declares for itself, and patches the source; the first splits the second branch too,
/// whose `b` then takes another name.
#[test]
fn ct_octrees_fixes_in_pop_patch_the_source() {
    let (source, analysis) = analysis("ct-octree");
    let at = |kept: &[Kept]| -> Vec<u32> { kept.iter().map(|k| site(&analysis, *k)).collect() };
    let in_pop: [&[Kept]; 2] = [
        &[
            (53, 17, Side::Before),
            (53, 17, Side::After),
            (56, 13, Side::After),
            (62, 17, Side::After),
            (46, 9, Side::After),
        ],
        &[
            (53, 17, Side::After),
            (56, 13, Side::After),
            (62, 17, Side::After),
            (80, 13, Side::After),
        ],
    ];
    let mut shaders = Vec::new();
    for (i, minimal) in in_pop.iter().enumerate() {
        let portable = analysis.portable(&at(minimal));
        for (what, sites) in [("minimal", &portable.needed), ("portable", &portable.sites)] {
            let patch = analysis
                .source_patch(sites)
                .unwrap_or_else(|e| panic!("fix {i} {what}: {e}"));
            // A line the patch changed is a split's, or names pop's second `b` by its new
            // name.
            let renamed = |line: &str| rename_word(line, "b", "b_2");
            let diff = similar::TextDiff::from_lines(source.as_str(), patch.text.as_str());
            for change in diff.iter_all_changes() {
                let line = change.value();
                let split = ["let ", "var ", "if "]
                    .iter()
                    .any(|p| line.trim_start().starts_with(p));
                if change.tag() == similar::ChangeTag::Delete && !split {
                    assert!(patch.text.contains(&renamed(line)), "changed `{line}`");
                }
            }
            assert!(patch.text.contains("    var b: u32;"), "{}", patch.text);
            shaders.push(NamedWgsl::new(
                format!("ct-octree fix {i} {what}"),
                patch.text,
            ));
        }
    }
    assert_valid(&shaders);
}

/// `line` with every whole word `from` written `to`.
fn rename_word(line: &str, from: &str, to: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut word = String::new();
    for c in line.chars().chain(std::iter::once(' ')) {
        if is_word(c) {
            word.push(c);
            continue;
        }
        out.push_str(if word == from { to } else { &word });
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}
