//! A page in a real headless Chromium, driven over the DevTools protocol: the recorder is
//! injected before the page's own scripts, the page's console goes to stderr, the elements
//! `--click` names are clicked once the page is idle, and the recording is taken from the page
//! when it logs `wgstress:done`, has made no WebGPU call for `--idle` seconds after it read
//! something back, or its time is up. Its bytes are pulled from the page a piece at a time.

use super::console;
use super::group::Group;
use super::websocket::{Received, WebSocket};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// The Chromium to run: `chromium` (Debian's), else `chromium-browser` or `google-chrome`.
fn chromium() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    bail!("no Chromium found (chromium, chromium-browser or google-chrome on PATH): --browser needs one (Debian: apt-get install chromium)")
}

/// How long Chromium may take to listen for DevTools. Its start-up is CPU-bound: on a machine
/// whose cores are all busy (a CI runner running tests beside it) it takes many times longer
/// than on an idle one, and a slow start is not a failure.
const STARTUP: Duration = Duration::from_secs(180);

/// How often the page is asked whether it is idle.
const POLL: Duration = Duration::from_millis(250);

/// The bytes pulled from the page in one DevTools answer (as base64, a third more).
const PIECE: u64 = 8 << 20;

/// The DevTools address Chromium wrote into its profile directory once it listens.
fn devtools_address(profile: &Path, browser: &mut Group) -> Result<String> {
    let deadline = Instant::now() + STARTUP;
    let file = profile.join("DevToolsActivePort");
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return Ok(format!("ws://127.0.0.1:{port}{path}"));
            }
        }
        if let Some(status) = browser.try_wait()? {
            bail!("Chromium ended ({status}) before it listened for DevTools");
        }
        if Instant::now() > deadline {
            bail!(
                "Chromium did not listen for DevTools within {} s",
                STARTUP.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One DevTools connection, with a page session.
struct DevTools {
    socket: WebSocket,
    next: u64,
    session: Option<String>,
    done: bool,
    /// The page's console lines so far.
    console: Vec<String>,
    /// Whether they also go to stderr as they come.
    echo: bool,
}

impl DevTools {
    /// Sends a command (to the page's session once there is one) and waits for its answer,
    /// passing on the page's console lines that come meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.next += 1;
        let id = self.next;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        self.socket.send(&message.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let text = match self.socket.receive(left)? {
                Received::Message(text) => text,
                Received::Closed => bail!("Chromium closed DevTools during {method}"),
                Received::TimedOut => bail!("DevTools did not answer {method} within 60 s"),
            };
            let value: Value = serde_json::from_str(&text)?;
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    bail!(
                        "DevTools {method}: {}",
                        error["message"].as_str().unwrap_or("failed")
                    );
                }
                return Ok(value["result"].clone());
            }
            self.event(&value);
        }
    }

    /// The value of `expression` in the page (awaited when it is a promise); an exception
    /// it throws is an error that says what it was.
    fn evaluate(&mut self, expression: &str) -> Result<Value> {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        )?;
        if let Some(details) = result.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or(details["text"].as_str())
                .unwrap_or("an exception");
            bail!("{}", text.lines().next().unwrap_or(text));
        }
        Ok(result["result"]["value"].clone())
    }

    /// A page's console line goes to stderr, each of its lines prefixed; `wgstress:done` ends
    /// the recording.
    fn event(&mut self, value: &Value) {
        match value["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args = value["params"]["args"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let line = console::format(&args);
                if line == "wgstress:done" {
                    self.done = true;
                } else {
                    self.say(line);
                }
            }
            Some("Runtime.exceptionThrown") => {
                let details = &value["params"]["exceptionDetails"];
                let text = details["exception"]["description"]
                    .as_str()
                    .or(details["text"].as_str())
                    .unwrap_or("an exception");
                self.say(format!("uncaught {text}"));
            }
            _ => {}
        }
    }

    fn say(&mut self, line: String) {
        if self.echo {
            let mut err = std::io::stderr().lock();
            for part in line.split('\n') {
                let _ = writeln!(err, "page: {}", part.trim_end_matches('\r'));
            }
        }
        self.console.push(line);
    }

    /// Clicks the centre of the page's first element that matches `selector`, with the
    /// mouse, as a user would.
    fn click(&mut self, selector: &str) -> Result<()> {
        let quoted = serde_json::to_string(selector)?;
        let place = self
            .evaluate(&format!(
                "(() => {{ const e = document.querySelector({quoted}); if (!e) return null; \
                 e.scrollIntoView({{ block: 'center', inline: 'center' }}); \
                 const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
            ))
            .map_err(|e| anyhow!("--click {selector}: {e}"))?;
        let (Some(x), Some(y)) = (place[0].as_f64(), place[1].as_f64()) else {
            bail!("--click {selector}: no element of the page matches it");
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
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
    std::fs::create_dir_all(profile)?;
    let mut command = Command::new(chromium()?);
    command
        .arg("--headless=new")
        .arg("--enable-unsafe-webgpu")
        // SwiftShader where the machine has no GPU Chromium can use.
        .arg("--enable-unsafe-swiftshader")
        .arg("--remote-debugging-port=0")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--no-first-run")
        .arg("--no-default-browser-check")
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Chromium refuses to run as root inside its sandbox.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        command.arg("--no-sandbox");
    }
    let mut browser = Group::spawn(&mut command).context("cannot start Chromium")?;
    let address = devtools_address(profile, &mut browser)?;
    let socket = WebSocket::connect(&address)?;
    let mut devtools = DevTools {
        socket,
        next: 0,
        session: None,
        done: false,
        console: Vec::new(),
        echo,
    };
    let version = devtools.call("Browser.getVersion", json!({}))?;
    let version = version["product"]
        .as_str()
        .unwrap_or("Chromium")
        .to_string();
    let target = devtools.call("Target.createTarget", json!({ "url": "about:blank" }))?;
    let target = target["targetId"]
        .as_str()
        .ok_or_else(|| anyhow!("DevTools gave no target"))?
        .to_string();
    let attached = devtools.call(
        "Target.attachToTarget",
        json!({ "targetId": target, "flatten": true }),
    )?;
    devtools.session = attached["sessionId"].as_str().map(str::to_string);
    devtools.call("Runtime.enable", json!({}))?;
    devtools.call("Page.enable", json!({}))?;
    if let Some(into) = &into {
        devtools.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": injected(into.recorder) }),
        )?;
    }
    let navigated = devtools.call("Page.navigate", json!({ "url": url }))?;
    if let Some(error) = navigated["errorText"].as_str() {
        bail!("{url}: {error}");
    }
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
fn wait(devtools: &mut DevTools, options: &Options, watched: bool) -> Result<()> {
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
        match devtools.socket.receive(left.min(POLL))? {
            Received::Message(text) => {
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    devtools.event(&value);
                }
                continue;
            }
            Received::Closed => bail!("Chromium closed DevTools while the page ran"),
            Received::TimedOut => {}
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
                devtools.click(selector)?;
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
fn pull(devtools: &mut DevTools, into: &Destination) -> Result<bool> {
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
