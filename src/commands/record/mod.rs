//! `wgstress record --out DIR -- node PROGRAM [ARGS]` or `--browser URL`: runs a Node program
//! on WebGPU, or a page in a headless Chromium, with the recorder loaded before it, twice, and
//! writes the spec that replays its compute work.

mod browser;
pub mod import;
mod websocket;

use crate::notes::Notes;
use crate::present::numbers::count;
use crate::status::Status;
use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use wgstress_record::{convert, render, Origin, Recording};

/// The recorder, written next to the recording for each run: the binary carries it.
const RECORDER: &str = include_str!("../../../tools/record/recorder.mjs");
const NODE_HOOK: &str = include_str!("../../../tools/record/node-hook.mjs");

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the spec into (a new or empty one)
    #[arg(long)]
    out: PathBuf,
    /// End each recording after this many seconds if the program has not ended by itself
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// How many times to record the program: a word it read back differently in any of
    /// them is not checked (1: every word is)
    #[arg(long, default_value_t = 2)]
    recordings: usize,
    /// The application's name in the spec (default: the program's file stem)
    #[arg(long)]
    name: Option<String>,
    /// Record a web page instead: loaded in a headless Chromium (Debian's `chromium`), on the
    /// GPU where Chromium has one, else on SwiftShader; its console goes to stderr
    #[arg(long, value_name = "URL", conflicts_with = "program")]
    browser: Option<String>,
    /// The program: `node PROGRAM [ARGS]`
    #[arg(
        last = true,
        required_unless_present = "browser",
        value_name = "node PROGRAM [ARGS]"
    )]
    program: Vec<String>,
}

/// What is recorded.
enum Source {
    /// `node [NODE OPTIONS] PROGRAM [ARGS]`.
    Node { node: String, program: Vec<String> },
    /// A page, by its URL (a path is made a file:// URL).
    Browser { url: String },
}

/// A validated `record`: a Node command line, an output directory that holds nothing yet.
pub struct Plan {
    out: PathBuf,
    time: Duration,
    recordings: usize,
    name: String,
    source: Source,
}

pub fn plan(args: &Args) -> Result<Plan> {
    let (source, stem) = match &args.browser {
        Some(url) => {
            let url = if url.contains("://") || url.starts_with("about:") {
                url.clone()
            } else {
                let path = std::fs::canonicalize(url)
                    .map_err(|e| anyhow!("{url}: {e} (give a URL, or the path of a page)"))?;
                format!("file://{}", path.display())
            };
            let stem = url
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .and_then(|last| last.split(['.', '?', '#']).next())
                .filter(|s| !s.is_empty())
                .unwrap_or("page")
                .to_string();
            (Source::Browser { url }, stem)
        }
        None => {
            let (node, program) = args
                .program
                .split_first()
                .ok_or_else(|| anyhow!("give the program after --: -- node PROGRAM [ARGS]"))?;
            let is_node = Path::new(node)
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("node"));
            if !is_node {
                bail!("`{node}` is not Node: record runs `-- node PROGRAM [ARGS]`, a program on the npm package webgpu, or a page with --browser URL");
            }
            let script = program
                .iter()
                .find(|a| !a.starts_with('-'))
                .ok_or_else(|| anyhow!("no program after `{node}`: -- node PROGRAM [ARGS]"))?;
            let stem = Path::new(script)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("recorded")
                .to_string();
            (
                Source::Node {
                    node: node.clone(),
                    program: program.to_vec(),
                },
                stem,
            )
        }
    };
    if args.recordings == 0 {
        bail!("--recordings 0: record the program at least once");
    }
    if !args.time.is_finite() || args.time <= 0.0 {
        bail!("--time {}: give a number of seconds above 0", args.time);
    }
    check_out(&args.out)?;
    Ok(Plan {
        out: args.out.clone(),
        time: Duration::from_secs_f64(args.time),
        recordings: args.recordings,
        name: args.name.clone().unwrap_or(stem),
        source,
    })
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Node { node, program } => format!("{node} {}", program.join(" ")),
            Source::Browser { url } => format!("the page {url}"),
        }
    }
}

/// Refuses an output directory that holds anything: a recording writes a new one.
fn check_out(out: &Path) -> Result<()> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            bail!(
                "{}: exists and is not an empty directory; record writes its spec into a new one",
                out.display()
            );
        }
    }
    Ok(())
}

/// `path` from the root, `.` and `..` taken out, without following links (the directory may
/// not exist yet).
fn absolute(path: &Path) -> Result<PathBuf> {
    let joined = std::env::current_dir()
        .context("the current directory")?
        .join(path);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Writes a spec's files into `dir`, each a new file.
fn write_new(dir: &Path, files: &[wgstress_record::SpecFile]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    for file in files {
        let path = dir.join(&file.path);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        std::io::Write::write_all(&mut f, &file.bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

/// A directory of the recorder's files for one `record`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("wgstress-record-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        for (name, text) in [("recorder.mjs", RECORDER), ("node-hook.mjs", NODE_HOOK)] {
            std::fs::write(dir.join(name), text)
                .with_context(|| format!("{}: cannot write", dir.join(name).display()))?;
        }
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the program once with the recorder; returns the recording.
fn record_once(plan: &Plan, scratch: &Scratch, k: usize, notes: Notes) -> Result<Recording> {
    let text = match &plan.source {
        Source::Node { node, program } => record_node(plan, node, program, scratch, k, notes)?,
        Source::Browser { url } => browser::record(url, plan.time, RECORDER, &scratch.0, k)?,
    };
    serde_json::from_str(&text).map_err(|e| anyhow!("recording {k}: {e}"))
}

/// Runs a Node program once with the recorder loaded before it; returns the recording's JSON.
fn record_node(
    plan: &Plan,
    node: &str,
    program: &[String],
    scratch: &Scratch,
    k: usize,
    notes: Notes,
) -> Result<String> {
    let out = scratch.0.join(format!("recording-{k}.json"));
    let mut child = Command::new(node)
        .arg("--import")
        .arg(scratch.0.join("node-hook.mjs"))
        .args(program)
        .env("WGSTRESS_RECORDING", &out)
        .env(
            "WGSTRESS_RECORD_SECONDS",
            plan.time.as_secs_f64().to_string(),
        )
        // The program's own output is not wgstress's: it goes to stderr, with the notes.
        .stdout(std::process::Stdio::from(std::io::stderr()))
        .spawn()
        .with_context(|| format!("cannot start `{node}`"))?;
    // The hook ends the program at --time itself, writing what it saw; this is in case it
    // cannot (a program stuck in native code).
    let deadline = Instant::now() + plan.time + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "the program did not end within --time {} s and 10 s more: nothing was recorded",
                plan.time.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if !status.success() {
        notes.note(&format!("recording {k}: the program ended with {status}"));
    }
    std::fs::read_to_string(&out).map_err(|_| {
        anyhow!(
            "the program wrote no recording ({status}): it must import the npm package webgpu \
             from its own directory, and end by itself or by process.exit"
        )
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let scratch = Scratch::new()?;
    let mut recordings = Vec::new();
    for k in 1..=plan.recordings {
        notes.note(&format!(
            "recording {k} of {}: {}",
            plan.recordings,
            plan.source.describe()
        ));
        recordings.push(record_once(&plan, &scratch, k, notes)?);
    }
    let spec = convert(&recordings[0], &recordings[1..])?;
    let origin = Origin {
        name: plan.name.clone(),
        program: plan.source.describe(),
        adapter: recordings[0]
            .adapter
            .as_ref()
            .and_then(|a| a.description.clone()),
        recordings: recordings.len(),
        dir: Some(absolute(&plan.out)?),
    };
    write_spec(&plan.out, &spec, &origin, notes)
}

/// Writes the spec's files into `out` (a new or empty directory), loads the spec as `run`
/// would, so that one this cannot replay is an error here and not at the first run, and says
/// what it holds.
fn write_spec(
    out: &Path,
    spec: &wgstress_record::RecordedSpec,
    origin: &Origin,
    notes: Notes,
) -> Result<Status> {
    write_new(out, &render(spec, origin))?;
    let spec_path = out.join("spec.toml");
    wgstress_runtime::app::spec::load(&spec_path)?;
    let words: usize = spec.checks.iter().map(|c| c.words.len()).sum();
    notes.note(&format!(
        "{}: {}, {}, {} read back checked",
        spec_path.display(),
        count(spec.dispatches.len(), "dispatch", "dispatches"),
        count(spec.bindings.len(), "binding", "bindings"),
        count(words, "word", "words"),
    ));
    for note in &spec.notes {
        notes.note(note);
    }
    Ok(Status::Passed)
}
