//! The fix the search suggests, from the adapter-minimal set its trials kept. By default the
//! portable set: each release or acquire the search kept gets the other side of its pair where
//! WGSL allows a barrier, since GPUs whose loads can be served from a non-coherent cache or
//! reordered need it and the specification promises neither (`--minimal` keeps what this
//! adapter needed). The fix reaches the user as an edit of their own file, or, where the text
//! cannot express it, as naga's rendering of the whole shader, saying why.

use super::lab::FixSet;
use super::outcome::Kept;
use super::source::Shader;
use crate::app::spec::App;
use crate::error::Result;
use serde::Serialize;
use wgstress_instrument::fences::{Analysis, FenceSite, Missing, Role, Side};

/// Which fix is suggested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// Both sides of every pair the kept barriers belong to.
    #[default]
    Portable,
    /// What this adapter needed.
    Minimal,
}

/// The fix as the user gets it.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Patch {
    /// The user's file with the fix made in it: what `-o` writes and `--fix` puts in place.
    Source {
        #[serde(skip)]
        text: String,
        diff: String,
        changed_lines: usize,
    },
    /// naga's rendering of the whole shader with the fix, where the text cannot express it.
    Rendered {
        #[serde(skip)]
        text: String,
        diff: String,
        why: String,
    },
}

impl Patch {
    pub fn text(&self) -> &str {
        match self {
            Patch::Source { text, .. } | Patch::Rendered { text, .. } => text,
        }
    }

    pub fn diff(&self) -> &str {
        match self {
            Patch::Source { diff, .. } | Patch::Rendered { diff, .. } => diff,
        }
    }
}

/// A fix of the application, as the user gets it and as it runs.
pub struct Patched {
    pub fix: FixSet,
    pub patch: Patch,
    /// The application with the fix: its shader the patch's text, read like any input.
    pub app: App,
}

/// The suggested fix, with the minimal one it grew from.
pub struct Suggestion {
    pub choice: Choice,
    /// What this adapter needed: the set the trials kept.
    pub minimal: Vec<u32>,
    /// The suggested barriers, each with its role and whether this adapter needed it.
    pub kept: Vec<Kept>,
    /// Pairs a kept barrier belongs to whose other side has no legal site.
    pub missing: Vec<String>,
    pub suggested: Patched,
    /// The other choice's fix (the minimal one when the portable one is suggested), when it
    /// differs: the cost step times it too.
    pub other: Option<Patched>,
}

/// The suggestion grown from `minimal` (the kept set, on its variable made atomic if any).
pub fn suggest(shader: &Shader, minimal: &FixSet, choice: Choice) -> Result<Suggestion> {
    let analysis = shader.analyse(minimal.atomic.as_deref())?;
    let needed: Vec<u32> = minimal.sites.iter().map(|&s| s as u32).collect();
    let portable = analysis.portable(&needed);
    let (chosen, other) = match choice {
        Choice::Portable => (&portable.sites, &portable.needed),
        Choice::Minimal => (&portable.needed, &portable.sites),
    };
    let fix_of = |sites: &[u32]| FixSet {
        atomic: minimal.atomic.clone(),
        sites: sites.iter().map(|&s| s as usize).collect(),
    };
    let suggested = patched(shader, &analysis, fix_of(chosen))?;
    let other = match other == chosen {
        true => None,
        false => Some(patched(shader, &analysis, fix_of(other))?),
    };
    let file = &shader.app.shader_path;
    Ok(Suggestion {
        choice,
        kept: chosen
            .iter()
            .map(|&s| kept(shader, &analysis, s, needed.contains(&s)))
            .collect(),
        missing: portable.missing.iter().map(|m| missing(m, file)).collect(),
        minimal: needed,
        suggested,
        other,
    })
}

/// `fix` as an edit of the user's text, else as naga's rendering, and the application it makes.
fn patched(shader: &Shader, analysis: &Analysis, fix: FixSet) -> Result<Patched> {
    let chosen: Vec<u32> = fix.sites.iter().map(|&s| s as u32).collect();
    let (patch, app) = match analysis.source_patch(&chosen) {
        Ok(source) => {
            let patch = Patch::Source {
                changed_lines: source.changed_lines(),
                diff: source.diff,
                text: source.text,
            };
            let app = App {
                source: patch.text().to_string(),
                ..shader.app.clone()
            };
            (patch, app)
        }
        Err(why) => {
            let rendered = shader.patch(&fix)?;
            let patch = Patch::Rendered {
                diff: rendered.diff(),
                text: rendered.wgsl,
                why: why.to_string(),
            };
            (patch, shader.app_with(&fix)?)
        }
    };
    Ok(Patched { fix, patch, app })
}

/// Site `id` as the report shows it: where, its role and why it is there.
fn kept(shader: &Shader, analysis: &Analysis, id: u32, needed: bool) -> Kept {
    let site: &FenceSite = &analysis.sites[id as usize];
    let role = analysis.roles.get(id as usize).map(|r| r.role);
    Kept {
        site: id,
        file: shader.app.shader_path.clone(),
        line: site.line,
        column: site.column,
        side: match site.side {
            Side::Before => "before",
            Side::After => "after",
        },
        function: site.function.clone(),
        source: shader
            .app
            .source
            .lines()
            .nth(site.line as usize - 1)
            .map_or("", str::trim)
            .to_string(),
        role: match role {
            Some(Role::Release) => Some("release"),
            Some(Role::Acquire) => Some("acquire"),
            Some(Role::Both) => Some("release and acquire"),
            Some(Role::None) | None => None,
        },
        reason: analysis.reason(id),
        needed,
    }
}

/// What a pair without a legal site for its other side lacks, in words.
fn missing(m: &Missing, file: &str) -> String {
    let side = match m.side {
        Role::Release => "release",
        _ => "acquire",
    };
    format!(
        "{file}: the {side} side of site {}'s pair has no site: it would go between {} and {}, \
         where WGSL allows no barrier (a loop or branch that invocations leave at different \
         times, or a function called there)",
        m.site, m.after, m.before
    )
}
