//! The fix the search suggests, from the adapter-minimal set its trials kept. By default the
//! portable set: each release or acquire the search kept gets the other side of its pair where
//! WGSL allows a barrier, since GPUs whose loads can be served from a non-coherent cache or
//! reordered need it and the specification promises neither (`--minimal` keeps what this
//! adapter needed). The fix reaches the user as an edit of their own file, or, where the text
//! cannot express it, as naga's rendering of the whole shader, saying why.

use crate::error::Result;
use crate::lab::FixSet;
use crate::rewrite::{PartText, Rewrite};
use crate::source::{kept_role, AppSource, SiteId, SiteTables};
use wgstress_instrument::placement::{Analysis, FenceSite, MissingPartner, Portable, Role, Side};
use wgstress_model::fences::outcome::{Kept, KeptSide};
use wgstress_model::fences::patch::{Choice, FilePatch, Patch};

/// A fix of the application, as the user gets it and as it runs.
pub struct SuggestedFix {
    pub fix: FixSet,
    /// A patch per file the fix changes; none where a file's patch cannot be had (the
    /// reasons are in `unexpressed`).
    pub files: Vec<FilePatch>,
    pub unexpressed: Vec<String>,
    /// The parts with the fix: each file the patched text, read like any input (naga's
    /// rendering of each part where a file has no patch).
    pub app: Rewrite,
}

/// Placements of the portable fix the cost step times at most, the analysis's own included:
/// a window of several sites (a loop's body and the statement after it) gives each its own.
pub(crate) const PLACEMENTS: usize = 6;

/// The suggested fix, with the minimal one it grew from.
pub(crate) struct Suggestion {
    pub choice: Choice,
    /// What this adapter needed: the set the trials kept.
    pub minimal: Vec<u32>,
    /// The suggested barriers, each with its role and whether this adapter needed it.
    pub kept: Vec<Kept>,
    /// Pairs a kept barrier belongs to whose other side has no legal site.
    pub missing: Vec<String>,
    pub suggested: SuggestedFix,
    /// The other choice's fix (the minimal one when the portable one is suggested), when it
    /// differs: the cost step times it too.
    pub other: Option<SuggestedFix>,
    /// The portable fix's other placements (suggesting it): an added barrier moved to
    /// another site of its window. The cost step times them and suggests the cheapest that
    /// passes its check (`choose`).
    pub placements: Vec<Placed>,
}

/// One placement of the portable fix: its barriers as the report lists them, the pairs with
/// no legal site, and the fix.
pub(crate) struct Placed {
    pub kept: Vec<Kept>,
    pub missing: Vec<String>,
    pub fix: SuggestedFix,
}

impl Suggestion {
    /// Suggests placement `i` of `placements` in place of the suggested fix, which takes its
    /// place there.
    pub(crate) fn choose(&mut self, i: usize) {
        let placed = &mut self.placements[i];
        std::mem::swap(&mut self.kept, &mut placed.kept);
        std::mem::swap(&mut self.missing, &mut placed.missing);
        std::mem::swap(&mut self.suggested, &mut placed.fix);
    }
}

/// The suggestion grown from `minimal` (the kept set, on its variables made atomic if any).
pub(crate) fn suggest(shader: &AppSource, minimal: &FixSet, choice: Choice) -> Result<Suggestion> {
    let tables = shader.tables(&minimal.atomic)?;
    let analyses = tables.analyses()?;
    let needed_by_part = tables.by_part(&minimal.sites)?;
    // Each part's portable completions, its own placement first.
    let limit = match choice {
        Choice::Portable => PLACEMENTS,
        Choice::Minimal => 1,
    };
    let portables: Vec<Vec<Portable>> = analyses
        .iter()
        .zip(&needed_by_part)
        .map(|(analysis, needed)| analysis.placements(needed, limit))
        .collect();
    // The analysis's placement in every part, then one part's other placements at a time.
    let first = vec![0; analyses.len()];
    let mut choices = vec![first.clone()];
    for (p, placements) in portables.iter().enumerate() {
        for k in 1..placements.len() {
            let mut choice = first.clone();
            choice[p] = k;
            choices.push(choice);
        }
    }
    choices.truncate(limit);
    let fix_of = |sites: Vec<usize>| FixSet {
        atomic: minimal.atomic.clone(),
        sites,
    };
    let mut placed = Vec::new();
    let mut other = None;
    for (c, chosen) in choices.iter().enumerate() {
        let portable: Vec<&Portable> = chosen
            .iter()
            .enumerate()
            .map(|(p, &k)| &portables[p][k])
            .collect();
        let (kept, missing, mine, theirs) = sites(shader, &analyses, &tables, &portable, choice);
        let fix = patched(shader, &analyses, &tables, fix_of(mine.clone()))?;
        // A placement the text cannot take (naga's rendering, or no patch) is not offered:
        // the user's own file edited is worth more than the cost it would save.
        let rendered = fix
            .files
            .iter()
            .any(|f| matches!(f.patch, Patch::Rendered { .. }));
        if c > 0 && (rendered || !fix.unexpressed.is_empty()) {
            continue;
        }
        if c == 0 && theirs != mine {
            other = Some(patched(shader, &analyses, &tables, fix_of(theirs))?);
        }
        placed.push(Placed { kept, missing, fix });
    }
    let mut placed = placed.into_iter();
    let first = placed.next().expect("the analysis's placement");
    Ok(Suggestion {
        choice,
        kept: first.kept,
        missing: first.missing,
        minimal: minimal.sites.iter().map(|&s| s as u32).collect(),
        suggested: first.fix,
        other,
        placements: placed.collect(),
    })
}

/// The barriers of `portable` (one completion per part) as the report lists them, the
/// pairs with no legal site, and the global sites of the `choice` fix and of the other.
fn sites(
    shader: &AppSource,
    analyses: &[&Analysis],
    tables: &SiteTables,
    portable: &[&Portable],
    choice: Choice,
) -> (Vec<Kept>, Vec<String>, Vec<usize>, Vec<usize>) {
    let (mut kept, mut missing, mut chosen, mut other) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (p, (analysis, portable)) in analyses.iter().zip(portable).enumerate() {
        let (mine, theirs) = match choice {
            Choice::Portable => (&portable.sites, &portable.needed),
            Choice::Minimal => (&portable.needed, &portable.sites),
        };
        let path = &shader.parts[p].path;
        let global = |local: u32| tables.global(SiteId { part: p, local });
        let needed = &portable.needed;
        kept.extend(
            mine.iter()
                .map(|&s| site(shader, p, analysis, s, global(s), needed.contains(&s))),
        );
        missing.extend(
            portable
                .missing
                .iter()
                .map(|m| describe(m, path, global(m.site))),
        );
        chosen.extend(mine.iter().map(|&s| global(s)));
        other.extend(theirs.iter().map(|&s| global(s)));
    }
    (kept, missing, chosen, other)
}

/// `fix` as an edit of each file it changes, else as naga's rendering, and the application
/// it makes.
fn patched(
    shader: &AppSource,
    analyses: &[&Analysis],
    tables: &SiteTables,
    fix: FixSet,
) -> Result<SuggestedFix> {
    let by_part = tables.by_part(&fix.sites)?;
    let mut edited: Vec<(String, Vec<std::result::Result<String, String>>)> = Vec::new();
    for (p, analysis) in analyses.iter().enumerate() {
        let text = analysis
            .source_patch(&by_part[p])
            .map(|s| s.text)
            .map_err(|why| why.to_string());
        let path = &shader.parts[p].path;
        match edited.iter_mut().find(|(file, _)| file == path) {
            Some((_, texts)) => texts.push(text),
            None => edited.push((path.clone(), vec![text])),
        }
    }
    let mut files = Vec::new();
    let mut unexpressed = Vec::new();
    let mut texts: Vec<PartText> = Vec::new();
    for (file, parts) in edited {
        let original = &shader
            .parts
            .iter()
            .find(|p| p.path == file)
            .expect("a part's file")
            .source;
        match merged(original, &parts) {
            Ok(text) if text == *original => {}
            Ok(text) => {
                for (p, part) in shader
                    .parts
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| q.path == file)
                {
                    texts.push(PartText {
                        part: p,
                        text: text.clone(),
                        postcondition: part.postcondition.clone(),
                    });
                }
                files.push(FilePatch {
                    patch: source_patch(&file, original, text),
                    file,
                });
            }
            Err(why) => unexpressed.push(format!("{file}: {why}")),
        }
    }
    let app = if unexpressed.is_empty() {
        Rewrite { parts: texts }
    } else {
        shader.rewrite_with(&fix)?
    };
    // A single file the text cannot express is still given whole, as naga writes it.
    if let ([why], false, [part]) = (
        unexpressed.as_slice(),
        shader.is_pipeline(),
        shader.parts.as_slice(),
    ) {
        let rendered = shader.patch(&fix)?;
        files.push(FilePatch {
            file: part.path.clone(),
            patch: Patch::Rendered {
                diff: rendered.diff(),
                text: rendered.parts[0].wgsl.clone(),
                why: why
                    .strip_prefix(&format!("{}: ", part.path))
                    .unwrap_or(why)
                    .to_string(),
            },
        });
        unexpressed.clear();
    }
    Ok(SuggestedFix {
        fix,
        files,
        unexpressed,
        app,
    })
}

/// One text from the patches of a file's parts: each is the original with its own edits;
/// they combine where their edits touch different lines or are the same edit.
fn merged(
    original: &str,
    parts: &[std::result::Result<String, String>],
) -> std::result::Result<String, String> {
    let texts: Vec<&str> = parts
        .iter()
        .map(|p| p.as_deref().map_err(Clone::clone))
        .collect::<std::result::Result<_, _>>()?;
    crate::merge::merge(original, &texts)
        .ok_or_else(|| "the fixes of its entry points edit the same lines differently".to_string())
}

/// The edit of `file` from `original` to `text`, as a unified diff.
fn source_patch(file: &str, original: &str, text: String) -> Patch {
    let diff = similar::TextDiff::from_lines(original, text.as_str());
    let changed_lines = diff
        .iter_all_changes()
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .count();
    Patch::Source {
        diff: diff
            .unified_diff()
            .context_radius(3)
            .header(file, file)
            .to_string(),
        changed_lines,
        text,
    }
}

/// Site `id` of part `p` (`global` over all parts) as the report shows it: where, its role
/// and why it is there.
fn site(
    shader: &AppSource,
    p: usize,
    analysis: &Analysis,
    id: u32,
    global: usize,
    needed: bool,
) -> Kept {
    let site: &FenceSite = &analysis.sites[id as usize];
    let role = analysis.roles.get(id as usize).map(|r| r.role);
    let part = &shader.parts[p];
    Kept {
        site: global as u32,
        file: part.path.clone(),
        line: site.line,
        column: site.column,
        side: match site.side {
            Side::Before => KeptSide::Before,
            Side::After => KeptSide::After,
        },
        function: site.function.clone(),
        source: part
            .source
            .lines()
            .nth(site.line as usize - 1)
            .map_or("", str::trim)
            .to_string(),
        role: role.and_then(kept_role),
        reason: analysis.reason(id),
        needed,
    }
}

/// What a pair without a legal site for its other side lacks, in words.
fn describe(m: &MissingPartner, file: &str, global: usize) -> String {
    let side = match m.side {
        Role::Release => "release",
        _ => "acquire",
    };
    format!(
        "{file}: the {side} side of site {}'s pair has no site: it would go between {} and {}, \
         where WGSL allows no barrier (a loop or branch that invocations leave at different \
         times, or a function called there)",
        global, m.after, m.before
    )
}
