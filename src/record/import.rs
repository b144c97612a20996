//! `wgstress import TRACE_DIR --out DIR`: a Rust program's wgpu trace (`Trace::Directory`)
//! turned into a spec. A trace holds what the program asked of wgpu, not what it read back:
//! the words it could read back are taken from two unstressed (raw) replays of the spec on
//! this machine's adapter, and words the two replays disagree on are not checked.

use super::{write_new, write_spec, Scratch};
use crate::notes::Notes;
use crate::present::numbers::count;
use crate::status::Status;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wgstress_model::stress::params::{RunParams, Settings, StressShape};
use wgstress_model::stress::strategy::Strategy;
use wgstress_record::{convert, read_trace, render, Origin, RecordedSpec};
use wgstress_runtime::gpu::engine::{Engine, EngineConfig, Mode};

#[derive(clap::Args)]
pub struct Args {
    /// The trace directory the program wrote (its trace.ron and data files)
    trace: PathBuf,
    /// The directory to write the spec into (a new or empty one)
    #[arg(long)]
    out: PathBuf,
    /// The application's name in the spec (default: the trace directory's name)
    #[arg(long)]
    name: Option<String>,
    /// The adapter whose raw runs give the read-back words (a substring of its name, or #N)
    #[arg(long)]
    adapter: Option<String>,
}

/// A validated `import`.
pub struct Plan {
    trace: PathBuf,
    out: PathBuf,
    name: String,
    adapter: Option<String>,
}

pub fn plan(args: &Args) -> Result<Plan> {
    if !args.trace.join("trace.ron").is_file() {
        bail!(
            "{}: no trace.ron here; give the directory a wgpu program traced into (Trace::Directory)",
            args.trace.display()
        );
    }
    super::check_out(&args.out)?;
    let name = args.name.clone().unwrap_or_else(|| {
        std::fs::canonicalize(&args.trace)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "imported".to_string())
    });
    Ok(Plan {
        trace: args.trace.clone(),
        out: args.out.clone(),
        name,
        adapter: args.adapter.clone(),
    })
}

/// What every binding held after each of two raw runs of the spec in `dir`.
type Replayed = Vec<Vec<((u32, u32), Vec<u32>)>>;

fn replay(dir: &Path, adapter: Option<String>) -> Result<Replayed> {
    let mut app = wgstress_runtime::app::spec::load(&dir.join("spec.toml"))?;
    // The checks hold no words yet: the replay is what gives them.
    app.checks.clear();
    let seen: Arc<Mutex<Replayed>> = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let keys: Vec<(u32, u32)> = app.bindings.iter().map(|b| (b.group, b.binding)).collect();
    app.host_check = Some(Arc::new(move |outputs| {
        let words = keys
            .iter()
            .filter_map(|&(g, b)| outputs.get(g, b).map(|w| ((g, b), w.to_vec())))
            .collect();
        if let Ok(mut seen) = sink.lock() {
            seen.push(words);
        }
        Ok(())
    }));
    let mut config = EngineConfig::new(2, 1 << 10);
    config.mode = Mode::Raw;
    config.adapter = wgstress_runtime::gpu::device::AdapterChoice::named(adapter.as_deref());
    let mut engine = Engine::new(app, &config)?;
    let settings = Settings {
        strategy: Strategy::None,
        shuffle: false,
        shape: StressShape::default(),
        iterations: 0,
        cache_words: 0,
        watchdog_limit: 0,
        stress_fraction: (0.0, 0.0),
        placement: Default::default(),
        buffer_shuffle: false,
        scheduling: Default::default(),
    };
    let runs: Vec<RunParams> = (0..2)
        .map(|seed| RunParams::draw(seed, &settings, engine.app_groups()))
        .collect();
    let results = engine.run(&runs)?;
    if let Some(failed) = results.iter().find(|r| r.outcome.is_failure()) {
        bail!("a raw replay of the trace failed: {:?}", failed.outcome);
    }
    let replayed = seen
        .lock()
        .map_err(|_| anyhow!("the replay's host check panicked"))?
        .clone();
    if replayed.len() != 2 {
        bail!("the replay read back {} runs, not 2", replayed.len());
    }
    Ok(replayed)
}

/// The checks' words from the replays: each word as the first run left it, and words the two
/// runs disagree on left out; returns how many were.
fn fill(spec: &mut RecordedSpec, replayed: &Replayed) -> usize {
    let word = |run: usize, key: (u32, u32), index: u32| {
        replayed[run]
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, w)| w.get(index as usize).copied())
    };
    let mut differing = 0;
    for check in &mut spec.checks {
        let key = (check.group, check.binding);
        let before = check.words.len();
        check.words = check
            .words
            .iter()
            .filter_map(
                |&(index, _)| match (word(0, key, index), word(1, key, index)) {
                    (Some(a), Some(b)) if a == b => Some((index, a)),
                    _ => None,
                },
            )
            .collect();
        differing += before - check.words.len();
    }
    spec.checks.retain(|c| !c.words.is_empty());
    differing
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let recording = read_trace(&plan.trace)?;
    let mut spec = convert(&recording, &[])?;
    let origin = Origin {
        name: plan.name.clone(),
        program: format!("the wgpu trace {}", plan.trace.display()),
        adapter: None,
        recordings: 1,
        dir: None,
    };
    let scratch = Scratch::new()?;
    let draft = scratch.0.join("draft");
    write_new(&draft, &render(&spec, &origin)?)?;
    notes.note("replaying the trace twice, raw, for the words it could read back");
    let replayed = replay(&draft, plan.adapter.clone())?;
    let differing = fill(&mut spec, &replayed);
    if differing > 0 {
        spec.notes.push(format!(
            "{} between two raw replays and are not checked",
            count(
                differing,
                "read-back word differed",
                "read-back words differed"
            )
        ));
    }
    spec.notes.push(
        "a trace holds no read-backs: the checks' words are what two raw replays of this spec \
         left, on the adapter `wgstress import` ran on"
            .to_string(),
    );
    write_spec(&plan.out, &spec, &origin, notes)
}
