//! `wgstress record --out DIR -- node PROGRAM [ARGS]` or `--browser URL`: runs a Node program
//! on WebGPU, or a page in a headless Chromium, with the recorder loaded before it, twice, and
//! writes the spec that replays its compute work.

mod browser;
mod group;
pub mod import;

use crate::notes::Notes;
use crate::present::numbers::count;
use crate::status::Status;
use anyhow::{anyhow, bail, Context, Result};
use group::Group;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use wgstress_record::{compare, convert, read_recording, render, same_path, Origin, Recording};

/// The recorder, written next to the recording for each run: the binary carries it.
const RECORDER: &str = include_str!("../../tools/record/recorder.mjs");
const NODE_HOOK: &str = include_str!("../../tools/record/node-hook.mjs");

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the spec into (a new or empty one)
    #[arg(long)]
    out: PathBuf,
    /// End each recording after this many seconds if the program has not ended by itself
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// End a recording once the program has read something back and then made no WebGPU
    /// call for this many seconds (a page or program that never says `wgstress:done`)
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    idle: f64,
    /// How many times to record the program: a word it read back differently in any of
    /// them is not checked (1: every word is); recordings whose inputs differ are refused
    #[arg(long, default_value_t = 2)]
    recordings: usize,
    /// When the recordings' inputs differ (dispatches, workgroup counts, bindings, the data
    /// written), write the spec from the first and say what differed, rather than refuse
    #[arg(long)]
    take_first: bool,
    /// Click the page's first element that matches this CSS selector once the page is idle
    /// (no WebGPU call for --idle seconds); repeatable, clicked in order, each after the page
    /// is idle again
    #[arg(long, value_name = "SELECTOR", requires = "browser")]
    click: Vec<String>,
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
    /// A page, by its URL (a path is made a file:// URL), and the elements to click in it.
    Browser { url: String, clicks: Vec<String> },
}

/// A validated `record`: a Node command line, an output directory that holds nothing yet.
pub struct Plan {
    out: PathBuf,
    time: Duration,
    idle: Duration,
    recordings: usize,
    take_first: bool,
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
            if let Some(empty) = args.click.iter().find(|s| s.trim().is_empty()) {
                bail!("--click {empty:?}: give a CSS selector of the element to click");
            }
            (
                Source::Browser {
                    url,
                    clicks: args.click.clone(),
                },
                stem,
            )
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
    for (option, seconds) in [("--time", args.time), ("--idle", args.idle)] {
        if !seconds.is_finite() || seconds <= 0.0 || seconds > 1e9 {
            bail!("{option} {seconds}: give a number of seconds above 0");
        }
    }
    check_out(&args.out)?;
    Ok(Plan {
        out: args.out.clone(),
        time: Duration::from_secs_f64(args.time),
        idle: Duration::from_secs_f64(args.idle),
        recordings: args.recordings,
        take_first: args.take_first,
        name: args.name.clone().unwrap_or(stem),
        source,
    })
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Node { node, program } => format!("{node} {}", program.join(" ")),
            Source::Browser { url, .. } => format!("the page {url}"),
        }
    }
}

/// Refuses an output directory that holds anything (a recording writes a new one) or that
/// cannot be written, before the program runs or a trace replays: their results are only
/// worth gathering if they can be saved.
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
    crate::session::paths::writable_dir(out, "--out")
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

/// A directory of the recorder's files for one `record` (and Chromium's profiles), removed
/// when dropped, or when a signal quits `record`.
struct Scratch(
    PathBuf,
    // Held for its drop: the removal at a signal is called off once the directory is gone.
    #[allow(dead_code)] crate::interrupt::AtQuit,
);

impl Scratch {
    fn new() -> Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("wgstress-record-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        let removed = dir.clone();
        let at_quit = crate::interrupt::at_quit(move || {
            let _ = std::fs::remove_dir_all(&removed);
        });
        let scratch = Scratch(dir, at_quit);
        let dir = &scratch.0;
        for (name, text) in [("recorder.mjs", RECORDER), ("node-hook.mjs", NODE_HOOK)] {
            std::fs::write(dir.join(name), text)
                .with_context(|| format!("{}: cannot write", dir.join(name).display()))?;
        }
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one recording gave: the recording, and the browser it was made in (for a page).
struct Recorded {
    recording: Recording,
    browser: Option<String>,
}

/// Runs the program once with the recorder; returns the recording.
fn record_once(plan: &Plan, scratch: &Scratch, k: usize, notes: Notes) -> Result<Recorded> {
    let json = scratch.0.join(format!("recording-{k}.json"));
    let data = scratch.0.join(format!("recording-{k}.json.bin"));
    let browser = match &plan.source {
        Source::Node { node, program } => {
            record_node(plan, node, program, scratch, k, notes)?;
            None
        }
        Source::Browser { url, clicks } => {
            let options = browser::Options {
                time: plan.time,
                idle: plan.idle,
                clicks,
            };
            Some(browser::record(
                url, &options, RECORDER, &scratch.0, &json, &data, k,
            )?)
        }
    };
    let text = std::fs::read_to_string(&json).with_context(|| format!("recording {k}"))?;
    let recording = read_recording(&text, &data).map_err(|e| anyhow!("recording {k}: {e}"))?;
    Ok(Recorded { recording, browser })
}

/// Runs a Node program once with the recorder loaded before it, which writes the recording
/// into the scratch directory.
fn record_node(
    plan: &Plan,
    node: &str,
    program: &[String],
    scratch: &Scratch,
    k: usize,
    notes: Notes,
) -> Result<()> {
    let out = scratch.0.join(format!("recording-{k}.json"));
    let data = scratch.0.join(format!("recording-{k}.json.bin"));
    let mut command = Command::new(node);
    command
        .arg("--import")
        .arg(scratch.0.join("node-hook.mjs"))
        .args(program)
        .env("WGSTRESS_RECORDING", &out)
        .env(
            "WGSTRESS_RECORD_SECONDS",
            plan.time.as_secs_f64().to_string(),
        )
        .env("WGSTRESS_RECORD_IDLE", plan.idle.as_secs_f64().to_string())
        // The program's own output is not wgstress's: it goes to stderr, with the notes.
        .stdout(std::process::Stdio::from(std::io::stderr()));
    let mut child = Group::spawn(&mut command).with_context(|| format!("cannot start `{node}`"))?;
    // The hook ends the program at --time itself, writing what it saw; this is in case it
    // cannot (a program stuck in native code).
    let deadline = Instant::now() + plan.time + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            bail!(
                "the program did not end within --time {} s and 10 s more: nothing was recorded",
                plan.time.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    crate::interrupt::hold_if_quitting();
    // What the program left running of its own ends with it.
    drop(child);
    if !status.success() {
        notes.note(&format!("recording {k}: the program ended with {status}"));
    }
    if out.exists() {
        return Ok(());
    }
    // The hook opens its data file as it installs the recorder: without one it never did.
    if data.exists() {
        bail!(
            "recording {k}: the program ended ({status}) before the recorder wrote its \
             recording, though the recorder was loaded; its output above says why"
        );
    }
    bail!(
        "the program wrote no recording ({status}): it must import the npm package webgpu \
         from its own directory, and end by itself or by process.exit"
    )
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let scratch = Scratch::new()?;
    let mut recordings = Vec::new();
    let mut browser = None;
    for k in 1..=plan.recordings {
        notes.note(&format!(
            "recording {k} of {}: {}",
            plan.recordings,
            plan.source.describe()
        ));
        let recorded = record_once(&plan, &scratch, k, notes)?;
        browser = browser.or(recorded.browser);
        recordings.push(recorded.recording);
    }
    let differences = compare(&recordings);
    let mut said = Vec::new();
    if !differences.is_empty() {
        if !plan.take_first {
            for d in &differences {
                notes.note(&d.to_string());
            }
            bail!(
                "{} ({} in all, above): the program's work depends on more than a spec \
                 holds; make its inputs fixed, or give --take-first to write the spec from \
                 recording 1",
                differences[0],
                count(differences.len(), "difference", "differences")
            );
        }
        said = differences
            .iter()
            .map(|d| format!("{d}; the spec replays recording 1"))
            .collect();
    }
    // Read-backs are set beside those of the recordings that took the first one's path.
    let (first, rest) = recordings.split_first().expect("at least one recording");
    let alike: Vec<Recording> = rest
        .iter()
        .filter(|r| same_path(first, r))
        .cloned()
        .collect();
    let mut spec = convert(first, &alike)?;
    spec.notes.splice(0..0, said);
    let program = match &browser {
        Some(version) => format!("{}, in {version}", plan.source.describe()),
        None => plan.source.describe(),
    };
    let origin = Origin {
        name: plan.name.clone(),
        program,
        adapter: first.adapter.as_ref().and_then(|a| a.describe()),
        recordings: 1 + alike.len(),
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
    write_new(out, &render(spec, origin)?)?;
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
