//! What `wgstress fences` does with the outcome: shows it (text or JSON), logs it, writes the
//! verified fix to `-o` (a pipeline's patched files into that directory), and edits the spec's
//! shader files in place with `--fix` unless a file changed since the search began. The report
//! says what became of each file, so the in-place edit comes first; a failed edit is in the
//! report rather than an error, so it loses nothing that was measured.

use super::search::Plan;
use crate::status::Status;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use wgstress_fences::source::AppSource;
use wgstress_log::{FencesSummary, JsonLog, NotFixedInPlace, Summary};
use wgstress_model::fences::outcome::{FenceOutcome, FenceVerdict};
use wgstress_model::fences::patch::FilePatch;

/// Edits the spec's files in place (`--fix`) when every one still holds the text the search
/// began from, then logs and prints the outcome with what became of each file (one report,
/// true to what happened), then writes the verified fix to `-o`. A fix that could not be
/// applied in place is in the report, and the command exits 1.
pub fn show(plan: &Plan, outcome: &FenceOutcome, log: Option<&mut JsonLog>) -> Result<Status> {
    let patched = outcome.patched();
    let written = written(plan, patched);
    let in_place = match plan.fix && !patched.is_empty() {
        true => edit_in_place(&plan.shader, patched),
        false => InPlace::default(),
    };
    let value = FencesSummary {
        outcome: outcome.clone(),
        output: written
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect(),
        fixed_in_place: in_place.edited.clone(),
        not_fixed_in_place: in_place.refused.as_ref().map(|r| NotFixedInPlace {
            files: r.files.clone(),
            why: r.why.clone(),
        }),
    };
    if let Some(log) = log {
        log.summary(Summary::Fences(Box::new(value.clone())))?;
    }
    if plan.session.json {
        crate::notes::emit(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        let paths: Vec<String> = written
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        let mut text = crate::fences::fence_report::text(outcome, &paths, &in_place.edited);
        if let Some(refused) = &in_place.refused {
            text.push_str(&format!("not edited in place: {}\n", refused.why));
        }
        crate::notes::emit(&text)?;
    }
    for (path, patch) in &written {
        wgstress_runtime::write::replace(path, patch.patch.text().as_bytes())
            .with_context(|| format!("{}", path.display()))?;
    }
    Ok(match in_place.refused {
        Some(_) => Status::Failed,
        None => status(&outcome.verdict),
    })
}

/// What `--fix` did: the files it edited, or why it edited none (or, should a write fail
/// part way, why it stopped).
#[derive(Default)]
struct InPlace {
    edited: Vec<String>,
    refused: Option<Refusal>,
}

struct Refusal {
    /// The files left as they were.
    files: Vec<String>,
    why: String,
}

/// Where `-o` puts each patched file: the file named, or for a pipeline each file under its
/// own name in the directory named.
fn written<'a>(plan: &Plan, patched: &'a [FilePatch]) -> Vec<(PathBuf, &'a FilePatch)> {
    let Some(out) = &plan.output else {
        return Vec::new();
    };
    match (plan.session.app.pipeline.is_empty(), patched) {
        (true, [patch]) => vec![(out.clone(), patch)],
        _ => patched
            .iter()
            .map(|p| {
                let name = Path::new(&p.file).file_name().unwrap_or_default();
                (out.join(name), p)
            })
            .collect(),
    }
}

/// Writes each patched file over the user's, when every one still holds the text the search
/// began from (checked for all before any is written).
fn edit_in_place(shader: &AppSource, patched: &[FilePatch]) -> InPlace {
    let all = || patched.iter().map(|p| p.file.clone()).collect::<Vec<_>>();
    for patch in patched {
        let path = Path::new(&patch.file);
        let original = shader
            .parts
            .iter()
            .find(|p| p.path == patch.file)
            .map(|p| p.source.as_str())
            .unwrap_or_default();
        let now = wgstress_model::read::text(
            path,
            wgstress_model::read::SOURCE_BYTES,
            "a shader may hold",
        );
        let why = match now {
            Ok(now) if now == original => continue,
            Ok(_) => format!("{} changed since the search began", path.display()),
            Err(e) => format!("{} cannot be read again: {e}", path.display()),
        };
        return InPlace {
            edited: Vec::new(),
            refused: Some(Refusal {
                files: all(),
                why: format!(
                    "{why} (the fix is in this report; run the search again on the files as \
                     they are now)"
                ),
            }),
        };
    }
    let mut done = InPlace::default();
    for patch in patched {
        if let Err(e) = wgstress_runtime::write::replace(
            std::path::Path::new(&patch.file),
            patch.patch.text().as_bytes(),
        ) {
            let left: Vec<String> = all().into_iter().skip(done.edited.len()).collect();
            done.refused = Some(Refusal {
                files: left,
                why: format!("{}: {e}", patch.file),
            });
            break;
        }
        done.edited.push(patch.file.clone());
    }
    done
}

/// 0 for a fix or no failure, 1 for no fix, 2 for an error, 130 for Ctrl-C.
pub fn status(verdict: &FenceVerdict) -> Status {
    match verdict {
        FenceVerdict::DoesNotFail | FenceVerdict::Fixed => Status::Passed,
        FenceVerdict::NotFixed { .. }
        | FenceVerdict::Unverified { .. }
        | FenceVerdict::WatchdogStops { .. } => Status::Failed,
        FenceVerdict::Interrupted { .. } => Status::Interrupted,
        FenceVerdict::Aborted { .. } => Status::Aborted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_or_no_failure_exits_0_no_fix_1_an_error_2_an_interruption_130() {
        assert_eq!(status(&FenceVerdict::Fixed).number(), 0);
        assert_eq!(status(&FenceVerdict::DoesNotFail).number(), 0);
        let reasons = Vec::new();
        assert_eq!(status(&FenceVerdict::NotFixed { reasons }).number(), 1);
        let why = String::from("w");
        assert_eq!(status(&FenceVerdict::Unverified { why }).number(), 1);
        let why = String::from("lost");
        assert_eq!(status(&FenceVerdict::Aborted { why }).number(), 2);
        let during = String::from("the search");
        assert_eq!(status(&FenceVerdict::Interrupted { during }).number(), 130);
    }
}
