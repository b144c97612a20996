//! What `wgstress fences` does with the outcome: shows it (text or JSON), logs it, writes the
//! verified fix to `-o`, and edits the spec's shader in place with `--fix` unless the file
//! changed since the search began. Results are shown before any file is written, so a failed
//! write loses nothing that was measured.

use super::search::Plan;
use crate::status::Status;
use anyhow::{bail, Context, Result};
use serde_json::json;
use wgstress_runtime::fences::outcome::{Outcome, Verdict};
use wgstress_runtime::run::log::JsonLog;

/// Prints and logs the outcome, then writes the verified fix where the plan says.
pub fn show(plan: &Plan, outcome: &Outcome, log: Option<&mut JsonLog>) -> Result<Status> {
    let patched = outcome.patched();
    let output = plan.output.as_ref().filter(|_| patched.is_some());
    let fix = plan.fix.as_ref().filter(|_| patched.is_some());
    let shown = json!({
        "output": output.map(|p| p.display().to_string()),
        "fixed_in_place": fix.map(|p| p.display().to_string()),
    });
    let mut value = serde_json::to_value(outcome)?;
    value
        .as_object_mut()
        .expect("an outcome is an object")
        .extend(shown.as_object().expect("an object").clone());
    if let Some(log) = log {
        log.summary(value.clone())?;
    }
    if plan.session.json {
        crate::notes::emit(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        let written = output.map(|p| p.display().to_string());
        let edited = fix.map(|p| p.display().to_string());
        let text = crate::present::fences::text(outcome, written.as_deref(), edited.as_deref());
        crate::notes::emit(&text)?;
    }
    if let (Some(out), Some(patched)) = (output, patched) {
        std::fs::write(out, patched).with_context(|| format!("{}", out.display()))?;
    }
    if let (Some(path), Some(patched)) = (fix, patched) {
        edit_in_place(path, &plan.session.app.source, patched)?;
    }
    Ok(status(&outcome.verdict))
}

/// Writes `patched` over `path` when the file still holds `original`, the text the search
/// started from.
fn edit_in_place(path: &std::path::Path, original: &str, patched: &str) -> Result<()> {
    let now = wgstress_runtime::read::text(
        path,
        wgstress_runtime::read::SOURCE_BYTES,
        "a shader may hold",
    )?;
    if now != original {
        bail!(
            "{}: the file changed since the search began: not edited (the fix is in the report \
             above; run the search again on the file as it is now)",
            path.display()
        );
    }
    std::fs::write(path, patched).with_context(|| format!("{}", path.display()))
}

/// 0 for a fix or no failure, 1 for no fix, 2 for an error, 130 for Ctrl-C.
pub fn status(verdict: &Verdict) -> Status {
    match verdict {
        Verdict::DoesNotFail | Verdict::Fixed => Status::Passed,
        Verdict::NotFixed { .. } | Verdict::Unverified { .. } | Verdict::WatchdogStops { .. } => {
            Status::Failed
        }
        Verdict::Interrupted { .. } => Status::Interrupted,
        Verdict::Aborted { .. } => Status::Aborted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_or_no_failure_exits_0_no_fix_1_an_error_2_an_interruption_130() {
        assert_eq!(status(&Verdict::Fixed).number(), 0);
        assert_eq!(status(&Verdict::DoesNotFail).number(), 0);
        let reasons = Vec::new();
        assert_eq!(status(&Verdict::NotFixed { reasons }).number(), 1);
        let why = String::from("w");
        assert_eq!(status(&Verdict::Unverified { why }).number(), 1);
        let why = String::from("lost");
        assert_eq!(status(&Verdict::Aborted { why }).number(), 2);
        let during = String::from("the search");
        assert_eq!(status(&Verdict::Interrupted { during }).number(), 130);
    }
}
