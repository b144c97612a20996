//! `wgstress fences APP`: plans the search for the fix that stops an application's
//! failures, runs it on the device (`wgstress_fences::search` on the runtime's `GpuLab`) and
//! shows its outcome.

use crate::fanout::Fanout;
use crate::fences::fence_report::Progress;
use crate::notes::Notes;
use crate::options::{AppOptions, BudgetOptions, SessionOptions, StressOptions};
use crate::session::{fixed_variant, paths, SessionPlan};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wgstress_fences::source::AppSource;
use wgstress_fences::{search, FenceSearchConfig};
use wgstress_log::{FencesStart, JsonLog, StartOf};
use wgstress_model::fences::outcome::FenceOutcome;
use wgstress_model::fences::patch::Choice;
use wgstress_model::run::tally::seed_text;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::fences::gpu::GpuLab;
use wgstress_runtime::fences::parts::source_of;
use wgstress_runtime::App;

#[derive(clap::Args)]
pub struct SearchOptions {
    #[command(flatten)]
    stress: StressOptions,
    #[command(flatten)]
    session: SessionOptions,
    /// Stress strategy of every run of the search; when left out, systematic, and if it shows
    /// no failure in half the budget, cache, random and none share the other half and the
    /// one that fails most is used
    #[arg(long, value_parser = crate::options::strategies())]
    strategy: Option<Strategy>,
    /// Seconds to confirm the failure and measure its rate (calibration's share included)
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    budget: Duration,
    /// Seconds to run the fix found, shared by the strategies that showed the failure; one
    /// failure and it is not reported as a fix
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    verify: Duration,
    /// Seconds the search's rounds may take, their trials and the verifications of fixes
    /// that failed [default: 2 x --budget]; past it, the sites not yet tried are kept and the set
    /// found so far is verified. The whole search ends within --budget + --search-time +
    /// --verify + 2 x --cost, start-up and the batch in flight aside
    #[arg(long, value_parser = crate::options::seconds, allow_negative_numbers = true)]
    search_time: Option<Duration>,
    /// Runs per batch
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// Seconds a batch may run before it counts as hung. Longer than `run`'s 10: barriers in
    /// a spinning loop lengthen the runs the watchdog stops, and a trial meets its first such
    /// run before its batches can be sized for it
    #[arg(long, default_value = "60", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    timeout: Duration,
    /// Suggest what this adapter needed instead of the portable fix (which gives every
    /// release and acquire the kept barriers belong to its other side, for GPUs that cache or
    /// reorder loads)
    #[arg(long)]
    minimal: bool,
    /// Edit the spec's shader file in place once the fix is verified (refused when the file
    /// changed since the search began)
    #[arg(long)]
    fix: bool,
    /// Seconds to time the application alone, as is and with each fix, once the fix is
    /// verified; where a placement of the portable fix times cheaper, as long again at most to
    /// check it under stress
    #[arg(long, default_value = "10", value_parser = crate::options::seconds, allow_negative_numbers = true)]
    cost: Duration,
}

/// A validated search.
pub struct Plan {
    pub session: SessionPlan,
    /// The application's stressed shaders, parsed once: the search's trials are edits of
    /// them, and `--fix` compares each file with the text it began from.
    pub shader: AppSource,
    /// The user's strategy; none: systematic, then a short compare if it shows nothing.
    strategy: Option<Strategy>,
    verify: Duration,
    /// The search's time bound.
    search: Duration,
    choice: Choice,
    cost: Duration,
    /// A bundled application's fixed variant, whose cost the report compares.
    reference: Option<App>,
    /// Where the patched shader goes (a pipeline's patched files: a directory), checked
    /// writable and distinct from the inputs.
    pub output: Option<PathBuf>,
    /// Edit the spec's shader files in place (`--fix`), each checked writable.
    pub fix: bool,
}

pub fn plan(app: &AppOptions, args: &SearchOptions, output: Option<&Path>) -> Result<Plan> {
    let budget = BudgetOptions {
        runs: None,
        time: Some(args.budget),
        batch: args.batch,
        timeout: Some(args.timeout),
        until_failures: None,
    };
    let session = SessionPlan::new(
        app,
        &budget,
        &args.stress,
        &args.session,
        Default::default(),
    )?;
    super::stressed(&session.app)?;
    let mut files = session.files();
    if let Some(out) = output {
        if session.app.pipeline.is_empty() {
            files.output("--output", out);
        } else {
            // A pipeline's fix may change several files: they go into a directory, new or
            // empty, so that no file there is overwritten (an input among them, or any other).
            let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
            if !empty {
                anyhow::bail!(
                    "{}: not empty; --output writes a pipeline's patched shaders into a new or \
                     empty directory, overwriting nothing",
                    out.display()
                );
            }
            std::fs::create_dir_all(out).with_context(|| {
                format!(
                    "--output {}: a directory for the patched files",
                    out.display()
                )
            })?;
        }
    }
    files.check()?;
    if args.fix && session.inputs.is_empty() {
        anyhow::bail!(
            "{}: --fix edits the shader files of a spec; a bundled application has none of yours \
             (use -o FILE)",
            session.app.name
        );
    }
    let shader = source_of(&session.app)?;
    if args.fix {
        for part in &shader.parts {
            paths::writable(Path::new(&part.path), "--fix")?;
        }
    }
    Ok(Plan {
        strategy: args.strategy,
        verify: args.verify,
        search: args.search_time.unwrap_or(args.budget * 2),
        choice: if args.minimal {
            Choice::Minimal
        } else {
            Choice::Portable
        },
        cost: args.cost,
        reference: fixed_variant(app),
        output: output.map(Path::to_path_buf),
        fix: args.fix,
        session,
        shader,
    })
}

/// Runs the search; the outcome and the log it goes on to are the caller's to show.
pub fn execute(plan: &Plan, notes: Notes) -> Result<(FenceOutcome, Option<JsonLog>)> {
    let session = &plan.session;
    let shader = &plan.shader;
    // Watched from the start: a signal while calibration runs stops the command before its
    // first batch, with a summary of no runs; one while the engine is built quits at once
    // (`SessionPlan::engine`), as nothing is gathered yet.
    let stop = crate::interrupt::stop_flag(notes.on);
    let engine = session.engine()?;
    crate::session::announce::announce(&engine, notes);
    let (shape, source) = session.stress.shape(&engine)?;
    if plan.strategy.is_none_or(|s| s == Strategy::Systematic) {
        notes.note(&format!("systematic stress from {source}"));
    }
    let config = FenceSearchConfig {
        strategy: plan.strategy,
        budget: session.budget.time.unwrap_or_default(),
        verify: plan.verify,
        search: plan.search,
        master_seed: session.master_seed,
        adaptive: session.stress.adaptive(),
        stop,
        choice: plan.choice,
        cost: plan.cost,
    };
    let mut log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    if let Some(log) = log.as_mut() {
        log.start(StartOf::Fences(FencesStart {
            app: engine.app().name.clone(),
            adapter: engine.gpu().describe(),
            strategy: config.strategy,
            budget_seconds: config.budget.as_secs_f64(),
            verify_seconds: config.verify.as_secs_f64(),
            search_seconds: config.search.as_secs_f64(),
            master_seed: seed_text(config.master_seed),
        }))?;
    }
    let mut lab = GpuLab::with_engine(
        shader.clone(),
        session.engine_config(),
        session.stress.clone(),
        shape,
        engine,
    )
    .with_reference(plan.reference.clone());
    let mut reporter = Fanout::new(log);
    reporter.show(Progress::new(session, notes));
    let outcome = search(&config, shader, &mut lab, &mut reporter)?;
    Ok((outcome, reporter.into_log()))
}
