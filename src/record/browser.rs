//! A page in a real headless Chromium, driven over the DevTools protocol: the recorder is
//! injected before the page's own scripts, the page's console goes to stderr, the elements
//! `--click` names are clicked once the page is idle, and the recording is taken from the page
//! when it logs `wgstress:done`, has made no WebGPU call for `--idle` seconds after it read
//! something back, or its time is up. Its bytes are pulled from the page a piece at a time.

use super::group::Group;
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use wgstress_chromium::{ChromiumError, DevTools, PageEvent};

/// The name the recorder runs under in the page (its `sourceURL`): its own frames are told
/// from the page's by it, so that a call site is the page's script, line and column.
const RECORDER_URL: &str = "wgstress-recorder.js";

/// The recorder as a classic script that keeps its names to itself, and the functions the
/// page is asked for its state, its recording and its bytes by.
fn injected(recorder: &str) -> String {
    let body = recorder.replace("export function ", "function ");
    format!(
        "(() => {{\n{body}\nif (!globalThis.GPUDevice) return;\n\
         const sink = memorySink();\n\
         const {{ recording, activity }} = install(globalThis, new Map(), sink);\n\
         const hidden = (name, value) => Object.defineProperty(globalThis, name, {{ enumerable: false, value }});\n\
         hidden('__wgstressState', () => ({{ idle: now() - activity.last, readBack: activity.readBack, \
           ready: document.readyState === 'complete' }}));\n\
         hidden('__wgstressRecording', async () => {{\n\
           for (let i = 0; i < 250 && recording.pending > 0; i++) await new Promise((r) => setTimeout(r, 20));\n\
           return {{ json: serialize(recording), length: sink.length }};\n\
         }});\n\
         hidden('__wgstressData', (start, length) => sink.read(start, length));\n\
         }})();\n//# sourceURL={RECORDER_URL}\n"
    )
}

/// How often the page is asked whether it is idle.
const POLL: Duration = Duration::from_millis(250);

/// The bytes pulled from the page in one DevTools answer (as base64, a third more).
const PIECE: u64 = 8 << 20;

/// The page's DevTools session, with what the page said so far: its console lines go to
/// stderr as they come (each of a message's lines prefixed) when `echo`; `wgstress:done`
/// ends the recording.
struct Watched {
    devtools: DevTools,
    done: bool,
    console: Vec<String>,
    echo: bool,
}

impl Watched {
    /// Takes the page's events that came with the last command.
    fn heard(&mut self) {
        for event in self.devtools.take_events() {
            let line = match event {
                PageEvent::Console(line) if line == "wgstress:done" => {
                    self.done = true;
                    continue;
                }
                PageEvent::Console(line) => line,
                PageEvent::Exception(text) => format!("uncaught {text}"),
            };
            if self.echo {
                let mut err = std::io::stderr().lock();
                for part in line.split('\n') {
                    let _ = writeln!(err, "page: {}", part.trim_end_matches('\r'));
                }
            }
            self.console.push(line);
        }
    }

    fn evaluate(&mut self, expression: &str) -> Result<Value> {
        let value = self.devtools.evaluate(expression);
        self.heard();
        Ok(value?)
    }
}

/// How long a page is recorded, and what is clicked in it.
pub struct Options<'a> {
    pub time: Duration,
    pub idle: Duration,
    pub clicks: &'a [String],
}

/// Where a page's recording goes: its JSON and its data file.
pub struct Destination<'a> {
    pub recorder: &'a str,
    pub json: &'a Path,
    pub data: &'a Path,
}

/// Loads `url` in a headless Chromium with the recorder, writes the recording's JSON to
/// `json` and its bytes to `data`, and returns the browser's name and version. The page's
/// console goes to stderr.
pub fn record(
    url: &str,
    options: &Options,
    recorder: &str,
    scratch: &Path,
    json: &Path,
    data: &Path,
    k: usize,
) -> Result<String> {
    let page = load(
        url,
        options,
        Some(Destination {
            recorder,
            json,
            data,
        }),
        &scratch.join(format!("chromium-{k}")),
        true,
    )?;
    if !page.recorded {
        let said = page
            .console
            .last()
            .map(|l| format!(" (its last console line: {l})"))
            .unwrap_or_default();
        bail!("{url}: the page has no WebGPU, or the recorder did not load in it{said}");
    }
    Ok(page.browser)
}

/// What a page did: its console lines, whether its recording was written, and the browser.
pub struct Page {
    pub console: Vec<String>,
    pub recorded: bool,
    pub browser: String,
}

/// Loads `url` in a headless Chromium, with the recorder before the page's scripts when
/// given one, clicks what `options` says, until the page logs `wgstress:done`, is idle after
/// a read-back (with the recorder) or `options.time` passes.
pub fn load(
    url: &str,
    options: &Options,
    into: Option<Destination>,
    profile: &Path,
    echo: bool,
) -> Result<Page> {
    let mut command = wgstress_chromium::command(profile)?;
    let mut browser = Group::spawn(&mut command).context("cannot start Chromium")?;
    let address = wgstress_chromium::devtools_address(profile, &mut || browser.try_wait())?;
    let mut devtools = DevTools::connect(&address)?;
    let version = devtools.open_page()?;
    if let Some(into) = &into {
        devtools.before_scripts(&injected(into.recorder))?;
    }
    devtools.navigate(url)?;
    let mut devtools = Watched {
        devtools,
        done: false,
        console: Vec::new(),
        echo,
    };
    devtools.heard();
    wait(&mut devtools, options, into.is_some())?;
    let recorded = match &into {
        None => false,
        Some(into) => pull(&mut devtools, into)?,
    };
    Ok(Page {
        console: devtools.console,
        recorded,
        browser: version,
    })
}

/// Waits until the page is done: it logs `wgstress:done`, `options.time` passes, or (with
/// the recorder) it has read back and then made no WebGPU call for `options.idle`. Each
/// element to click is clicked once the page has been idle that long, one after another.
fn wait(devtools: &mut Watched, options: &Options, watched: bool) -> Result<()> {
    let deadline = Instant::now() + options.time;
    let mut clicks = options.clicks.iter();
    let mut next_click = clicks.next();
    let mut clicked = Instant::now();
    let idle_ms = options.idle.as_secs_f64() * 1000.0;
    while !devtools.done {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            if let Some(selector) = next_click {
                bail!(
                    "--click {selector}: the page was not idle for --idle {} s before --time {} s",
                    options.idle.as_secs_f64(),
                    options.time.as_secs_f64()
                );
            }
            break;
        }
        let heard = devtools
            .devtools
            .wait(left.min(POLL))
            .map_err(|e| match e {
                ChromiumError::Closed(_) => anyhow!("Chromium closed DevTools while the page ran"),
                e => e.into(),
            })?;
        devtools.heard();
        if heard {
            continue;
        }
        if !watched {
            continue;
        }
        let state = devtools
            .evaluate("globalThis.__wgstressState ? globalThis.__wgstressState() : null")?;
        let idle = state["idle"].as_f64().unwrap_or(0.0);
        let ready = state["ready"].as_bool().unwrap_or(false);
        let quiet = ready && idle >= idle_ms && clicked.elapsed() >= options.idle;
        match next_click {
            Some(selector) if quiet => {
                let clicked_it = devtools.devtools.click(selector);
                devtools.heard();
                clicked_it.map_err(|e| match e {
                    ChromiumError::NoElement(_) => {
                        anyhow!("--click {selector}: no element of the page matches it")
                    }
                    e => anyhow!("--click {selector}: {e}"),
                })?;
                clicked = Instant::now();
                next_click = clicks.next();
            }
            None if quiet && state["readBack"].as_bool() == Some(true) => break,
            _ => {}
        }
    }
    Ok(())
}

/// Takes the recording from the page: its JSON, then its bytes a piece at a time. Returns
/// whether the page had a recorder to take it from.
fn pull(devtools: &mut Watched, into: &Destination) -> Result<bool> {
    let taken = devtools
        .evaluate("globalThis.__wgstressRecording ? globalThis.__wgstressRecording() : null")?;
    let (Some(text), Some(length)) = (taken["json"].as_str(), taken["length"].as_u64()) else {
        return Ok(false);
    };
    std::fs::write(into.json, text)
        .with_context(|| format!("{}: cannot write", into.json.display()))?;
    let mut data = std::io::BufWriter::new(
        std::fs::File::create(into.data)
            .with_context(|| format!("{}: cannot write", into.data.display()))?,
    );
    let mut start = 0u64;
    while start < length {
        let piece = PIECE.min(length - start);
        let text = devtools.evaluate(&format!("globalThis.__wgstressData({start}, {piece})"))?;
        let bytes = text
            .as_str()
            .and_then(wgstress_record::decode_base64)
            .filter(|b| b.len() as u64 == piece)
            .ok_or_else(|| {
                anyhow!("the page gave bytes {start}..+{piece} of its recording wrong")
            })?;
        data.write_all(&bytes)
            .with_context(|| format!("{}: cannot write", into.data.display()))?;
        start += piece;
    }
    data.flush()
        .with_context(|| format!("{}: cannot write", into.data.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example page's result is the same with and without the recorder (Chromium on
    /// SwiftShader here; tools/test-deps.sh installs it). The fixed page's result is known;
    /// the buggy one's may be wrong by itself now and then, so it is only read.
    #[test]
    fn the_recorder_changes_nothing_a_page_sees() {
        let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/record/web/scan.html");
        let dir = tempfile::tempdir().unwrap();
        for query in ["?fixed", ""] {
            let url = format!("file://{}{query}", page.display());
            let options = Options {
                time: Duration::from_secs(60),
                idle: Duration::from_secs(3),
                clicks: &[],
            };
            let alone = load(
                &url,
                &options,
                None,
                &dir.path().join(format!("a{query}")),
                false,
            )
            .unwrap();
            let (json, data) = (dir.path().join("r.json"), dir.path().join("r.bin"));
            let recorded = load(
                &url,
                &options,
                Some(Destination {
                    recorder: super::super::RECORDER,
                    json: &json,
                    data: &data,
                }),
                &dir.path().join(format!("r{query}")),
                false,
            )
            .unwrap();
            if query == "?fixed" {
                assert_eq!(alone.console, ["count right"], "{url}");
                assert_eq!(recorded.console, alone.console, "{url}");
            } else {
                for page in [&alone, &recorded] {
                    assert!(
                        page.console.len() == 1 && page.console[0].starts_with("count "),
                        "{url}: {:?}",
                        page.console
                    );
                }
            }
            assert!(!alone.recorded);
            assert!(recorded.recorded);
            assert!(std::fs::read_to_string(&json)
                .unwrap()
                .contains("\"dispatch\""));
        }
    }
}
